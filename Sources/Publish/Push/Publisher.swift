import Base
import Capture
public import Config
import Dispatch
import GStreamer
import Synchronization

/// Pushes the live stream to a media server (`rtspclientsink` for rtsp://, `mpegtsmux ! srtsink` for
/// srt://, `flvmux ! rtmp2sink` for rtmp:// and rtmps://) from a small pipeline of its own, so a server that is slow, gone or refusing never touches the
/// session. When the push fails it is torn down and tried again with backoff (0.5 s doubling to 3 s); when
/// the server is back it resumes, starting at a key frame.
public final class Publisher: Sendable {
    /// Where the push stands.
    public enum Phase: Sendable, Equatable {
        /// Connecting (the first time, or again after a failure).
        case connecting
        /// The server took the stream.
        case connected
        /// Failed; the next attempt is at this monotonic time.
        case retrying(at: Double)
        /// `stop` was called.
        case stopped
    }

    private struct State: Sendable {
        var attempts = Attempts()
        var pipeline: Pipeline?
        var watch: BusWatch?
    }

    /// The server pushed to.
    public let target: PublishTarget
    private let relay: StreamRelay
    private let state = Condition(State())
    private let queue: DispatchQueue
    /// The longest wait between attempts, in seconds.
    public static let maxBackoff = 3.0

    /// Starts pushing `stream` to `target` (at once, in the background).
    public init(target: PublishTarget, stream: any LiveStream) throws(PublishError) {
        GStreamer.initialize()
        self.target = target
        relay = StreamRelay(stream: stream)
        queue = DispatchQueue(label: "swiftcam.publish.\(target.endpoint)")
        let needed = Self.elements(for: target, encodingName: stream.encodingName)
        if target.scheme == .srt, stream.encodingName != "H264" {
            throw .unsupported(
                codec: stream.encodingName, target: target.redacted,
                reason: "SRT carries MPEG-TS, which takes H.264 here; install gstreamer1.0-plugins-ugly (x264enc)")
        }
        if target.scheme.isRTMP, stream.encodingName != "H264" {
            throw .unsupported(
                codec: stream.encodingName, target: target.redacted,
                reason: "RTMP carries FLV, which takes H.264 only; install gstreamer1.0-plugins-ugly (x264enc)")
        }
        for element in needed where !Element.factoryExists(element) {
            let package =
                ["rtspclientsink": "gstreamer1.0-rtsp", "flvmux": "gstreamer1.0-plugins-good"][element] ?? "gstreamer1.0-plugins-bad"
            throw .missing(element: element, package: package)
        }
        queue.async { self.connect() }
    }

    /// Where the push stands now.
    public var phase: Phase { state.withLock { $0.attempts.phase } }
    /// The last failure, in GStreamer's words.
    public var lastError: String? { state.withLock { $0.attempts.lastError } }
    /// Times the server took the stream (1 after the first connection, 2 after a resume, …).
    public var connections: Int { state.withLock { $0.attempts.connections } }
    /// Failed attempts since the last connection.
    public var failures: Int { state.withLock { $0.attempts.failures } }
    /// Failed attempts over the push's life (a counter: a connection does not reset it).
    public var failuresInAll: Int { state.withLock { $0.attempts.failuresInAll } }

    /// Where it stands, as `/metrics` names it.
    public var metricsState: String { state.withLock { $0.attempts.metricsState } }

    /// Waits until the server has taken the stream `count` times in all, at most `timeout` seconds; returns
    /// whether it has.
    @discardableResult
    public func waitForConnections(_ count: Int, timeout: Double = 60) -> Bool {
        state.wait(until: MonotonicClock.now + timeout) { $0.attempts.connections >= count ? true : nil } ?? false
    }

    /// Waits until the push has failed and is waiting to retry, at most `timeout` seconds.
    @discardableResult
    public func waitForRetrying(timeout: Double = 60) -> Bool {
        state.wait(until: MonotonicClock.now + timeout) { state in
            if case .retrying = state.attempts.phase { return true }
            return nil
        } ?? false
    }

    /// Frames handed to the push pipeline so far.
    public var framesSent: Int { relay.delivered.load(ordering: .relaxed) }

    /// One phrase for `stats`: `push srt://… connected 300 frames` or `push rtsp://… retrying in 2 s (last error: …)`.
    public var report: String {
        let attempts = state.withLock { $0.attempts }
        return "push \(target.redacted) " + attempts.phrase(connected: "connected", frames: framesSent)
    }

    /// Stops pushing and ends the push pipeline; idempotent. Waits for an attempt under way to finish.
    public func stop() {
        queue.sync {
            state.withLock { $0.attempts.phase = .stopped }
            teardown()
            relay.close()
        }
    }

    private static func elements(for target: PublishTarget, encodingName: String) -> [String] {
        let parser = encodingName == "H264" ? ["h264parse"] : []
        switch target.scheme {
        case .rtsp: return ["appsrc"] + parser + ["rtspclientsink"]
        case .srt: return ["appsrc"] + parser + ["mpegtsmux", "srtsink"]
        case .rtmp, .rtmps: return ["appsrc"] + parser + ["flvmux", "rtmp2sink"]
        }
    }

    /// The push pipeline, from typed parts; the URL is a property value, never graph text.
    private func graph() -> GraphDescription {
        var graph = GraphDescription()
        // An explicit latency window: without one, mpegtsmux in front of srtsink fails the latency query
        // ("Pipeline construction is invalid, please add queues").
        var chain = [
            graph.add(
                "appsrc", name: "src",
                [
                    "is-live": true, "format": "time", "do-timestamp": true,
                    "max-buffers": 30, "leaky-type": "downstream",
                    "min-latency": 0, "max-latency": 2_000_000_000
                ])
        ]
        if let parser = relay.stream.parser { chain.append(graph.add(parser, ["config-interval": 1])) }
        switch target.scheme {
        case .rtsp:
            // TCP: a server that goes away breaks the connection, which the sink reports, where UDP would go on unheard.
            chain.append(graph.add("rtspclientsink", name: "sink", ["location": .string(target.url), "protocols": "tcp"]))
        case .srt:
            chain.append(graph.add("mpegtsmux", ["alignment": 7]))
            chain.append(graph.add("srtsink", name: "sink", ["uri": .string(target.url), "wait-for-connection": false]))
        case .rtmp, .rtmps:
            // FLV as a live stream (no seek-back to write durations); the sink connects in the background and posts an
            // error when the server refuses or goes, which retries like any other failure.
            chain.append(graph.add("flvmux", ["streamable": true]))
            chain.append(graph.add("rtmp2sink", name: "sink", ["location": .string(target.url), "async-connect": true]))
        }
        for (source, sink) in zip(chain, chain.dropFirst()) { graph.link(source, to: sink) }
        return graph
    }

    /// On `queue`: builds and starts one attempt.
    private func connect() {
        let attempt = state.withLock { $0.attempts.begin() }
        guard let attempt else { return }
        let pipeline: Pipeline
        do {
            pipeline = try graph().build()
        } catch {
            fail(attempt: attempt, reason: "\(error)")
            return
        }
        guard let source = pipeline.element(named: "src", as: AppSrc.self) else {
            fail(attempt: attempt, reason: "the push pipeline has no appsrc")
            return
        }
        let name = pipeline.name
        let watch = pipeline.bus.watch { [weak self] message in
            guard let self else { return }
            switch message {
            case let .error(_, text, debug, _):
                // The debug text's last line says why when the message does not (rtspclientsink: "… 401 Unauthorized");
                // one that is only where in GStreamer's sources it was raised goes to the debug log.
                var detail = debug.flatMap { $0.split(separator: "\n").last.map(String.init) }
                if let line = detail, line.hasPrefix("../") || line.contains(".c(") {
                    DebugLog.warning("push \(self.target.redacted): \(text) (\(line))")
                    detail = nil
                }
                let reason = detail.map { "\(text) (\($0))" } ?? text
                self.queue.async { self.fail(attempt: attempt, reason: reason) }
            case let .warning(source, text, _) where source == "sink":
                // srtsink says "Error on SRT socket … Trying to reconnect" and would go on silently; a retry of
                // our own keeps `stats` true to what is happening.
                self.queue.async { self.fail(attempt: attempt, reason: text) }
            case .eos:
                self.queue.async { self.fail(attempt: attempt, reason: "the server ended the stream") }
            case let .stateChanged(source, _, new, _) where source == name && new == .playing:
                // A live sink reaches PLAYING before its connection is proven (rtspclientsink and srtsink fail
                // on their first writes): the push counts as connected after a second without an error.
                self.queue.asyncAfter(deadline: .now() + 1) { self.connected(attempt: attempt) }
            default:
                break
            }
        }
        state.withLock { state in
            state.pipeline = pipeline
            state.watch = watch
        }
        do {
            try relay.attach(source, key: UInt(attempt))
        } catch {
            fail(attempt: attempt, reason: "no live stream: \(error)")
            return
        }
        if !pipeline.requestState(.playing) {
            // The error message on the bus says why; this covers a refusal without one.
            queue.async { self.fail(attempt: attempt, reason: "the push pipeline would not start") }
        }
    }

    private func connected(attempt: Int) {
        let fresh = state.withLock { $0.attempts.connected(attempt) }
        // The server's decoder starts at a key frame: ask for one now rather than wait for the next.
        if fresh { relay.requestKeyFrame() }
    }

    /// On `queue`: ends a failed attempt and schedules the next.
    private func fail(attempt: Int, reason: String) {
        let delay = state.withLock { $0.attempts.failed(attempt, reason: reason) }
        guard let delay else { return }
        teardown()
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
    }

    /// On `queue`: stops feeding and ends the current pipeline.
    private func teardown() {
        let (pipeline, watch, attempt) = state.withLock { state in
            defer {
                state.pipeline = nil
                state.watch = nil
            }
            return (state.pipeline, state.watch, state.attempts.attempt)
        }
        relay.detach(key: UInt(attempt))
        watch?.cancel()
        try? pipeline?.setState(.null, timeout: 5)
    }
}
