import CGstWebRTC
import CGStreamer
import CSoup
import Foundation

/// One open WebSocket (a page): state pushes and WebRTC signalling. Sends may come from any thread; they
/// are handed to the loop thread, where libsoup wants them.
final class WebSocketClient: @unchecked Sendable {
    let id: Int
    /// Loop thread only; holds one reference.
    private var connection: OpaquePointer?
    private unowned let server: WebServer
    private var handlers: [gulong] = []

    init(id: Int, connection: OpaquePointer, server: WebServer) {
        self.id = id
        self.server = server
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        soup_websocket_connection_set_max_incoming_payload_size(connection, guint64(WebServer.maxBody))
        let me = Unmanaged.passUnretained(self).toOpaque()
        typealias OnMessage = @convention(c) (OpaquePointer?, gint, OpaquePointer?, gpointer?) -> Void
        typealias OnClosed = @convention(c) (OpaquePointer?, gpointer?) -> Void
        let onMessage: OnMessage = { _, type, bytes, data in
            guard let data, let bytes, type == gint(SOUP_WEBSOCKET_DATA_TEXT.rawValue) else { return }
            var size: gsize = 0
            guard let raw = g_bytes_get_data(bytes, &size) else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: raw, count: Int(size)), as: UTF8.self)
            let client = Unmanaged<WebSocketClient>.fromOpaque(data).takeUnretainedValue()
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
        guard let connection else { return }
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), handler) }
        handlers = []
        g_object_unref(UnsafeMutableRawPointer(connection))
        self.connection = nil
    }
}
