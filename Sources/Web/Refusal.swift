import Base
import CSoup
import FoundationEssentials
import GStreamer
import Glibc

/// An answer written straight to a connection that libsoup does not (or no longer) owns, before the request's body is
/// read: a refused request with a large `Content-Length` is answered at once, and its body is never buffered.
///
/// After the answer the write side is shut and whatever the client still sends is read and dropped until it closes (or
/// `linger` seconds pass): closing with unread bytes would send a reset, which can reach the client before the answer
/// and destroy it there. Reading to drop costs no memory, however long the body.
///
/// Loop thread only (its sources run on the thread's default main context).
final class Refusal {
    private let heldSocket: ObjectReference
    private let heldStream: ObjectReference?
    private var socket: UnsafeMutablePointer<GSocket> { heldSocket.pointer(to: GSocket.self) }
    private var sources: [UnsafeMutablePointer<GSource>] = []

    /// Answers on `stream` (whose socket is `socket`) and closes it; both are referenced until then.
    @discardableResult
    init(answer: Data, socket: UnsafeMutablePointer<GSocket>, stream: UnsafeMutablePointer<GIOStream>, linger: guint = 2) {
        heldSocket = ObjectReference(retaining: socket)
        heldStream = ObjectReference(retaining: stream)
        start(answer: answer, linger: linger)
    }

    /// Reads and drops what `socket` still brings, its answer already written, then closes it.
    @discardableResult
    init(draining socket: UnsafeMutablePointer<GSocket>, linger: guint = 2) {
        heldSocket = ObjectReference(retaining: socket)
        heldStream = nil
        start(answer: Data(), linger: linger)
    }

    private func start(answer: Data, linger: guint) {
        let descriptor = g_socket_get_fd(socket)
        // Small enough for an empty send buffer: one non-blocking send writes it all.
        if !answer.isEmpty {
            _ = answer.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        shutdown(descriptor, Int32(SHUT_WR))

        typealias Ready = @convention(c) (UnsafeMutablePointer<GSocket>?, GIOCondition, gpointer?) -> gboolean
        let ready: Ready = { _, _, data in
            guard let data else { return 0 }
            return Unmanaged<Refusal>.fromOpaque(data).takeUnretainedValue().drain() ? 1 : 0
        }
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let reading = g_socket_create_source(socket, condition, nil)!
        g_source_set_callback(reading, unsafeBitCast(ready, to: GSourceFunc.self), Unmanaged.passRetained(self).toOpaque()) { data in
            if let data { Unmanaged<Refusal>.fromOpaque(data).release() }
        }
        g_source_attach(reading, g_main_context_get_thread_default())
        let timer = oneShotTimer(milliseconds: linger * 1000) { self.finish() }
        sources = [reading, timer]
    }

    deinit {
        for source in sources { g_source_unref(source) }
    }

    /// Reads and drops what is there, at most 1 MiB a turn (a client that never stops sending must not hold the loop
    /// thread, the timer included); false (and closed) at the end of the client's data or on an error.
    private func drain() -> Bool {
        var sink = [UInt8](repeating: 0, count: 65536)
        let descriptor = g_socket_get_fd(socket)
        for _ in 0..<16 {
            let count = SystemCall.retrying { recv(descriptor, &sink, sink.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return true }
            finish()
            return false
        }
        return true
    }

    /// Closes the connection and stops both sources (each drops its reference to this).
    private func finish() {
        if let heldStream { g_io_stream_close(heldStream.pointer(to: GIOStream.self), nil, nil) }
        g_socket_close(socket, nil)
        for source in sources { g_source_destroy(source) }
    }

    /// `HTTP/1.1 STATUS PHRASE` with a JSON body, closing the connection; no body for HEAD. `headers` ("Name: value")
    /// go beside the usual ones.
    static func answer(status: Int, json: [String: Any], head: Bool = false, headers: [String] = []) -> Data {
        let body = Data(JSONValue(any: json).utf8)
        return answer(status: status, type: "application/json", body: body, head: head, headers: headers)
    }

    /// `HTTP/1.1 STATUS PHRASE` with a body of `type`, closing the connection; no body for HEAD.
    static func answer(status: Int, type: String, body: Data, head: Bool = false, headers extra: [String] = []) -> Data {
        let phrase = soup_status_get_phrase(guint(status)).map { String(cString: $0) } ?? "Error"
        let headers =
            "HTTP/1.1 \(status) \(phrase)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + extra.map { $0 + "\r\n" }.joined()
            + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        return Data(headers.utf8) + (head ? Data() : body)
    }
}
