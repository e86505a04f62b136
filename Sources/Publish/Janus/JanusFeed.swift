import Base
import Capture
import Dispatch
import GStreamer
import Synchronization

/// Feeds a Janus streaming mountpoint from the shared live encoders: the host makes the mountpoint over Janus's HTTP API
/// (an RTP one, one video stream per codec, the ports Janus picks) and sends it RTP (`rtph264pay ! udpsink`) from small
/// pipelines of its own. Janus then serves any number of browsers with its own ICE, DTLS and SRTP; the camera encodes
/// and sends once per codec. The first codec (H.264) is fed always, so any Janus client can watch it; the others (VP8,
/// for browsers without H.264) while a viewer the host signals for (`viewers`) watches them.
///
/// Its session is kept alive, and the mountpoint checked, every `keepaliveInterval` seconds (a request of a few
/// hundred bytes); when Janus is gone or
/// restarted (its session unknown, the mountpoint missing) the feed stops and everything is made again, retried with
/// the pushes' backoff (0.5 s doubling to 3 s), so a Janus restart brings the mountpoint back within seconds.
public final class JanusFeed: Sendable {
    /// One codec's stream of the mountpoint.
    struct Track: Sendable {
        /// The RTP encoding name (`H264`, `VP8`), lowercased for Janus as the stream's `mid`.
        let codec: String
        let payloadType: Int
        let relay: StreamRelay
        var mid: String { codec.lowercased() }
    }

    private struct State: Sendable {
        var attempts = Attempts()
        var session: UInt64?
        /// Janus's port for each track's RTP, by mid, while connected.
        var ports: [String: Int] = [:]
        /// Each track's feeding pipeline, by mid.
        var pipelines: [String: Pipeline] = [:]
        /// Viewers holding each on-demand track, by mid.
        var holders: [String: Int] = [:]
    }

    /// The API it talks to.
    public let api: JanusAPI
    /// The mountpoint's id (the config's, else one made from the session's name).
    public let mountpoint: UInt64
    private let name: String
    let tracks: [Track]
    private let state = Condition(State())
    private let queue: DispatchQueue
    /// Seconds between keepalives and checks of the mountpoint (Janus's session timeout is 60 s by default; a restart
    /// of Janus is noticed within this).
    public static let keepaliveInterval = 3.0

    /// Starts feeding (at once, in the background) the mountpoint `id` (nil: one from `name`) at `api`: `stream` (H.264)
    /// always, each of `onDemand` (VP8) while a viewer needs it.
    public init(
        api: JanusAPI, mountpoint id: UInt64?, name: String, stream: any LiveStream, onDemand: [any LiveStream] = []
    ) throws(PublishError) {
        GStreamer.initialize()
        guard stream.encodingName == "H264" else {
            throw .unsupported(
                codec: stream.encodingName, target: api.url,
                reason: "the Janus feed is H.264 first; install gstreamer1.0-plugins-ugly (x264enc)")
        }
        let streams = [stream] + onDemand.filter { $0.encodingName == "VP8" }
        for element in ["appsrc", "udpsink"] + streams.map(\.payloader) where !Element.factoryExists(element) {
            throw .missing(element: element, package: element == "appsrc" ? "gstreamer1.0-plugins-base" : "gstreamer1.0-plugins-good")
        }
        self.api = api
        mountpoint = id ?? Self.mountpointID(for: name)
        self.name = name
        tracks = streams.enumerated().map { Track(codec: $1.encodingName, payloadType: 96 + $0, relay: StreamRelay(stream: $1)) }
        queue = DispatchQueue(label: "swiftcam.publish.janus.\(name)")
        queue.async { self.connect() }
    }

    /// The codecs the mountpoint carries (`H264`, `VP8`), the always-fed one first.
    public var codecs: [String] { tracks.map(\.codec) }

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
    /// Frames handed to the feed so far, every codec's.
    public var framesSent: Int { tracks.reduce(0) { $0 + $1.relay.delivered.load(ordering: .relaxed) } }

    /// One phrase for `stats`: `janus http://…/janus mountpoint 77 feeding (H264 RTP to port 20460; VP8 on demand) 300
    /// frames`, or `… retrying in 2 s 300 frames (last error: …)`.
    public var report: String {
        let (attempts, ports, fed) = state.withLock { ($0.attempts, $0.ports, Set($0.pipelines.keys)) }
        let each = tracks.map { track in
            guard fed.contains(track.mid), let port = ports[track.mid] else { return "\(track.codec) on demand" }
            return "\(track.codec) RTP to port \(port)"
        }
        let feeding = "feeding (\(each.joined(separator: "; ")))"
        return "janus \(api.url) mountpoint \(mountpoint) " + attempts.phrase(connected: feeding, frames: framesSent)
    }

    /// A viewer starts watching the track of `codec` (an on-demand one starts being fed) and wants a key frame.
    func hold(_ codec: String) {
        queue.async { [self] in
            guard let track = tracks.first(where: { $0.codec == codec }) else { return }
            let start = state.withLock { state -> Bool in
                state.holders[track.mid, default: 0] += 1
                return state.attempts.phase == .connected && state.pipelines[track.mid] == nil
            }
            do {
                if start { try startFeed(track) }
                track.relay.requestKeyFrame()
            } catch {
                DebugLog.warning("janus: the \(codec) feed would not start: \(error)")
            }
        }
    }

    /// Asks the encoder of `codec` for a key frame (a viewer's connection came up mid-stream).
    func requestKeyFrame(_ codec: String) {
        tracks.first { $0.codec == codec }?.relay.requestKeyFrame()
    }

    /// A viewer of `codec` left: the last one stops an on-demand track's feed.
    func release(_ codec: String) {
        queue.async { [self] in
            guard let index = tracks.firstIndex(where: { $0.codec == codec }) else { return }
            let track = tracks[index]
            let pipeline = state.withLock { state -> Pipeline? in
                state.holders[track.mid] = max(0, state.holders[track.mid, default: 0] - 1)
                guard index > 0, state.holders[track.mid] == 0 else { return nil }
                return state.pipelines.removeValue(forKey: track.mid)
            }
            if let pipeline { stopFeed(track, pipeline) }
        }
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
            for track in tracks { track.relay.close() }
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
            let ports = try makeMountpoint(session: session, handle: handle)
            let held = state.withLock { state -> Set<String> in
                state.ports = ports
                return Set(state.holders.filter { $0.value > 0 }.keys)
            }
            for (index, track) in tracks.enumerated() where index == 0 || held.contains(track.mid) { try startFeed(track) }
            if state.withLock({ $0.attempts.connected(attempt) }) {
                for track in tracks { track.relay.requestKeyFrame() }
                scheduleCheck(attempt: attempt, handle: handle)
            }
        } catch {
            fail(attempt: attempt, reason: "\(error)")
        }
    }

    /// Makes the mountpoint (replacing one of the same id an earlier run left); the port Janus listens on for each
    /// track's RTP, by mid.
    private func makeMountpoint(session: UInt64, handle: UInt64) throws(JanusError) -> [String: Int] {
        let media: [JSONValue] = tracks.map { track in
            var stream: [String: JSONValue] = [
                "type": "video", "mid": .string(track.mid), "port": 0, "pt": .number(track.payloadType),
                "codec": .string(track.mid)
            ]
            if track.codec == "H264" { stream["fmtp"] = "profile-level-id=42e01f;packetization-mode=1" }
            return .object(stream)
        }
        let request: JSONValue = [
            "request": "create", "type": "rtp", "id": .number(mountpoint), "name": .string(name),
            "description": .string("SwiftCam \(name)"), "permanent": false, "media": .array(media)
        ]
        let created: JSONValue
        do {
            created = try api.streaming(request, session: session, handle: handle)
        } catch .plugin(code: 456, _) {
            // It exists already: made by this camera before a restart of ours (Janus kept it), with ports of then.
            _ = try api.streaming(["request": "destroy", "id": .number(mountpoint)], session: session, handle: handle)
            created = try api.streaming(request, session: session, handle: handle)
        }
        var ports: [String: Int] = [:]
        for entry in created["stream"]?["ports"]?.array ?? [] {
            if let mid = entry["mid"]?.string, let port = entry["port"]?.int, port > 0 { ports[mid] = port }
        }
        for track in tracks where ports[track.mid] == nil {
            throw .unexpected("no port for the mountpoint's \(track.codec) in \(created.text.prefix(200))")
        }
        return ports
    }

    /// Starts sending `track`'s RTP to its port (connected, or connecting with the ports known).
    private func startFeed(_ track: Track) throws {
        guard let port = state.withLock({ $0.ports[track.mid] }) else { return }
        var graph = GraphDescription()
        let chain = [
            graph.add(
                "appsrc", name: "src",
                ["is-live": true, "format": "time", "do-timestamp": true, "max-buffers": 30, "leaky-type": "downstream"]),
            graph.add(
                track.relay.stream.payloader,
                track.codec == "H264"
                    ? ["pt": .int(track.payloadType), "config-interval": -1, "aggregate-mode": "zero-latency"]
                    : ["pt": .int(track.payloadType)]),
            graph.add("udpsink", ["host": .string(api.host), "port": .int(port), "sync": false, "async": false])
        ]
        for (source, sink) in zip(chain, chain.dropFirst()) { graph.link(source, to: sink) }
        let pipeline = try graph.build()
        guard let source = pipeline.element(named: "src", as: AppSrc.self) else { throw JanusError.unexpected("no appsrc") }
        state.withLock { $0.pipelines[track.mid] = pipeline }
        try track.relay.attach(source, key: 0)
        try pipeline.setState(.playing, timeout: 5)
    }

    private func stopFeed(_ track: Track, _ pipeline: Pipeline) {
        track.relay.detach(key: 0)
        try? pipeline.setState(.null, timeout: 5)
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
        let pipelines = state.withLock { state in
            defer {
                state.pipelines = [:]
                state.ports = [:]
            }
            return state.pipelines
        }
        for track in tracks {
            if let pipeline = pipelines[track.mid] { stopFeed(track, pipeline) }
        }
    }
}
