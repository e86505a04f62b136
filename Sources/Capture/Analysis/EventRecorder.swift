import Analysis
import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer

/// Recordings on events with the seconds before them. While the session runs it subscribes to the shared live
/// encoder and keeps the last `preRoll` seconds of encoded frames in a `KeyFrameRing` (never raw frames). An event
/// start opens a file with the ring's frames from the last key frame at least `preRoll` before the event, then the
/// live frames; the event's end schedules the file's end `postRoll` later, by the frames' timestamps, and a new
/// start before then keeps it going. Files are Matroska, written as `.part` and renamed when finished, with an
/// `.event.json` sidecar holding the event's and the file's times.
final class EventRecorder: Sendable {
    let trigger: RecordTrigger
    let directory: String
    let session: String
    private let state: Locked<State>
    /// Finishing files (waiting for their EOS) happens here, off the encoder's thread.
    private let finishing: DispatchQueue

    private struct State {
        var ring: KeyFrameRing<Sample>
        var subscription: LiveSubscription?
        var writer: EventWriter?
        var finished: [String] = []
        var sequence = 0
        /// An event that started before the encoder's first frame (it starts with the session): its file opens with
        /// that frame, with the end the event may have been given meanwhile.
        var pending: (event: AnalysisEvent, stopAt: UInt64?, lastEvent: UInt64?)?
    }

    init(trigger: RecordTrigger, directory: String, session: String) {
        self.trigger = trigger
        self.directory = directory
        self.session = session
        // The ring reaches a second past the pre-roll: the key frame before it may be up to a group earlier.
        state = Locked(State(ring: KeyFrameRing(seconds: (trigger.preRoll ?? 5) + 1, maxBytes: trigger.maxBytes ?? 64_000_000)))
        finishing = DispatchQueue(label: "swiftcam.eventrecorder.\(session)")
    }

    var source: String { trigger.on ?? "motion" }
    var preRoll: UInt64 { UInt64((trigger.preRoll ?? 5) * 1e9) }
    var postRoll: UInt64 { UInt64((trigger.postRoll ?? 5) * 1e9) }

    var ringBytes: (now: Int, peak: Int) { state.withLock { ($0.ring.bytes, $0.ring.peakBytes) } }
    var finished: [String] { state.withLock { $0.finished } }

    /// Subscribes to the live encoder; a failure is told and recordings on events are off.
    func start(_ session: CaptureSession) {
        guard state.withLock({ $0.subscription == nil }) else { return }
        let encoder = session.live.encoders[.video]
        do {
            let subscription = try session.subscribeLive(.video) { [weak self, weak session] sample in
                guard let self, let buffer = sample.buffer, let pts = buffer.pts, let running = sample.runningTime(of: pts),
                    let time = encoder?.pipelineTime(ofStream: running)
                else { return }
                self.receive(sample, bytes: buffer.size, time: time, isKeyFrame: !buffer.isDeltaUnit, session: session)
            }
            state.withLock { $0.subscription = subscription }
        } catch {
            session.warn("recordings on \(source) events are off: the live encoder would not start (\(error))")
        }
    }

    /// Ends the file under way (its post-roll cut short) and the subscription; waits for the file to be finished.
    func stop() {
        let (subscription, writer) = state.withLock { state in
            defer {
                state.subscription = nil
                state.writer = nil
                state.pending = nil
                state.ring.removeAll()
            }
            return (state.subscription, state.writer)
        }
        subscription?.cancel()
        if let writer { finish(writer) }
        finishing.sync {}
    }

    /// On an analyser's queue: a start opens a file (or keeps the open one going), an end schedules its end.
    func handle(_ event: AnalysisEvent) {
        guard event.source == source else { return }
        if event.kind == "start" {
            state.withLock { state in
                if let writer = state.writer {
                    writer.stopAt = nil
                } else if state.pending != nil {
                    state.pending?.stopAt = nil
                } else if state.ring.frames.isEmpty {
                    state.pending = (event, nil, nil)
                } else {
                    state.writer = openWriter(for: event, in: &state)
                }
            }
        } else if event.kind == "end" {
            state.withLock { state in
                state.writer?.stopAt = event.time + postRoll
                state.writer?.lastEvent = event.time
                state.pending?.stopAt = event.time + postRoll
                state.pending?.lastEvent = event.time
            }
        }
    }

    /// A file for `event` holding the ring's frames from `preRoll` before it; nil (said in the debug log) when it
    /// cannot be made. Under the lock.
    private func openWriter(for event: AnalysisEvent, in state: inout State) -> EventWriter? {
        let frames = state.ring.frames(from: event.time >= preRoll ? event.time - preRoll : 0)
        guard let first = frames.first, let caps = first.payload.caps else {
            DebugLog.warning("event recording on \(event.name): the encoded frames have no caps")
            return nil
        }
        state.sequence += 1
        let base = "\(session)-\(event.source)-\(timestamp())-\(state.sequence)"
        do {
            let writer = try EventWriter(directory: directory, base: base, caps: caps, origin: first.time, event: event)
            for frame in frames { writer.push(frame.payload, time: frame.time) }
            return writer
        } catch {
            DebugLog.warning("event recording \(base): \(error)")
            return nil
        }
    }

    /// On the live encoder's thread: into the ring, and into the open file until its end time.
    private func receive(_ sample: Sample, bytes: Int, time: UInt64, isKeyFrame: Bool, session: CaptureSession?) {
        let done = state.withLock { state -> EventWriter? in
            state.ring.append(KeyFrameRing<Sample>.Entry(time: time, bytes: bytes, isKeyFrame: isKeyFrame, payload: sample))
            if state.writer == nil, let pending = state.pending {
                // The event came first: its file starts here, this frame (in the ring) its first.
                state.pending = nil
                let writer = openWriter(for: pending.event, in: &state)
                writer?.stopAt = pending.stopAt
                writer?.lastEvent = pending.lastEvent
                state.writer = writer
                return nil
            }
            guard let writer = state.writer else { return nil }
            if let stopAt = writer.stopAt, time > stopAt {
                state.writer = nil
                return writer
            }
            writer.push(sample, time: time)
            return nil
        }
        if let done {
            finishing.async { [weak self, weak session] in
                guard let self else { return }
                if let path = self.finishNow(done) { session?.emit(.notice("event recording \(path)")) }
            }
        }
    }

    private func finish(_ writer: EventWriter) {
        finishing.async { [weak self] in _ = self?.finishNow(writer) }
    }

    private func finishNow(_ writer: EventWriter) -> String? {
        do {
            let path = try writer.finish()
            state.withLock { $0.finished.append(path) }
            return path
        } catch {
            DebugLog.warning("event recording: \(error)")
            return nil
        }
    }
}

/// One event recording's file: `appsrc ! [h264parse] ! matroskamux ! filesink`, fed encoded frames restamped from
/// `origin`. Touched under the recorder's lock (pushes never block: the appsrc queues without limit for the few
/// seconds of pre-roll), then finished on the recorder's queue.
/// Unchecked Sendable: its `var` fields change only under `EventRecorder`'s `state` lock while it is the open
/// writer, and are read by `finish` on the `finishing` queue only after it was taken out of that state.
final class EventWriter: @unchecked Sendable {
    let path: String
    let event: AnalysisEvent
    let origin: UInt64
    var stopAt: UInt64?
    var lastEvent: UInt64?
    private(set) var lastTime: UInt64
    private let pipeline: Pipeline
    private let source: AppSrc
    private let partial: String

    init(directory: String, base: String, caps: Caps, origin: UInt64, event: AnalysisEvent) throws {
        try StillWriter.createDirectory(directory)
        path = "\(directory)/\(base).mkv"
        partial = path + ".part"
        self.event = event
        self.origin = origin
        lastTime = origin
        var graph = GraphDescription()
        let source = graph.add("appsrc", name: "event-src", ["format": "time", "is-live": false, "max-bytes": 0, "block": false])
        var tail = source
        if caps.description.hasPrefix("video/x-h264") {
            let parse = graph.add("h264parse")
            graph.link(tail, to: parse)
            tail = parse
        }
        let mux = graph.add("matroskamux", ["min-cluster-duration": 500_000_000, "max-cluster-duration": 1_000_000_000])
        let sink = graph.add("filesink", ["location": .string(partial), "sync": false, "async": false])
        graph.link(tail, to: mux)
        graph.link(mux, to: sink)
        pipeline = try graph.build()
        guard let element = pipeline.element(named: "event-src", as: AppSrc.self) else {
            throw SessionError.missingElement(name: "event-src", command: "event recording")
        }
        self.source = element
        element.caps = caps
        // PLAYING completes only with the first frame (the muxer prerolls on it), pushed next: asked for, not waited for.
        guard pipeline.requestState(.playing) else {
            try? pipeline.setState(.null)
            throw SessionError.recordingFailed(reason: "\(path): the event recording's muxer would not start")
        }
    }

    /// Restamps and queues one encoded frame; a frame the file refuses (it failed) is dropped.
    func push(_ sample: Sample, time: UInt64) {
        guard let buffer = sample.buffer, time >= origin else { return }
        var copy = WritableBuffer(buffer)
        copy.pts = time - origin
        copy.dts = nil
        lastTime = time
        try? source.push(copy)
    }

    /// Ends the stream, waits for the muxer to finish the file, renames it into place and writes the sidecar.
    func finish() throws -> String {
        source.endOfStream()
        let end = pipeline.bus.waitForEnd(timeout: 30)
        try? pipeline.setState(.null)
        if case let .error(_, text, _, _)? = end {
            try? FileManager.default.removeItem(atPath: partial)
            throw SessionError.recordingFailed(reason: "\(path): \(text)")
        }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        var extra = [
            "firstFrame": Double(origin) / 1e9, "lastFrame": Double(lastTime) / 1e9,
            "preRoll": Double(event.time - min(origin, event.time)) / 1e9
        ]
        if let lastEvent {
            extra["end"] = Double(lastEvent) / 1e9
            extra["postRoll"] = Double(lastTime >= lastEvent ? lastTime - lastEvent : 0) / 1e9
        }
        EventSidecar.write(for: path, event: event, extra: extra)
        return path
    }
}
