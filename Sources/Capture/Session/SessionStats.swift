import Analysis
import Base
import GStreamer
import SwiftFilterElement

/// What a running session reports: rates, counts, drops by cause, filter cost, last capture.
public struct SessionStats: Codable, Sendable, Equatable {
    /// The session's status name (configured, unconfigured, unauthorized, failed, busy).
    public var status: String
    /// Why the status is not `configured`, in one sentence: for a camera, the device, what happened and what SwiftCam
    /// does next (`camera /dev/video0 stopped sending frames …; waiting for it to come back`). Nil when configured.
    public var reason: String?
    /// Seconds since the pipeline started playing.
    public var uptime: Double
    /// Frames that reached the filter, and that left it.
    public var framesIn: Int
    public var framesOut: Int
    /// Frames per second in and out, over the last measuring window.
    public var fpsIn: Double
    public var fpsOut: Double
    /// Frames a leaky branch queue dropped because its branch fell behind.
    public var queueDrops: Int
    /// Frames the filter skipped because they were already late (QoS).
    public var qosDrops: Int
    /// Frames the camera driver dropped before we saw them (V4L2 sequence gaps), where the source reports them.
    public var sourceDrops: Int
    /// The filter's mean and worst milliseconds per frame.
    public var filterMeanMs: Double
    public var filterMaxMs: Double
    /// The running chain, in canonical text.
    public var chain: String
    /// The active source (index 0 or 1) and its label.
    public var activeSource: Int
    /// The file being recorded, if any.
    public var recording: String?
    /// Why the last recording failed (`PATH: REASON`), until the next one starts.
    public var recordingFailure: String?
    /// Stills written by this session, and the newest one's path.
    public var stills: Int
    public var lastCapture: String?
    /// What the session's outputs beyond this machine report (the RTSP server, a push), one phrase each.
    public var outputs: [String]?
    /// Each camera's mode and how it reaches the config, with why it was chosen (`CameraPlan.summary`).
    public var cameras: [String]?
    /// Frames the session's recordings encoded (what their files hold), bytes written into them (every segment's), and
    /// segments finished (with `record.segment`).
    public var recordedFrames: Int? = nil
    public var recordingBytes: Int? = nil
    public var segmentsWritten: Int? = nil
    /// With a `storage` budget: bytes the captures in its folders take and bytes free on their disk at its last check,
    /// and the files it deleted.
    public var storageUsedBytes: Int? = nil
    public var storageFreeBytes: Int? = nil
    public var storageDeletions: Int? = nil
    /// Each analyser's frames, analysed frames and drops (frames that came while it was busy), and the events so far by name.
    public var analysis: [AnalyzerStats]? = nil
    public var events: [String: Int]? = nil

    /// One line for terminals and logs.
    public var line: String {
        var text = status + (reason.map { ": \($0);" } ?? "")
        text += " \(fmt(uptime, 1))s in \(framesIn) (\(fmt(fpsIn, 1)) fps) out \(framesOut) (\(fmt(fpsOut, 1)) fps)"
        text += " drops queue \(queueDrops) qos \(qosDrops) source \(sourceDrops)"
        text += " filter \(fmt(filterMeanMs, 2)) ms (max \(fmt(filterMaxMs, 2)))"
        text += " chain \"\(chain)\""
        if let recording { text += " recording \(recording)" }
        if let recordingFailure { text += " recording failed: \(recordingFailure)" }
        text += " stills \(stills)"
        if let lastCapture { text += " last \(lastCapture)" }
        if let recordedFrames, recordedFrames > 0 || (segmentsWritten ?? 0) > 0 {
            text += " recorded \(recordedFrames) frames \(recordingBytes ?? 0) bytes \(segmentsWritten ?? 0) segments"
        }
        if let storageUsedBytes {
            text += " storage \(storageUsedBytes) bytes used \(storageFreeBytes ?? 0) free \(storageDeletions ?? 0) deleted"
        }
        for analyser in analysis ?? [] {
            text += " analysis \(analyser.name) \(analyser.analysed)/\(analyser.frames) drops \(analyser.dropped)"
        }
        for (name, count) in (events ?? [:]).sorted(by: { $0.key < $1.key }) { text += " events \(name) \(count)" }
        for output in outputs ?? [] { text += "; \(output)" }
        for camera in cameras ?? [] { text += "; \(camera)" }
        return text
    }
}

/// The window the frame rates are measured over.
struct RateWindow: Sendable {
    /// When the window started, seconds.
    var time = 0.0
    /// The frame counts at that time, and the rates measured over the last window.
    var framesIn = 0, framesOut = 0
    var fpsIn = 0.0, fpsOut = 0.0
    /// Whether a whole window has passed: before one has, the rates are those since the start.
    var measured = false
}

extension CaptureSession {
    /// Rates, counts and drops now (after `stop`, as they were when the pipeline stopped). Never waits for
    /// another command: it reads counters and takes each small lock only for a moment.
    public var stats: SessionStats {
        let (graph, final) = state.withLock { ($0.graph, $0.finalStats) }
        if graph == nil, let final { return final }
        return stats(of: graph)
    }

    /// The stats of `graph` (nil: between graphs) plus what earlier graphs carried over.
    func stats(of graph: RunningGraph?) -> SessionStats {
        let now = MonotonicClock.now
        let (base, status, lastCapture) = state.withLock { ($0.carried, $0.status, $0.lastCapture) }
        let framesIn = base.framesIn + (graph?.filterIn.value ?? 0), framesOut = base.framesOut + (graph?.filterOut.value ?? 0)
        let window = rates.withLock { window -> RateWindow in
            let span = now - window.time
            if span >= 0.5 {
                window = RateWindow(
                    time: now, framesIn: framesIn, framesOut: framesOut,
                    fpsIn: Double(framesIn - window.framesIn) / span, fpsOut: Double(framesOut - window.framesOut) / span,
                    measured: true)
            } else if !window.measured, span > 0 {
                // A run shorter than a window (`--frames 10`) has no window's rate: the rate so far is the one.
                var early = window
                early.fpsIn = Double(framesIn - window.framesIn) / span
                early.fpsOut = Double(framesOut - window.framesOut) / span
                return early
            }
            return window
        }
        let recorder = recordings.active
        let storageCounts = storage?.now
        var queueDrops = base.queueDrops + (graph?.queueDrops ?? 0)
        if let recorder { queueDrops += recorder.droppedFrames(finished: false) }
        let filterStats = graph?.filter.flatMap { SwiftFilterElement.stats(of: $0) }
        var stats = SessionStats(
            status: status.name, reason: status.reason, uptime: graph.map { now - $0.startTime } ?? 0,
            framesIn: framesIn, framesOut: framesOut, fpsIn: window.fpsIn, fpsOut: window.fpsOut,
            queueDrops: queueDrops, qosDrops: base.qosDrops + (filterStats?.dropped ?? 0),
            sourceDrops: base.sourceDrops + (graph?.sourceDrops ?? 0),
            filterMeanMs: filterStats?.meanMilliseconds ?? 0, filterMaxMs: filterStats?.maxMilliseconds ?? 0,
            chain: filterStats?.chain ?? "", activeSource: controls.activeSource, recording: recorder?.currentFile,
            recordingFailure: state.withLock { $0.recordingFailure },
            stills: stills.count, lastCapture: lastCapture, outputs: outputReports(),
            cameras: graph.flatMap { $0.cameraSummaries.isEmpty ? nil : $0.cameraSummaries },
            recordedFrames: base.recordedFrames + (recorder?.framesEncoded.value ?? 0),
            recordingBytes: base.recordingBytes + (recorder?.bytesWritten ?? 0),
            segmentsWritten: base.segments + (recorder?.segments?.now.finished ?? 0),
            storageUsedBytes: storageCounts?.usedBytes, storageFreeBytes: storageCounts?.freeBytes,
            storageDeletions: storageCounts?.deletions)
        let analysers = analyzerStats
        if !analysers.isEmpty {
            stats.analysis = analysers
            stats.events = eventCounts
        }
        return stats
    }

    /// Adds (or with nil removes) a phrase `stats` carries for an output another module runs, such as
    /// `push srt://host:8890 retrying in 2 s (last error: …)`. `report` runs on whatever thread asks for
    /// stats; it must only read state, never wait.
    public func setReport(_ key: String, _ report: (@Sendable () -> String)?) {
        reports.withLock { $0[key] = report }
    }

    private func outputReports() -> [String]? {
        let providers = reports.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        return providers.isEmpty ? nil : providers.map { $0() }
    }
}
