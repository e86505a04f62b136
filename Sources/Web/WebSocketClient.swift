import CGstWebRTC
import CGStreamer
import CSoup
import Foundation

/// One open WebSocket (a page): state pushes and WebRTC signalling. Sends may come from any thread; they
/// are handed to the loop thread, where libsoup wants them. A socket that sends nothing for `idleSeconds` is closed
/// (a GLib timeout on the loop, restarted by every message).
final class WebSocketClient: @unchecked Sendable {
    let id: Int
    /// The page's end of the socket ("127.0.0.1:53124"; behind a proxy, the proxy's).
    let address: String
    /// Loop thread only; holds one reference.
    private var connection: OpaquePointer?
    private unowned let server: WebServer
    private var handlers: [gulong] = []
    private let idleSeconds: Int
    /// Loop thread only; the pending idle timeout, referenced.
    private var idleTimer: UnsafeMutablePointer<GSource>?

    init(id: Int, address: String, connection: OpaquePointer, server: WebServer, idleSeconds: Int) {
        self.id = id
        self.address = address
        self.server = server
        self.idleSeconds = idleSeconds
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        soup_websocket_connection_set_max_incoming_payload_size(connection, guint64(WebServer.maxBody))
        let me = Unmanaged.passUnretained(self).toOpaque()
        typealias OnMessage = @convention(c) (OpaquePointer?, gint, OpaquePointer?, gpointer?) -> Void
        typealias OnClosed = @convention(c) (OpaquePointer?, gpointer?) -> Void
        let onMessage: OnMessage = { _, type, bytes, data in
            guard let data else { return }
            let client = Unmanaged<WebSocketClient>.fromOpaque(data).takeUnretainedValue()
            client.heard()
            guard let bytes, type == gint(SOUP_WEBSOCKET_DATA_TEXT.rawValue) else { return }
            var size: gsize = 0
            guard let raw = g_bytes_get_data(bytes, &size) else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: raw, count: Int(size)), as: UTF8.self)
            client.server.received(text, from: client)
        }
        let onClosed: OnClosed = { _, data in
            guard let data else { return }
            let client = Unmanaged<WebSocketClient>.fromOpaque(data).takeUnretainedValue()
            client.release()
            client.server.closed(client)
        }
        handlers.append(g_signal_connect_data(UnsafeMutableRawPointer(connection), "message",
                                              unsafeBitCast(onMessage, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        handlers.append(g_signal_connect_data(UnsafeMutableRawPointer(connection), "closed",
                                              unsafeBitCast(onClosed, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        heard()
    }

    /// Something arrived (loop thread): the idle timeout starts over.
    private func heard() {
        stopIdleTimer()
        guard connection != nil else { return }
        let timer = g_timeout_source_new_seconds(guint(idleSeconds))!
        // Unretained: `release` destroys the timer before this client can go.
        g_source_set_callback(timer, { data in
            guard let data else { return 0 }
            let client = Unmanaged<WebSocketClient>.fromOpaque(data).takeUnretainedValue()
            client.close(code: SOUP_WEBSOCKET_CLOSE_GOING_AWAY, reason: "nothing received for \(client.idleSeconds) s: closed as idle")
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
        g_source_attach(timer, server.loop.context)
        idleTimer = timer
    }

    private func stopIdleTimer() {
        guard let idleTimer else { return }
        g_source_destroy(idleTimer)
        g_source_unref(idleTimer)
        self.idleTimer = nil
    }

    /// Starts the closing handshake with a reason the page can read (loop thread); libsoup's `closed` then releases it
    /// and tells the server, which removes its viewer.
    func close(code: SoupWebsocketCloseCode, reason: String) {
        stopIdleTimer()
        guard let connection, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { return }
        soup_websocket_connection_close(connection, gushort(code.rawValue), reason)
    }

    /// Sends one text message (from any thread); dropped once closed.
    func send(_ text: String) {
        server.loop.invoke { [self] in
            guard let connection, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { return }
            soup_websocket_connection_send_text(connection, text)
        }
    }

    /// Closes it (loop thread).
    func close() {
        guard let connection else { return }
        if soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN {
            soup_websocket_connection_close(connection, gushort(SOUP_WEBSOCKET_CLOSE_GOING_AWAY.rawValue), "the camera stopped")
        }
        release()
    }

    /// Disconnects the signal handlers and drops the reference (loop thread).
    private func release() {
        stopIdleTimer()
        guard let connection else { return }
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), handler) }
        handlers = []
        g_object_unref(UnsafeMutableRawPointer(connection))
        self.connection = nil
    }
}
