import CGstWebRTC
import CSoup
import FoundationEssentials
import GStreamer
import Glibc

/// One open WebSocket (a page): state pushes and WebRTC signalling. Sends may come from any thread; they
/// are handed to the loop thread, where libsoup wants them. A socket that sends nothing for `idleSeconds` is closed
/// (a GLib timeout on the loop, restarted by every message).
/// Unchecked Sendable: `connection`, `signals` and `idleTimer` are touched only on the server's loop thread (`send`
/// from another thread hands its work there with `invoke`), and the other fields are immutable.
final class WebSocketClient: @unchecked Sendable {
    let id: Int
    /// The page's end of the socket ("127.0.0.1:53124"; behind a proxy, the proxy's).
    let address: String
    /// Loop thread only.
    private var connection: ObjectReference?
    private unowned let server: WebServer
    private var signals: [SignalConnection] = []
    private let idleSeconds: Int
    /// Loop thread only; the pending idle timeout.
    private var idleTimer: MainContextSource?

    private typealias OnMessage = @convention(c) (OpaquePointer?, gint, OpaquePointer?, gpointer?) -> Void
    private typealias OnClosed = @convention(c) (OpaquePointer?, gpointer?) -> Void
    private typealias OnError = @convention(c) (OpaquePointer?, UnsafeMutablePointer<GError>?, gpointer?) -> Void

    init(id: Int, address: String, connection: OpaquePointer, server: WebServer, idleSeconds: Int) throws {
        (self.id, self.address, self.server, self.idleSeconds) = (id, address, server, idleSeconds)
        let reference = ObjectReference(retaining: connection)
        self.connection = reference
        soup_websocket_connection_set_max_incoming_payload_size(connection, guint64(WebServer.maxBody))
        let onMessage: OnMessage = { _, type, bytes, data in
            guard let client = SignalConnection.handler(data, as: WeakReference<WebSocketClient>.self)?.object else { return }
            client.heard()
            guard let bytes, type == gint(SOUP_WEBSOCKET_DATA_TEXT.rawValue) else { return }
            var size: gsize = 0
            guard let raw = g_bytes_get_data(bytes, &size) else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: raw, count: Int(size)), as: UTF8.self)
            client.server.received(text, from: client)
        }
        let onClosed: OnClosed = { _, data in
            guard let client = SignalConnection.handler(data, as: WeakReference<WebSocketClient>.self)?.object else { return }
            client.release()
            client.server.closed(client)
        }
        let onError: OnError = { _, error, data in
            guard g_error_matches(error, soup_websocket_error_quark(), gint(SOUP_WEBSOCKET_CLOSE_TOO_BIG.rawValue)) != 0,
                let client = SignalConnection.handler(data, as: WeakReference<WebSocketClient>.self)?.object
            else { return }
            client.refuseTooBig()
        }
        let me = WeakReference(self)
        signals = [
            try SignalConnection(to: reference.raw, signal: "message", handler: me, trampoline: onMessage),
            try SignalConnection(to: reference.raw, signal: "closed", handler: me, trampoline: onClosed),
            try SignalConnection(to: reference.raw, signal: "error", handler: me, trampoline: onError)
        ]
        heard()
    }

    /// Something arrived (loop thread): the idle timeout starts over.
    private func heard() {
        stopIdleTimer()
        guard connection != nil else { return }
        let idleSeconds = idleSeconds
        idleTimer = server.loop.repeating(every: Double(idleSeconds)) { [weak self] in
            self?.close(code: SOUP_WEBSOCKET_CLOSE_GOING_AWAY, reason: "nothing received for \(idleSeconds) s: closed as idle")
            return false
        }
    }

    private func stopIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
    }

    /// Starts the closing handshake with a reason the page can read (loop thread); libsoup's `closed` then releases it
    /// and tells the server, which removes its viewer.
    func close(code: SoupWebsocketCloseCode, reason: String) {
        stopIdleTimer()
        guard let connection = connection?.opaque, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else {
            return
        }
        soup_websocket_connection_close(connection, gushort(code.rawValue), reason)
    }

    /// A message over `WebServer.maxBody` is announced (its frame's header read, the rest not): libsoup then closes
    /// the connection at once, and closing with the message's unread bytes would be a reset, so the page never learns
    /// why. Told instead, in the closing handshake's words (1009, "message too big"), and the socket is kept open on a
    /// descriptor of its own (libsoup closes only its own) until the rest has been read and dropped (`Refusal`).
    private func refuseTooBig() {
        guard let connection = connection?.opaque, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN,
            let stream = soup_websocket_connection_get_io_stream(connection), let socket = CSoup_stream_socket(stream)
        else { return }
        var error: UnsafeMutablePointer<GError>?
        let kept = fcntl(g_socket_get_fd(socket), F_DUPFD_CLOEXEC, 0)
        guard kept >= 0, let held = g_socket_new_from_fd(kept, &error).map({ ObjectReference(adopting: $0) }) else {
            if kept >= 0 { Glibc.close(kept) }
            if error != nil { DebugLog.warning("web: \(GLibError(consuming: &error).message)") }
            return
        }
        soup_websocket_connection_close(
            connection, gushort(SOUP_WEBSOCKET_CLOSE_TOO_BIG.rawValue), "a message over \(WebServer.maxBody / 1024) KiB, the limit")
        Refusal(draining: held.pointer(to: GSocket.self))
    }

    /// Sends one text message (from any thread); dropped once closed.
    func send(_ text: String) {
        server.loop.invoke { [self] in
            guard let connection = connection?.opaque, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else {
                return
            }
            soup_websocket_connection_send_text(connection, text)
        }
    }

    /// Closes it (loop thread).
    func close() {
        guard let connection = connection?.opaque else { return }
        if soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN {
            soup_websocket_connection_close(connection, gushort(SOUP_WEBSOCKET_CLOSE_GOING_AWAY.rawValue), "the camera stopped")
        }
        release()
    }

    /// Disconnects the signal handlers and drops the reference (loop thread).
    private func release() {
        stopIdleTimer()
        for signal in signals { signal.disconnect() }
        signals = []
        connection = nil
    }
}
