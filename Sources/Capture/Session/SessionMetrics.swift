import Base
import Config
import FoundationEssentials
import GStreamer
import Glibc
import SwiftFilterElement

/// The session's counters for monitoring, in base units and counted from the start of the session (across camera
/// recoveries): what `/metrics` exposes. Counters only grow while the session lives; gauges say what is now.
public struct SessionMetrics: Sendable, Equatable {
    /// The status name (`CameraStatus.name`): configured, unconfigured, unauthorized, failed, busy.
    public var status: String
    /// Frames that reached the filter, and that left it.
    public var framesIn: Int
    public var framesOut: Int
    /// Frames dropped, by cause: `queue` (a branch fell behind), `qos` (late before filtering), `source` (the driver's
    /// sequence gaps).
    public var drops: [String: Int]
    /// Frames the filter processed and the seconds it spent on them; the slowest frame of the graph now, in seconds.
    public var filterFrames: Int
    public var filterSeconds: Double
    public var filterMaxSeconds: Double
    /// Stills written.
    public var stills: Int
    /// Whether a recording is being written now.
    public var recording: Bool
    /// Recording and storage counters.
    public var storage: StorageMetrics
    /// Encoders by use: `video` and `mjpeg` (the live streams: the one running, or the one the next subscriber starts) and
    /// `record` (while recording), each with its element and codec.
    public var encoders: [EncoderInfo]
    /// Times the session restarted its graph after a camera failed or stalled.
    public var restarts: Int
    /// Seconds since the graph now playing started.
    public var uptime: Double
    /// Each analyser's counts (frames offered, analysed, dropped while busy), and analysis events by name (`motion start`).
    public var analysis: [AnalyzerStats] = []
    public var events: [String: Int] = [:]
    /// The pre-roll ring's bytes now, when the config records on events.
    public var preRollBytes: Int?
    /// Key frames each live stream's encoder was made to give (a viewer joining, a PLI or FIR), by stream (`video`).
    public var keyFramesForced: [String: Int] = [:]

    /// One encoder in use.
    public struct EncoderInfo: Sendable, Equatable {
        /// What it encodes for (`video`, `mjpeg`: the live streams; `record`), the GStreamer element (`x264enc`) and
        /// the codec (`h264`).
        public var use, element, codec: String
    }
}

/// Recordings and the disk they fill: a small snapshot the storage budget fills in full. Today the session fills the
/// recording counts and measures the capture folders itself; segments and deletions stay 0 until recordings are cut into
/// segments under a budget.
public struct StorageMetrics: Sendable, Equatable {
    /// Bytes written into recordings (finished files plus the one being written).
    public var recordingBytes: Int = 0
    /// Recording files finished (each recording, each part after a recovery).
    public var recordingsWritten: Int = 0
    /// Segments of a continuous recording closed.
    public var segmentsWritten: Int = 0
    /// Bytes the stills and recordings in the capture folders take; nil when not measured.
    public var usedBytes: Int?
    /// Bytes free to this user on the file system of the recordings folder; nil when it cannot be read.
    public var freeBytes: Int?
    /// Files deleted to keep within the storage budget.
    public var deletions: Int = 0

    /// Bytes free to an unprivileged user on the file system holding `directory`; nil when it cannot be read.
    public static func freeBytes(at directory: String) -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize)).partialValue)
    }
}

extension CaptureSession {
    /// The counters now. Like `stats`, never waits for a command: it reads counters and takes each small lock only for
    /// a moment; it also lists the capture folders (for `usedBytes`) and reads the recording's file size.
    public var metrics: SessionMetrics {
        let stats = self.stats
        let (graph, carried) = state.withLock { ($0.graph, $0.carried) }
        let filter = graph?.filter.flatMap { SwiftFilterElement.stats(of: $0) }
        let recorder = recordings.active
        let bytes = carried.recordingBytes + (recorder?.bytesWritten ?? 0)
        var storage = StorageMetrics(
            recordingBytes: state.withLock { state in
                state.recordingBytesReported = max(state.recordingBytesReported, bytes)
                return state.recordingBytesReported
            }, recordingsWritten: carried.recordingsWritten, segmentsWritten: stats.segmentsWritten ?? 0)
        if let budget = self.storage {
            let counts = budget.now
            storage.usedBytes = counts.usedBytes
            storage.freeBytes = counts.freeBytes
            storage.deletions = counts.deletions
        } else {
            let folders = [config.still?.directory ?? "captures", config.record?.directory ?? "recordings"]
            storage.usedBytes = Gallery.items(in: Array(Set(folders))).reduce(0) { $0 + $1.bytes }
            storage.freeBytes = StorageMetrics.freeBytes(at: folders[1]) ?? StorageMetrics.freeBytes(at: ".")
        }
        var encoders: [SessionMetrics.EncoderInfo] = LiveFormat.allCases.compactMap { format in
            let live = liveStats(format)
            return live.encoder.map { .init(use: format.rawValue, element: $0, codec: live.codec.rawValue) }
        }
        if let encoder = recorder?.encoder {
            encoders.append(.init(use: "record", element: encoder.element, codec: encoder.codec.rawValue))
        }
        let filterFrames = filter?.frames ?? 0
        var metrics = SessionMetrics(
            status: stats.status, framesIn: stats.framesIn, framesOut: stats.framesOut,
            drops: ["queue": stats.queueDrops, "qos": stats.qosDrops, "source": stats.sourceDrops],
            filterFrames: carried.filterFrames + filterFrames,
            filterSeconds: carried.filterSeconds + Double(filterFrames) * (filter?.meanMilliseconds ?? 0) / 1000,
            filterMaxSeconds: (filter?.maxMilliseconds ?? 0) / 1000, stills: stats.stills, recording: recorder != nil,
            storage: storage, encoders: encoders, restarts: carried.recoveries, uptime: stats.uptime)
        metrics.analysis = analyzerStats
        metrics.events = eventCounts
        metrics.preRollBytes = preRollBytes?.now
        for format in LiveFormat.allCases where format != .mjpeg {
            metrics.keyFramesForced[format.rawValue] = liveStats(format).keyFramesForced
        }
        return metrics
    }
}
