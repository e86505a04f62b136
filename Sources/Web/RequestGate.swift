import Base
import CSoup
import FoundationEssentials
import GStreamer
import Glibc

/// The server's listening socket, in front of libsoup: each new connection's request line is read (peeked, not
/// consumed) before libsoup sees it, and a path with a dot segment (`..` or `.`, plain or percent-encoded, e.g.
/// `/captures/..`, `/captures/%2e%2e%2fsecret`) gets a 404 there. libsoup cannot be asked: GLib removes plain dot
/// segments while parsing (RFC 3986), so `/captures/..` would reach the handlers as `/`, the page. Browsers never send
/// dot segments; what does is probing. Every other connection goes to libsoup untouched
/// (`soup_server_accept_iostream`). One request per connection (the server answers `Connection: close`, see
/// `WebServer.screen`), so every request line passes here.
///
/// Loop thread only (unchecked Sendable: its signal handler holds it weakly, and runs on the loop thread too).
final class RequestGate: @unchecked Sendable {
    let port: Int
    private let server: UnsafeMutablePointer<SoupServer>
    private let service: ObjectReference
    private var incoming: SignalConnection?

    /// Listens on `address` (port 0: one is chosen) for `server`.
    init(server: UnsafeMutablePointer<SoupServer>, address: UnsafeMutablePointer<GSocketAddress>) throws(WebServerError) {
        self.server = server
        let service = ObjectReference(adopting: g_socket_service_new())
        self.service = service
        var effective: UnsafeMutablePointer<GSocketAddress>?
        var error: UnsafeMutablePointer<GError>?
        let listener = service.pointer(to: GSocketListener.self)
        guard g_socket_listener_add_address(listener, address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &effective, &error) != 0,
            let effective
        else {
            let reason = error != nil ? GLibError(consuming: &error).message : "unknown error"
            throw WebServerError.cannotListen(address: "", reason: reason)
        }
        let bound = ObjectReference(adopting: effective)
        port = Int(withExtendedLifetime(bound) { g_inet_socket_address_get_port(bound.pointer(to: GInetSocketAddress.self)) })
        typealias Incoming =
            @convention(c) (
                UnsafeMutablePointer<GSocketService>?, UnsafeMutablePointer<GSocketConnection>?,
                UnsafeMutablePointer<GObject>?, gpointer?
            ) -> gboolean
        let incoming: Incoming = { _, connection, _, data in
            guard let connection, let gate = SignalConnection.handler(data, as: WeakReference<RequestGate>.self)?.object else { return 0 }
            gate.admit(connection)
            return 1
        }
        do {
            self.incoming = try SignalConnection(to: service.raw, signal: "incoming", handler: WeakReference(self), trampoline: incoming)
        } catch {
            throw WebServerError.cannotListen(address: "", reason: error.description)
        }
        g_socket_service_start(service.pointer(to: GSocketService.self))
    }

    /// Stops listening. Connections already handed to libsoup are its own (`soup_server_disconnect` ends them).
    func close() {
        incoming?.disconnect()
        g_socket_service_stop(service.pointer(to: GSocketService.self))
        g_socket_listener_close(service.pointer(to: GSocketListener.self))
    }

    /// Whether a request line's target has a dot segment in its path, once each segment is percent-decoded (so an
    /// encoded slash splits too).
    static func hasDotSegment(requestLine line: String) -> Bool {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return false }
        var target = parts[1]
        if let scheme = target.firstRange(of: "://") {  // absolute form: http://host/path
            let rest = target[scheme.upperBound...]
            target = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) { target = target[..<end] }
        let decoded = String(target).percentDecoded ?? String(target)
        return decoded.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." }
            || decoded.split(separator: "\\").contains { $0 == ".." }
    }

    // MARK: - Connections

    /// A connection whose request line is awaited.
    private final class Arrival {
        private let held: ObjectReference
        unowned let gate: RequestGate
        var waits = 0
        init(connection: UnsafeMutablePointer<GSocketConnection>, gate: RequestGate) {
            held = ObjectReference(retaining: connection)
            self.gate = gate
        }
        var connection: UnsafeMutablePointer<GSocketConnection> { held.pointer(to: GSocketConnection.self) }
        var descriptor: Int32 { g_socket_get_fd(g_socket_connection_get_socket(connection)) }
    }

    private func admit(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        watch(Arrival(connection: connection, gate: self))
    }

    /// Calls `readable` when the connection has bytes (or ends).
    private func watch(_ arrival: Arrival) {
        typealias Ready = @convention(c) (UnsafeMutablePointer<GSocket>?, GIOCondition, gpointer?) -> gboolean
        let ready: Ready = { _, _, data in
            guard let data else { return 0 }
            let arrival = Unmanaged<Arrival>.fromOpaque(data).takeUnretainedValue()
            arrival.gate.readable(arrival)
            return 0  // one shot: `readable` watches again when it needs more
        }
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let source = g_socket_create_source(g_socket_connection_get_socket(arrival.connection), condition, nil)
        g_source_set_callback(source, unsafeBitCast(ready, to: GSourceFunc.self), Unmanaged.passRetained(arrival).toOpaque()) { data in
            if let data { Unmanaged<Arrival>.fromOpaque(data).release() }
        }
        g_source_attach(source, g_main_context_get_thread_default())
        g_source_unref(source)
    }

    /// Peeks at what arrived: a whole request line decides; a partial one waits a little for the rest (the socket
    /// stays readable while unread bytes are there, so the next look is on a short timer, not on readiness).
    private func readable(_ arrival: Arrival) {
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = recv(arrival.descriptor, &bytes, bytes.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count > 0 else { return handOver(arrival) }  // ended or failed: libsoup cleans up
        let head = bytes[..<count]
        guard let end = head.firstIndex(of: UInt8(ascii: "\n")) else {
            arrival.waits += 1
            // A line longer than the buffer, or one that does not come within 5 s: libsoup answers it.
            guard count < bytes.count, arrival.waits < 500 else { return handOver(arrival) }
            let retained = Unmanaged.passRetained(arrival).toOpaque()
            let source = g_timeout_source_new(10)
            g_source_set_callback(
                source,
                { data in
                    guard let data else { return 0 }
                    let arrival = Unmanaged<Arrival>.fromOpaque(data).takeUnretainedValue()
                    arrival.gate.watch(arrival)
                    return 0
                }, retained
            ) { data in
                if let data { Unmanaged<Arrival>.fromOpaque(data).release() }
            }
            g_source_attach(source, g_main_context_get_thread_default())
            g_source_unref(source)
            return
        }
        let line = String(decoding: head[..<end], as: UTF8.self)
        if Self.hasDotSegment(requestLine: line) { refuse(arrival) } else { handOver(arrival) }
    }

    private func handOver(_ arrival: Arrival) {
        let connection = arrival.connection
        let local = g_socket_connection_get_local_address(connection, nil).map { ObjectReference(adopting: $0) }
        let remote = g_socket_connection_get_remote_address(connection, nil).map { ObjectReference(adopting: $0) }
        defer { withExtendedLifetime((local, remote, arrival)) {} }
        let stream = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self)
        if soup_server_accept_iostream(
            server, stream, local?.pointer(to: GSocketAddress.self), remote?.pointer(to: GSocketAddress.self), nil) == 0
        {
            g_io_stream_close(stream, nil, nil)
        }
    }

    /// Answers 404 and closes (after the client's bytes, see `Refusal`).
    private func refuse(_ arrival: Arrival) {
        let stream = UnsafeMutableRawPointer(arrival.connection).assumingMemoryBound(to: GIOStream.self)
        Refusal(
            answer: Refusal.answer(status: 404, json: ["ok": false, "error": "no such page"]),
            socket: g_socket_connection_get_socket(arrival.connection), stream: stream)
    }
}
