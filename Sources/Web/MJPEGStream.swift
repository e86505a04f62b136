import Base
import Capture
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// One MJPEG viewer (`GET /stream.mjpg`, `multipart/x-mixed-replace`): a socket taken over from libsoup, a
/// subscription to the session's shared JPEG encoder (≤ 960 px, ≤ 15 fps, encoded once for every viewer and only
/// while someone watches), and a thread that writes the newest JPEG: a viewer that stops reading only misses
/// frames, and after a send timeout it is dropped, never slowing the others.
/// Unchecked Sendable: `id` and `fd` are immutable, the subscription is behind `Locked`, and what the encoder thread
/// and the writing thread share is behind the `state` condition.
final class MJPEGViewer: @unchecked Sendable {
    let id: Int
    /// Its subscription to the shared JPEG encoder, cancelled when the viewer goes.
    let subscription = Locked<LiveSubscription?>(nil)
    private let fd: Int32
    private let state = Condition(ViewerState())

    private struct ViewerState {
        var latest: Data?
        var closed = false
        /// The socket is closed: its number may belong to another connection now, so `close` must not touch it.
        var socketClosed = false
        var sent = 0
        var skipped = 0
    }

    /// Takes over `fd` (blocking, with a send timeout) and starts writing; `onEnd` runs once on its thread
    /// when the viewer goes (closed the page, stopped reading, or `close`).
    init(id: Int, fd: Int32, onEnd: @escaping @Sendable (Int) -> Void) {
        self.id = id
        self.fd = fd
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let started = SystemThread.detached(name: "swiftcam-mjpeg-\(id)") { [self] in
            writeLoop()
            subscription.withLock { subscription in
                defer { subscription = nil }
                return subscription
            }?.cancel()
            closeSocket()
            onEnd(id)
        }
        if !started {
            // No thread to write with: the viewer ends at once, as one that went away.
            state.withLock { $0.closed = true }
            closeSocket()
            DispatchQueue.global().async { onEnd(id) }
        }
    }

    /// The newest JPEG (encoder thread); one not yet written is replaced and counted as skipped.
    func offer(_ jpeg: Data) {
        state.withLock { state in
            if state.latest != nil { state.skipped += 1 }
            state.latest = jpeg
        }
    }

    var framesSent: Int { state.withLock { $0.sent } }

    /// Ends the viewer (its thread closes the socket).
    func close() {
        state.withLock { state in
            state.closed = true
            if !state.socketClosed { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the socket under the lock `close` shuts it down under, so a shutdown never reaches a number reused since.
    private func closeSocket() {
        state.withLock { state in
            state.socketClosed = true
            Glibc.close(fd)
        }
    }

    private func writeLoop() {
        let header =
            "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=swiftcamframe\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n"
        guard write(Data(header.utf8)) else { return }
        while true {
            guard
                let jpeg = state.wait(for: { state -> Data?? in
                    if state.closed { return .some(nil) }
                    guard let latest = state.latest else { return nil }
                    state.latest = nil
                    return .some(latest)
                }) ?? nil
            else { return }
            let part = "--swiftcamframe\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n"
            guard write(Data(part.utf8)), write(jpeg), write(Data("\r\n".utf8)) else { return }
            state.withLock { $0.sent += 1 }
        }
    }

    /// Writes everything or gives up (peer gone, or not reading for the send timeout).
    private func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { SystemCall.writeAll(fd, $0, sendFlags: Int32(MSG_NOSIGNAL)) == nil }
    }
}
