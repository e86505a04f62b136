import Base
import Capture
import Dispatch
import GStreamer
import Synchronization

/// Feeds a Janus streaming mountpoint from the shared live encoder: the host makes the mountpoint over Janus's HTTP API
/// (an RTP one, H.264, the port Janus picks) and sends it RTP (`rtph264pay ! udpsink`) from a small pipeline of its own.
/// Janus then serves any number of browsers with its own ICE, DTLS and SRTP; the camera encodes and sends once.
///
/// Its session is kept alive, and the mountpoint checked, every `keepaliveInterval` seconds (a request of a few
/// hundred bytes); when Janus is gone or
/// restarted (its session unknown, the mountpoint missing) the feed stops and everything is made again, retried with
/// the pushes' backoff (0.5 s doubling to 3 s), so a Janus restart brings the mountpoint back within seconds.
public final class JanusFeed: Sendable {
    private struct State: Sendable {
        var attempts = Attempts()
        var session: UInt64?
        var port: Int?
        var pipeline: Pipeline?
    }

    /// The API it talks to.
    public let api: JanusAPI
    /// The mountpoint's id (the config's, else one made from the session's name).
    public let mountpoint: UInt64
    private let name: String
    private let relay: StreamRelay
    private let state = Condition(State())
    private let queue: DispatchQueue
    /// Seconds between keepalives and checks of the mountpoint (Janus's session timeout is 60 s by default; a restart
    /// of Janus is noticed within this).
    public static let keepaliveInterval = 3.0

    /// Starts feeding (at once, in the background) the mountpoint `id` (nil: one from `name`) at `api`.
    public init(api: JanusAPI, mountpoint id: UInt64?, name: String, stream: any LiveStream) throws(PublishError) {
        GStreamer.initialize()
        guard stream.encodingName == "H264" else {
            throw .unsupported(
                codec: stream.encodingName, target: api.url,
                reason: "the Janus feed is H.264; install gstreamer1.0-plugins-ugly (x264enc)")
        }
        for element in ["appsrc", "rtph264pay", "udpsink"] where !Element.factoryExists(element) {
            throw .missing(element: element, package: element == "appsrc" ? "gstreamer1.0-plugins-base" : "gstreamer1.0-plugins-good")
        }
        self.api = api
        mountpoint = id ?? Self.mountpointID(for: name)
        self.name = name
        relay = StreamRelay(stream: stream)
        queue = DispatchQueue(label: "swiftcam.publish.janus.\(name)")
        queue.async { self.connect() }
    }

    /// A mountpoint id from a session's name (FNV-1a, 1…2³¹−1): the same camera gets the same id across restarts.
    public static func mountpointID(for name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        return hash % 0x7fff_fffe + 1
    }

    /// Where the feed stands: `connected` while the mountpoint exists and RTP goes to it.
    public var phase: Publisher.Phase { state.withLock { $0.attempts.phase } }
    /// Times the mountpoint was made and fed (1, then one more after each recovery).
    public var connections: Int { state.withLock { $0.attempts.connections } }
    /// Failed attempts over the feed's life.
    public var failuresInAll: Int { state.withLock { $0.attempts.failuresInAll } }
    /// Where it stands, as `/metrics` names it.
    public var metricsState: String { state.withLock { $0.attempts.metricsState } }
    /// Frames handed to the feed so far.
    public var framesSent: Int { relay.delivered.load(ordering: .relaxed) }

    /// One phrase for `stats`: `janus http://…/janus mountpoint 77 feeding (RTP to port 20460) 300 frames`, or
    /// `… retrying in 2 s 300 frames (last error: …)`.
    public var report: String {
        let (attempts, port) = state.withLock { ($0.attempts, $0.port) }
        let feeding = "feeding" + (port.map { " (RTP to port \($0))" } ?? "")
        return "janus \(api.url) mountpoint \(mountpoint) " + attempts.phrase(connected: feeding, frames: framesSent)
    }

    /// Stops feeding, removes the mountpoint and ends the session; idempotent.
    public func stop() {
        queue.sync {
            let session = state.withLock { state -> UInt64? in
                state.attempts.phase = .stopped
                defer { state.session = nil }
                return state.session
            }
            teardown()
            relay.close()
            if let session {
                if let handle = try? api.attachStreaming(session: session) {
                    _ = try? api.streaming(["request": "destroy", "id": .number(mountpoint)], session: session, handle: handle)
                }
                api.destroy(session: session)
            }
        }
    }

    // MARK: - On `queue`

    private func connect() {
        let attempt = state.withLock { $0.attempts.begin() }
        guard let attempt else { return }
        do {
            let session = try api.createSession()
            state.withLock { $0.session = session }
            let handle = try api.attachStreaming(session: session)
            let port = try makeMountpoint(session: session, handle: handle)
            try startFeed(port: port, attempt: attempt)
            let fresh = state.withLock { state -> Bool in
                state.port = port
                return state.attempts.connected(attempt)
            }
            if fresh {
                relay.requestKeyFrame()
                scheduleCheck(attempt: attempt, handle: handle)
            }
        } catch {
            fail(attempt: attempt, reason: "\(error)")
        }
    }

    /// Makes the mountpoint (replacing one of the same id an earlier run left); the port Janus listens on for its RTP.
    private func makeMountpoint(session: UInt64, handle: UInt64) throws(JanusError) -> Int {
        let request: JSONValue = [
            "request": "create", "type": "rtp", "id": .number(mountpoint), "name": .string(name),
            "description": .string("SwiftCam \(name)"), "permanent": false,
            "media": [
                [
                    "type": "video", "mid": "v", "port": 0, "pt": 96, "codec": "h264",
                    "fmtp": "profile-level-id=42e01f;packetization-mode=1"
                ]
            ]
        ]
        let created: JSONValue
        do {
            created = try api.streaming(request, session: session, handle: handle)
        } catch .plugin(code: 456, _) {
            // It exists already: made by this camera before a restart of ours (Janus kept it), with a port of then.
            _ = try api.streaming(["request": "destroy", "id": .number(mountpoint)], session: session, handle: handle)
            created = try api.streaming(request, session: session, handle: handle)
        }
        guard let port = created["stream"]?["ports"]?.array?.first?["port"]?.int, port > 0 else {
            throw .unexpected("no port for the mountpoint's video in \(created.text.prefix(200))")
        }
        return port
    }

    private func startFeed(port: Int, attempt: Int) throws {
        var graph = GraphDescription()
        let chain = [
            graph.add(
                "appsrc", name: "src",
                ["is-live": true, "format": "time", "do-timestamp": true, "max-buffers": 30, "leaky-type": "downstream"]),
            graph.add("rtph264pay", ["pt": 96, "config-interval": -1, "aggregate-mode": "zero-latency"]),
            graph.add("udpsink", ["host": .string(api.host), "port": .int(port), "sync": false, "async": false])
        ]
        for (source, sink) in zip(chain, chain.dropFirst()) { graph.link(source, to: sink) }
        let pipeline = try graph.build()
        guard let source = pipeline.element(named: "src", as: AppSrc.self) else { throw JanusError.unexpected("no appsrc") }
        state.withLock { $0.pipeline = pipeline }
        try relay.attach(source, key: UInt(attempt))
        try pipeline.setState(.playing, timeout: 5)
    }

    /// Every `keepaliveInterval`: the session kept, the mountpoint still there; else the feed starts over.
    private func scheduleCheck(attempt: Int, handle: UInt64) {
        queue.asyncAfter(deadline: .now() + Self.keepaliveInterval) { [weak self] in
            guard let self else { return }
            let session = self.state.withLock { $0.attempts.attempt == attempt && $0.attempts.phase == .connected ? $0.session : nil }
            guard let session else { return }
            do {
                try self.api.keepalive(session: session)
                _ = try self.api.streaming(["request": "info", "id": .number(self.mountpoint)], session: session, handle: handle)
                self.scheduleCheck(attempt: attempt, handle: handle)
            } catch {
                self.fail(attempt: attempt, reason: "\(error)")
            }
        }
    }

    private func fail(attempt: Int, reason: String) {
        let delay = state.withLock { state -> Double? in
            guard let delay = state.attempts.failed(attempt, reason: reason) else { return nil }
            state.session = nil
            return delay
        }
        guard let delay else { return }
        teardown()
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.connect() }
    }

    private func teardown() {
        let (pipeline, attempt) = state.withLock { state in
            defer { state.pipeline = nil }
            return (state.pipeline, state.attempts.attempt)
        }
        relay.detach(key: UInt(attempt))
        try? pipeline?.setState(.null, timeout: 5)
    }
}
