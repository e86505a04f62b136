import Base
import CSoup
import Capture
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// The live picture for browsers, on the session's shared live encoders (one encode for every viewer, RTSP
/// client and publisher): each WebRTC viewer subscribes, with a small pipeline of its own, to the encoder of the codec
/// its answer chose (`.video`'s H.264, `.vp8` or `.vp9`), each MJPEG viewer to `.mjpeg`. Viewers come and go on `queue`, never
/// on the server's loop or a streaming thread.
/// Unchecked Sendable: the weak `server` is set once, in `WebServer.init` before any viewer work is queued, and only
/// read after; every other field is immutable or behind `Locked`.
final class LiveVideo: @unchecked Sendable {
    weak var server: WebServer?
    private let session: CaptureSession
    private let restrictICEToLoopback: Bool
    /// The host's ECDSA certificate for every viewer's DTLS, made at start; nil: GStreamer's RSA one.
    private let certificate: SelfSignedCertificate?
    private let queue = DispatchQueue(label: "swiftcam.web.video")
    /// Where WebRTC viewers are stopped, one after another, off `queue`.
    private let teardown = DispatchQueue(label: "swiftcam.web.video.teardown")
    private let viewers = Locked(Viewers())
    private let nextViewer = Locked(1)
    /// The H.264 profile and level each encoder gives (`42c01f`), by element, read by the first viewer of that encoder:
    /// later offers name it without waiting for a frame (or starting the encoder for a viewer that may choose VP8).
    private let profiles = Locked<[String: String]>([:])
    /// The WebRTC server pages are handed to (`publish.janus`), set by the host once publishing runs.
    let relay = Locked<(any WebRTCRelay)?>(nil)

    /// A page's viewer handed to `relay`.
    private struct Relayed {
        let codec: String
        /// Which `watch` of the page it answers (a second one starts over; the first's late events are dropped).
        let token: Int
        var offered = false
    }

    private struct Viewers {
        var webrtc: [Int: WebRTCViewer] = [:]
        var relayed: [Int: Relayed] = [:]
        var mjpeg: [Int: MJPEGViewer] = [:]
        /// MJPEG readers admitted whose viewer is not in `mjpeg` yet: counted against the cap from their request on, so
        /// a burst of them cannot pass it before their viewers start.
        var mjpegStarting = 0
        /// WebRTC viewers out of `webrtc`, stopping on `teardown`.
        var ending: [ObjectIdentifier: WebRTCViewer] = [:]
    }

    init(session: CaptureSession, restrictICEToLoopback: Bool) {
        self.session = session
        self.restrictICEToLoopback = restrictICEToLoopback
        do {
            certificate = try SelfSignedCertificate.generate()
        } catch {
            DebugLog.warning("web: \(error): \(error.libraryText)")
            session.warn(
                "web: WebRTC viewers get GStreamer's RSA certificate (clients offering only ECDSA suites cannot connect): \(error)")
            certificate = nil
        }
    }

    /// Viewers now, by kind.
    var viewerCounts: [String: Int] {
        let relaying = relay.withLock { $0 != nil }
        return viewers.withLock { viewers in
            var counts = ["webrtc": viewers.webrtc.count + viewers.ending.count, "mjpeg": viewers.mjpeg.count]
            if relaying { counts["janus"] = viewers.relayed.count }
            return counts
        }
    }

    /// WebRTC viewers now, by the codec their answer chose: every codec this host offers (0 when none has it), and
    /// `negotiating` for viewers whose answer has not come.
    var webrtcCodecs: [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: session.liveVideoCodecs.map { ($0.codec.rawValue, 0) })
        for viewer in viewers.withLock({ Array($0.webrtc.values) }) { counts[viewer.codec?.rawValue ?? "negotiating", default: 0] += 1 }
        return counts
    }

    /// Encoded frames each viewer was handed, by kind and id.
    var deliveries: [String: [Int: Int]] {
        viewers.withLock { ["webrtc": $0.webrtc.mapValues { $0.frames.value }, "mjpeg": $0.mjpeg.mapValues(\.framesSent)] }
    }

    // MARK: - WebRTC

    /// A page's `watch`, its browser taking `codecs`: handed to the relay when there is one with a codec the browser
    /// takes, else a viewer of this host's own (`addWebRTCViewer`).
    func watch(id: Int, address: String, codecs: [String], send: @escaping @Sendable (String) -> Void) {
        queue.async { [self] in
            guard let relay = relay.withLock({ $0 }), let codec = relay.codec(for: codecs) else {
                addWebRTCViewer(id: id, address: address, send: send)
                return
            }
            endViewers(of: id)  // a second `watch` from one page starts over
            let token = nextViewer.withLock { next in
                defer { next += 1 }
                return next
            }
            viewers.withLock { $0.relayed[id] = Relayed(codec: codec, token: token) }
            relay.watch(id: id, codec: codec) { [weak self] event in
                self?.relayed(event, id: id, token: token, address: address, send: send)
            }
            server?.broadcastState()
        }
    }

    /// What the relay says of page `id`'s viewer: its offer goes to the page; an end before the offer hands the page to
    /// this host's own viewer (the page still gets a picture), an end after it is told to the page like any viewer's.
    private func relayed(_ event: RelayEvent, id: Int, token: Int, address: String, send: @escaping @Sendable (String) -> Void) {
        queue.async { [self] in
            guard let relay = relay.withLock({ $0 }),
                let current = viewers.withLock({ $0.relayed[id] }), current.token == token
            else { return }
            switch event {
            case let .offer(sdp):
                viewers.withLock { $0.relayed[id]?.offered = true }
                send(WebServer.jsonText(["type": "offer", "sdp": sdp, "via": relay.label]))
            case let .ended(reason):
                viewers.withLock { _ = $0.relayed.removeValue(forKey: id) }
                server?.broadcastState()
                if current.offered {
                    viewerFailed(id: id, address: address, viewer: nil, reason: "\(relay.label): \(reason)", send: send)
                } else {
                    session.warn("web: \(relay.label) did not take the viewer of page \(id) at \(address) (\(reason)); this host serves it")
                    addWebRTCViewer(id: id, address: address, send: send)
                }
            }
        }
    }

    /// Ends page `id`'s viewers, its own and its relayed one (on `queue`).
    private func endViewers(of id: Int) {
        let (own, relayed) = viewers.withLock { ($0.webrtc.removeValue(forKey: id), $0.relayed.removeValue(forKey: id)) }
        if let own { retire(own) }
        if relayed != nil { relay.withLock { $0 }?.end(id: id) }
    }

    /// A viewer for page `id`, whose socket's peer is `address` (named when the viewer fails). It offers every codec the
    /// host encodes; the answer's choice starts its chain (`answered`). On `queue`.
    private func addWebRTCViewer(id: Int, address: String, send: @escaping @Sendable (String) -> Void) {
        endViewers(of: id)  // a second `watch` from one page starts over
        let codecs = session.liveVideoCodecs
        let h264 = codecs.first { $0.codec == .h264 }
        let encoder = h264.flatMap { session.liveStats($0.format).encoder }
        do {
            let viewer = try WebRTCViewer(
                id: id, address: address, codecs: codecs, profileLevelID: encoder.flatMap { name in profiles.withLock { $0[name] } },
                certificate: certificate, restrictToLoopback: restrictICEToLoopback, send: send,
                onAnswered: { [weak self] viewer, chosen in self?.answered(viewer, chosen: chosen, send: send) }
            ) { [weak self] viewer, reason in
                self?.viewerFailed(id: id, address: address, viewer: viewer, reason: reason, send: send)
            }
            if let h264, viewer.needsProfile {
                do {
                    try viewer.learnProfile(session, format: h264.format)
                } catch {
                    retire(viewer)
                    throw error
                }
            }
            viewers.withLock { $0.webrtc[id] = viewer }
            server?.broadcastState()
        } catch {
            send(WebServer.jsonText(["type": "error", "error": "WebRTC is not available: \(error)"]))
        }
    }

    /// webrtcbin took the answer of `viewer`, which chose `chosen`: the chain for that codec is built and fed. The H.264
    /// profile its offer named is kept for the next viewers of the same encoder.
    private func answered(_ viewer: WebRTCViewer, chosen: WebRTCViewer.Offered, send: @escaping @Sendable (String) -> Void) {
        queue.async { [self] in
            guard viewers.withLock({ $0.webrtc[viewer.id] === viewer }) else { return }
            if let profile = viewer.profileLevelID, let h264 = viewer.offered.first(where: { $0.codec == .h264 }),
                let encoder = session.liveStats(h264.format).encoder
            {
                profiles.withLock { $0[encoder] = profile }
            }
            do {
                try viewer.startSending(chosen, session: session)
                server?.broadcastState()
            } catch {
                viewerFailed(id: viewer.id, address: viewer.address, viewer: ObjectIdentifier(viewer), reason: "\(error)", send: send)
            }
        }
    }

    /// The page's answer: checked here, so a malformed one is answered with the reason and webrtcbin never sees it.
    func setAnswer(id: Int, sdp: String, send: @escaping @Sendable (String) -> Void) {
        queue.async { [self] in
            if viewers.withLock({ $0.relayed[id] != nil }) {
                relay.withLock { $0 }?.answer(id: id, sdp: sdp)
                return
            }
            guard let viewer = viewers.withLock({ $0.webrtc[id] }) else {
                send(WebServer.jsonText(["type": "error", "error": "an answer without a viewer: send watch first"]))
                return
            }
            let answer: SDPAnswer
            do {
                answer = try SDPAnswer(sdp, payloads: viewer.offered.map(\.payload))
            } catch {
                viewerFailed(id: id, address: viewer.address, viewer: ObjectIdentifier(viewer), reason: "\(error)", send: send)
                return
            }
            viewer.setAnswer(answer)
        }
    }

    func addCandidate(id: Int, mline: UInt32, candidate: String) {
        queue.async { [self] in
            if viewers.withLock({ $0.relayed[id] != nil }) {
                relay.withLock { $0 }?.candidate(id: id, mline: mline, candidate: candidate)
                return
            }
            viewers.withLock { $0.webrtc[id] }?.addCandidate(mline: mline, candidate: candidate)
        }
    }

    /// Ends the page's viewer; `only` ends it only if it is still that one (a failure told late must not end the viewer
    /// a second `watch` started since); nil: the page's viewer of either kind.
    func removeWebRTCViewer(id: Int, only: ObjectIdentifier? = nil) {
        queue.async { [self] in
            if only == nil, viewers.withLock({ $0.relayed.removeValue(forKey: id) }) != nil {
                relay.withLock { $0 }?.end(id: id)
                server?.broadcastState()
            }
            let viewer = viewers.withLock { viewers -> WebRTCViewer? in
                guard let current = viewers.webrtc[id], only.map({ $0 == ObjectIdentifier(current) }) ?? true else { return nil }
                return viewers.webrtc.removeValue(forKey: id)
            }
            guard let viewer else { return }
            retire(viewer)
        }
    }

    /// A viewer that cannot go on (a refused answer, a certificate that does not match, a failed handshake): the page
    /// is told why, the host's log says which viewer (and from where) and why, and the viewer ends.
    private func viewerFailed(
        id: Int, address: String, viewer: ObjectIdentifier?, reason: String, send: @escaping @Sendable (String) -> Void
    ) {
        send(WebServer.jsonText(["type": "error", "error": "WebRTC viewer ended: \(reason)"]))
        session.warn("web: WebRTC viewer \(id) at \(address) ended: \(reason)")
        if let viewer { removeWebRTCViewer(id: id, only: viewer) }
    }

    /// Ends a viewer already out of `webrtc` on `teardown`, off `queue`: stopping its pipeline takes about a tenth of a
    /// second, and sixty pages closing at once must not keep a new one waiting that long for its offer. It is counted
    /// among the viewers until it has stopped, so a count of none means none of them runs.
    private func retire(_ viewer: WebRTCViewer) {
        let token = ObjectIdentifier(viewer)
        viewers.withLock { $0.ending[token] = viewer }
        teardown.async { [self] in
            viewer.stop()
            let none = viewers.withLock { viewers in
                viewers.ending.removeValue(forKey: token)
                return viewers.webrtc.isEmpty && viewers.ending.isEmpty
            }
            // The last one gone: give the heap its pipelines used back to the system (glibc keeps freed memory otherwise,
            // in every thread's arena, and the host's resident size would stay at its most-viewers high).
            if none { GStreamer.returnFreeMemory() }
            server?.broadcastState()
        }
    }

    // MARK: - MJPEG

    /// `GET /stream.mjpg` (loop thread): a reader, unless `limit` are in already (false: `message` is untouched, for the
    /// caller to refuse). Its connection is taken over from libsoup and handed to a viewer, a thread of its own.
    func addMJPEGViewer(_ message: OpaquePointer, limit: Int) -> Bool {
        let admitted = viewers.withLock { viewers in
            guard viewers.mjpeg.count + viewers.mjpegStarting < limit else { return false }
            viewers.mjpegStarting += 1
            return true
        }
        guard admitted else { return false }
        guard let stream = soup_server_message_steal_connection(message).map({ ObjectReference(adopting: $0) }) else {
            startedMJPEG(nil, id: 0)
            return true
        }
        defer { withExtendedLifetime(stream) {} }
        let duplicate = Self.socketDescriptor(of: stream)
        // The viewer owns the duplicate alone: closing the stream closes libsoup's descriptor now, so when the
        // viewer closes its own the connection really ends (the page or reader sees the end of the stream).
        g_io_stream_close(stream.pointer(to: GIOStream.self), nil, nil)
        let fd = duplicate
        guard fd >= 0 else {
            startedMJPEG(nil, id: 0)
            return true
        }
        let id = nextViewer.withLock { id in
            defer { id += 1 }
            return id
        }
        queue.async { [self] in
            do {
                let viewer = MJPEGViewer(id: id, fd: fd) { [weak self] id in self?.removeMJPEGViewer(id: id) }
                let subscription = try session.subscribeLive(.mjpeg) { [weak viewer] sample in
                    guard let buffer = sample.buffer, let jpeg = try? buffer.withMappedBytes({ Data($0) }) else { return }
                    viewer?.offer(jpeg)
                }
                viewer.subscription.withLock { $0 = subscription }
                startedMJPEG(viewer, id: id)
                server?.broadcastState()
            } catch {
                startedMJPEG(nil, id: id)
                let text =
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nno live picture: \(error)\n"
                _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(fd)
            }
        }
        return true
    }

    /// An admitted reader's viewer started (counted among the viewers) or did not (its slot free again).
    private func startedMJPEG(_ viewer: MJPEGViewer?, id: Int) {
        viewers.withLock { viewers in
            viewers.mjpegStarting -= 1
            if let viewer { viewers.mjpeg[id] = viewer }
        }
    }

    /// A duplicate of the socket under a stolen stream (libsoup wraps the GSocketConnection in a SoupIOStream
    /// whose "base-iostream" is it), or -1.
    private static func socketDescriptor(of stream: ObjectReference) -> Int32 {
        var current = stream
        for _ in 0..<4 {
            if current.isInstance(of: g_socket_connection_get_type()) {
                return withExtendedLifetime(current) {
                    guard let socket = g_socket_connection_get_socket(current.pointer(to: GSocketConnection.self)) else { return -1 }
                    return dup(g_socket_get_fd(socket))
                }
            }
            // The stolen stream still holds its base: this reference is one more.
            guard let base = current.objectProperty("base-iostream") else { return -1 }
            current = base
        }
        return -1
    }

    private func removeMJPEGViewer(id: Int) {
        queue.async { [self] in
            guard let viewer = viewers.withLock({ $0.mjpeg.removeValue(forKey: id) }) else { return }
            // Its thread cancels the subscription as it ends; one that ended before it was subscribed did not.
            viewer.subscription.withLock { subscription in
                defer { subscription = nil }
                return subscription
            }?.cancel()
            server?.broadcastState()
        }
    }

    /// Ends every viewer (server stop); waits for the work queued so far.
    func stopAll() {
        queue.sync { [self] in
            let (webrtc, mjpeg, relayed) = viewers.withLock { viewers in
                defer { viewers = Viewers() }
                return (Array(viewers.webrtc.values), Array(viewers.mjpeg.values), Array(viewers.relayed.keys))
            }
            for id in relayed { relay.withLock { $0 }?.end(id: id) }
            for viewer in webrtc { viewer.stop() }
            for viewer in mjpeg { viewer.close() }
        }
        teardown.sync {}
    }
}
