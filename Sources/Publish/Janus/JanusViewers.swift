import Base
import Dispatch
import GStreamer

/// The camera page's viewers, played through Janus: the host signals for each page (the page's WebSocket stays
/// SwiftCam's, with its token and origin rules) and Janus sends the media. Each viewer is a handle on Janus's streaming
/// plugin watching the feed's mountpoint, subscribed to the one stream of the codec its browser takes; all share one
/// Janus session, made with the first viewer and kept (its long poll, which reads the events, keeps it alive) until the
/// host stops or Janus goes away.
public final class JanusViewers: Sendable {
    /// What a viewer hears from Janus.
    public enum Event: Sendable, Equatable {
        /// Janus's SDP offer, for the page to answer.
        case offer(sdp: String)
        /// The viewer ended: Janus refused it, hung up, or went away.
        case ended(reason: String)
    }

    private struct Viewer: Sendable {
        let handle: UInt64
        let codec: String
        let onEvent: @Sendable (Event) -> Void
    }

    private struct State: Sendable {
        var session: UInt64?
        var viewers: [Int: Viewer] = [:]
        var stopped = false
    }

    /// The feed whose mountpoint the viewers watch.
    public let feed: JanusFeed
    private let state = Locked(State())
    /// Requests to Janus, one after another.
    private let queue: DispatchQueue
    /// The long poll of the current session's events.
    private let events: DispatchQueue

    public init(feed: JanusFeed) {
        self.feed = feed
        queue = DispatchQueue(label: "swiftcam.publish.janus.viewers")
        events = DispatchQueue(label: "swiftcam.publish.janus.events")
    }

    /// The codec a browser taking `codecs` (RTP encoding names) gets from the mountpoint: the first of the mountpoint's
    /// that it takes, so H.264, fed always, before VP8, fed on demand; nil when it takes none of them.
    public func codec(for codecs: [String]) -> String? {
        let taken = Set(codecs.map { $0.uppercased() })
        return feed.codecs.first { taken.contains($0) }
    }

    /// A page's viewer `id`, of `codec` (from `codec(for:)`): Janus's offer comes through `onEvent`, then its end if it
    /// ends other than by `end(id:)`. A second `watch` of one page starts over.
    public func watch(id: Int, codec: String, onEvent: @escaping @Sendable (Event) -> Void) {
        queue.async { [self] in
            endNow(id)
            do {
                let session = try currentSession()
                let handle = try feed.api.attachStreaming(session: session)
                let added = state.withLock { state -> Bool in
                    guard !state.stopped, state.session == session else { return false }
                    state.viewers[id] = Viewer(handle: handle, codec: codec, onEvent: onEvent)
                    return true
                }
                guard added else { throw JanusError.unexpected("no session (the host is stopping)") }  // stopped meanwhile
                feed.hold(codec)
                let request: JSONValue = ["request": "watch", "id": .number(feed.mountpoint), "media": [.string(codec.lowercased())]]
                try feed.api.streamingLater(request, session: session, handle: handle)
            } catch {
                if state.withLock({ $0.viewers[id] != nil }) {
                    ended(id, reason: "\(error)")
                } else {
                    onEvent(.ended(reason: "\(error)"))  // it never got as far as a handle
                }
            }
        }
    }

    /// The page's answer to Janus's offer.
    public func answer(id: Int, sdp: String) {
        request(id) { api, session, handle throws(JanusError) in
            try api.streamingLater(["request": "start"], jsep: ["type": "answer", "sdp": .string(sdp)], session: session, handle: handle)
        }
    }

    /// One of the page's ICE candidates (nil: its last).
    public func candidate(id: Int, mline: UInt32, candidate: String?) {
        request(id) { api, session, handle throws(JanusError) in
            try api.trickle(candidate, mline: mline, session: session, handle: handle)
        }
    }

    /// Ends page `id`'s viewer (the page left or stopped watching); nothing is told to it.
    public func end(id: Int) {
        queue.async { [self] in endNow(id) }
    }

    /// Ends every viewer and the session; waits for the requests under way.
    public func stop() {
        queue.sync {
            let (session, viewers) = state.withLock { state in
                state.stopped = true
                defer {
                    state.session = nil
                    state.viewers = [:]
                }
                return (state.session, state.viewers)
            }
            for viewer in viewers.values { feed.release(viewer.codec) }
            if let session { feed.api.destroy(session: session) }
        }
    }

    // MARK: - On `queue`

    private func request(_ id: Int, _ send: @escaping @Sendable (JanusAPI, UInt64, UInt64) throws(JanusError) -> Void) {
        queue.async { [self] in
            guard
                let (session, handle) = state.withLock({ state in state.session.flatMap { s in state.viewers[id].map { (s, $0.handle) } } })
            else { return }
            do {
                try send(feed.api, session, handle)
            } catch {
                ended(id, reason: "\(error)")
            }
        }
    }

    /// The session, made (and its long poll started) when there is none.
    private func currentSession() throws(JanusError) -> UInt64 {
        let (current, stopped) = state.withLock { ($0.session, $0.stopped) }
        if let current { return current }
        guard !stopped else { throw .unexpected("no session (the host is stopping)") }
        let session = try feed.api.createSession()
        state.withLock { $0.session = session }
        events.async { [self] in poll(session) }
        return session
    }

    /// Ends viewer `id` at Janus (its handle detached) and releases its codec.
    private func endNow(_ id: Int) {
        let (viewer, session) = state.withLock { ($0.viewers.removeValue(forKey: id), $0.session) }
        guard let viewer else { return }
        feed.release(viewer.codec)
        if let session { feed.api.detach(session: session, handle: viewer.handle) }
    }

    /// Viewer `id` ended for `reason`: told, then ended at Janus.
    private func ended(_ id: Int, reason: String) {
        let viewer = state.withLock { $0.viewers[id] }
        endNow(id)
        viewer?.onEvent(.ended(reason: reason))
    }

    // MARK: - On `events`

    /// Reads `session`'s events until it is no longer the current one; a failed read (Janus gone or restarted) ends
    /// every viewer of it.
    private func poll(_ session: UInt64) {
        while state.withLock({ $0.session == session }) {
            let events: [JSONValue]
            do {
                events = try feed.api.events(session: session)
            } catch {
                // The session is gone with Janus (or unreachable): its viewers end, the next `watch` makes a new one.
                queue.async { [self] in
                    let ids = state.withLock { state -> [Int] in
                        guard state.session == session else { return [] }
                        state.session = nil
                        return Array(state.viewers.keys)
                    }
                    for id in ids { ended(id, reason: "\(error)") }
                }
                return
            }
            for event in events { deliver(event, session: session) }
        }
    }

    private func deliver(_ event: JSONValue, session: UInt64) {
        guard let sender = event["sender"]?.int.map(UInt64.init) else { return }
        let found = state.withLock { state in
            state.session == session ? state.viewers.first { $0.value.handle == sender } : nil
        }
        guard let (id, viewer) = found else { return }
        if let sdp = event["jsep"]?["sdp"]?.string, event["jsep"]?["type"]?.string == "offer" {
            viewer.onEvent(.offer(sdp: sdp))
        } else if let error = event["plugindata"]?["data"]?["error"]?.string {
            queue.async { [self] in ended(id, reason: "Janus's streaming plugin: \(error)") }
        } else if event["janus"]?.string == "hangup" {
            let reason = event["reason"]?.string ?? "no reason given"
            queue.async { [self] in ended(id, reason: "Janus hung up: \(reason)") }
        } else if event["janus"]?.string == "webrtcup" {
            feed.requestKeyFrame(viewer.codec)  // for the connection that just came up
        }
    }
}
