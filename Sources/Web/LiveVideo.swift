import CGStreamer
import CSoup
import Capture
import Dispatch
import Foundation
import GStreamer
import Glibc

/// The live picture for browsers: one feed off the session's tee while anyone watches, into the WebRTC
/// encoder and/or the MJPEG encoder, each started with its first viewer and stopped after its last.
/// Viewers come and go on `queue`, never on the server's loop or the camera's streaming thread.
final class LiveVideo: @unchecked Sendable {
    weak var server: WebServer?
    private let session: CaptureSession
    private let restrictICEToLoopback: Bool
    private let queue = DispatchQueue(label: "swiftcam.web.video")
    private let parts = Locked(Parts())
    private let nextViewer = Locked(1)

    private struct Parts {
        var feed: LiveFeed?
        var webrtc: WebRTCEncoder?
        var mjpeg: MJPEGEncoder?
        /// The size of the frames the feed delivers, learnt from the first.
        var size: (width: Int, height: Int)?
    }

    init(session: CaptureSession, restrictICEToLoopback: Bool) {
        self.session = session
        self.restrictICEToLoopback = restrictICEToLoopback
    }

    /// Viewers now, by kind.
    var viewerCounts: [String: Int] {
        let (webrtc, mjpeg) = parts.withLock { ($0.webrtc, $0.mjpeg) }
        return ["webrtc": webrtc?.viewerCount ?? 0, "mjpeg": mjpeg?.viewerCount ?? 0]
    }

    /// Per-viewer delivery counts: RTP packets for WebRTC viewers, JPEGs for MJPEG ones.
    var deliveries: [String: [Int: Int]] {
        let (webrtc, mjpeg) = parts.withLock { ($0.webrtc, $0.mjpeg) }
        return ["webrtc": webrtc?.packetsSent ?? [:], "mjpeg": mjpeg?.framesSent ?? [:]]
    }

    /// Opens the feed if it is not open; returns the frame size, waiting for the first frame.
    private func ensureFeed() throws -> (width: Int, height: Int) {
        if let size = parts.withLock({ $0.feed != nil ? $0.size : nil }) { return size }
        let first = Condition<(Int, Int)?>(nil)
        let parts = parts
        let feed = try session.openFeed { sample in
            let (webrtc, mjpeg, known) = parts.withLock { ($0.webrtc, $0.mjpeg, $0.size != nil) }
            if !known, let caps = sample.caps, let info = try? VideoInfo(caps: caps) {
                first.withLock { $0 = (info.width, info.height) }
            }
            webrtc?.push(sample)
            mjpeg?.push(sample)
        }
        guard let size = first.wait(until: MonotonicClock.now + 10, for: { $0 }) else {
            feed.close()
            throw WebVideoError.noFrames
        }
        parts.withLock {
            $0.feed = feed
            $0.size = (size.0, size.1)
        }
        return (size.0, size.1)
    }

    /// Closes the feed when no encoder is left.
    private func closeFeedIfIdle() {
        let feed = parts.withLock { parts -> LiveFeed? in
            guard parts.webrtc == nil, parts.mjpeg == nil else { return nil }
            defer {
                parts.feed = nil
                parts.size = nil
            }
            return parts.feed
        }
        feed?.close()
    }

    /// After the session rebuilt its graph (recovery), the old feed hangs on a pipeline that is gone: viewers
    /// that are still here get a new feed off the new tee.
    func reattach() {
        queue.async { [self] in
            let old = parts.withLock { parts -> LiveFeed? in
                guard parts.webrtc != nil || parts.mjpeg != nil, let feed = parts.feed, !session.isCurrent(feed) else { return nil }
                parts.feed = nil
                parts.size = nil
                return feed
            }
            guard let old else { return }
            old.close()
            _ = try? ensureFeed()
        }
    }

    // MARK: - WebRTC

    func addWebRTCViewer(id: Int, send: @escaping @Sendable (String) -> Void) {
        queue.async { [self] in
            do {
                _ = try ensureFeed()
                let encoder = try parts.withLock({ $0.webrtc }) ?? {
                    let encoder = try WebRTCEncoder(restrictToLoopback: restrictICEToLoopback)
                    parts.withLock { $0.webrtc = encoder }
                    return encoder
                }()
                _ = encoder.removeViewer(id: id)  // a second `watch` from one page starts over
                try encoder.addViewer(id: id, send: send)
                server?.broadcastState()
            } catch {
                send(WebServer.jsonText(["type": "error", "error": "WebRTC is not available: \(error)"]) ?? "{}")
                stopWebRTCIfIdle()
            }
        }
    }

    func setAnswer(id: Int, sdp: String) {
        queue.async { [self] in
            guard let viewer = parts.withLock({ $0.webrtc })?.viewer(id) else { return }
            viewer.setAnswer(sdp)
        }
    }

    func addCandidate(id: Int, mline: Int, candidate: String) {
        queue.async { [self] in
            parts.withLock({ $0.webrtc })?.viewer(id)?.addCandidate(mline: mline, candidate: candidate)
        }
    }

    func removeWebRTCViewer(id: Int) {
        queue.async { [self] in
            guard let encoder = parts.withLock({ $0.webrtc }), encoder.removeViewer(id: id) != nil else { return }
            stopWebRTCIfIdle()
            server?.broadcastState()
        }
    }

    private func stopWebRTCIfIdle() {
        let idle = parts.withLock { parts -> WebRTCEncoder? in
            guard let encoder = parts.webrtc, encoder.viewerCount == 0 else { return nil }
            parts.webrtc = nil
            return encoder
        }
        idle?.stop()
        closeFeedIfIdle()
    }

    // MARK: - MJPEG

    /// `GET /stream.mjpg` (loop thread): takes the connection over from libsoup and hands it to a viewer.
    func addMJPEGViewer(_ message: OpaquePointer) {
        guard let stream = soup_server_message_steal_connection(message) else { return }
        let duplicate = Self.socketDescriptor(of: UnsafeMutableRawPointer(stream))
        // The viewer owns the duplicate alone: closing the stream closes libsoup's descriptor now, so when the
        // viewer closes its own the connection really ends (the page or reader sees the end of the stream).
        g_io_stream_close(stream, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(stream))
        let fd = duplicate
        guard fd >= 0 else { return }
        let id = nextViewer.withLock { id in
            defer { id += 1 }
            return id
        }
        queue.async { [self] in
            do {
                let size = try ensureFeed()
                let encoder = try parts.withLock({ $0.mjpeg }) ?? {
                    let encoder = try MJPEGEncoder(width: size.width, height: size.height)
                    parts.withLock { $0.mjpeg = encoder }
                    return encoder
                }()
                encoder.add(MJPEGViewer(id: id, fd: fd) { [weak self] id in self?.removeMJPEGViewer(id: id) })
                server?.broadcastState()
            } catch {
                let text = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nno live picture: \(error)\n"
                _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(fd)
                stopMJPEGIfIdle()
            }
        }
    }

    /// A duplicate of the socket under a stolen stream (libsoup wraps the GSocketConnection in a SoupIOStream
    /// whose "base-iostream" is it), or -1.
    private static func socketDescriptor(of stream: UnsafeMutableRawPointer) -> Int32 {
        var current = stream
        for _ in 0..<4 {
            let instance = current.assumingMemoryBound(to: GTypeInstance.self)
            if g_type_check_instance_is_a(instance, g_socket_connection_get_type()) != 0 {
                guard let socket = g_socket_connection_get_socket(current.assumingMemoryBound(to: GSocketConnection.self)) else { return -1 }
                return dup(g_socket_get_fd(socket))
            }
            let object = current.assumingMemoryBound(to: GObject.self)
            guard g_object_class_find_property(CGStreamer_object_class(current), "base-iostream") != nil else { return -1 }
            var value = GValue()
            g_value_init(&value, CGStreamer_type_object())
            g_object_get_property(object, "base-iostream", &value)
            let base = g_value_get_object(&value)
            g_value_unset(&value)  // the stolen stream still holds its base
            guard let base else { return -1 }
            current = base
        }
        return -1
    }

    private func removeMJPEGViewer(id: Int) {
        queue.async { [self] in
            guard let encoder = parts.withLock({ $0.mjpeg }) else { return }
            if encoder.remove(id: id) == 0 { stopMJPEGIfIdle() }
            server?.broadcastState()
        }
    }

    private func stopMJPEGIfIdle() {
        let idle = parts.withLock { parts -> MJPEGEncoder? in
            guard let encoder = parts.mjpeg, encoder.viewerCount == 0 else { return nil }
            parts.mjpeg = nil
            return encoder
        }
        idle?.stop()
        closeFeedIfIdle()
    }

    /// Ends every viewer and the feed (server stop); waits for the work queued so far.
    func stopAll() {
        queue.sync { [self] in
            let (feed, webrtc, mjpeg) = parts.withLock { parts in
                defer { parts = Parts() }
                return (parts.feed, parts.webrtc, parts.mjpeg)
            }
            feed?.close()
            webrtc?.stop()
            mjpeg?.stop()
        }
    }
}

/// Why the live picture could not start.
enum WebVideoError: Error, CustomStringConvertible {
    case noFrames

    var description: String {
        switch self {
        case .noFrames: "the camera sent no frame within 10 s (is the session running? see /api/status)"
        }
    }
}
