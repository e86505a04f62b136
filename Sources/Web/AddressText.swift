import CSoup
import GStreamer

/// A socket address as people read it: "127.0.0.1:8080", "[::1]:53124".
enum AddressText {
    /// `address` (a `GSocketAddress`) as text; nil when GLib gives none. Calls `g_socket_connectable_to_string`.
    static func of(_ address: OpaquePointer?) -> String? {
        guard let address, let text = g_socket_connectable_to_string(address) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}

extension WebServer {
    /// "address:port" of the client that sent `message`, or "an unknown address". Calls
    /// `soup_server_message_get_remote_address`.
    static func remoteAddress(of message: OpaquePointer?) -> String {
        guard let message, let address = soup_server_message_get_remote_address(message) else { return "an unknown address" }
        return AddressText.of(OpaquePointer(address)) ?? "an unknown address"
    }
}
