import Base
import CSoup
import Filters
import FoundationEssentials
import GStreamer
import Glibc

/// The server's listening socket, in front of libsoup: each new connection's request head is read (peeked, not
/// consumed) before libsoup sees it, and refused there when it is not a request this server answers:
/// - a path with a dot segment (`..` or `.`, plain or percent-encoded, e.g. `/captures/..`, `/captures/%2e%2e%2fsecret`)
///   gets a 404. libsoup cannot be asked: GLib removes plain dot segments while parsing (RFC 3986), so `/captures/..`
///   would reach the handlers as `/`, the page. Browsers never send dot segments; what does is probing;
/// - a request line over `maxRequestLine` gets a 414, a head (line and headers) over `maxHead` a 431, and one not whole
///   within `patience` seconds a 408 (libsoup would read any size, and answered too large a head with a reset);
/// - a method the server has no use for gets a 405 naming the ones it has, one that is not HTTP's a 501;
/// - a `Content-Length` that is not a number, or two that differ, gets a 400 (libsoup warned on the log and went on).
/// Every other connection goes to libsoup untouched (`soup_server_accept_iostream`). One request per connection (the
/// server answers `Connection: close`, see `WebServer.screen`), so every request head passes here. With a certificate,
/// TLS ends first (`TLSTermination`) and the gate screens the plain bytes.
///
/// Unchecked Sendable: it is used only on the loop thread, where it is made and closed and where its signal
/// handler, which holds it weakly, runs too.
final class RequestGate: @unchecked Sendable {
    /// Connections the kernel queues before they are accepted (capped by `net.core.somaxconn`).
    static let backlog: gint = 1024
    /// Longest request line answered (a longer one: 414).
    static let maxRequestLine = 8 * 1024
    /// Longest request head, line and headers (a longer one: 431).
    static let maxHead = 32 * 1024
    /// Seconds a connection has to send its whole head (then: 408).
    static let patience = 30
    /// Methods answered, and the ones of HTTP that are not (405; any other: 501).
    static let allowedMethods: Set<String> = ["GET", "HEAD", "POST"]
    static let otherMethods: Set<String> = ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"]

    let port: Int
    private let server: UnsafeMutablePointer<SoupServer>
    private let service: ObjectReference
    private let certificate: ObjectReference?
    private var incoming: SignalConnection?

    /// Listens on `address` (port 0: one is chosen) for `server`; over TLS with `certificate` (a `GTlsCertificate`).
    init(
        server: UnsafeMutablePointer<SoupServer>, address: UnsafeMutablePointer<GSocketAddress>, certificate: ObjectReference?
    )
        throws(WebServerError)
    {
        self.server = server
        self.certificate = certificate
        let service = ObjectReference(adopting: g_socket_service_new())
        self.service = service
        var effective: UnsafeMutablePointer<GSocketAddress>?
        var error: UnsafeMutablePointer<GError>?
        let listener = service.pointer(to: GSocketListener.self)
        // GLib's default is 10: a burst of pages and scrapers beyond it waited on the kernel's SYN retries, seconds each.
        g_socket_listener_set_backlog(listener, Self.backlog)
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

    /// A connection whose request line is awaited, with the addresses libsoup is told (a relayed one's are the TCP
    /// connection's).
    private final class Arrival {
        private let held: ObjectReference
        unowned let gate: RequestGate
        let local: ObjectReference?
        let remote: ObjectReference?
        var waits = 0
        init(
            connection: UnsafeMutablePointer<GSocketConnection>, gate: RequestGate, local: ObjectReference? = nil,
            remote: ObjectReference? = nil
        ) {
            held = ObjectReference(retaining: connection)
            self.gate = gate
            self.local = local ?? g_socket_connection_get_local_address(connection, nil).map { ObjectReference(adopting: $0) }
            self.remote = remote ?? g_socket_connection_get_remote_address(connection, nil).map { ObjectReference(adopting: $0) }
        }
        var connection: UnsafeMutablePointer<GSocketConnection> { held.pointer(to: GSocketConnection.self) }
        var descriptor: Int32 { g_socket_get_fd(g_socket_connection_get_socket(connection)) }
    }

    private func admit(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        guard let certificate else { return watch(Arrival(connection: connection, gate: self)) }
        TLSTermination(connection: connection, certificate: certificate, patience: Self.patience) { [weak self] plain, local, remote in
            guard let self else { return }
            self.watch(Arrival(connection: plain, gate: self, local: local, remote: remote))
        }
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

    /// Peeks at what arrived: a whole head decides; a partial one waits a little for the rest (the socket stays
    /// readable while unread bytes are there, so the next look is on a short timer, not on readiness).
    private func readable(_ arrival: Arrival) {
        var bytes = [UInt8](repeating: 0, count: Self.maxHead + 1)
        let count = recv(arrival.descriptor, &bytes, bytes.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count > 0 else { return handOver(arrival) }  // ended or failed: libsoup cleans up
        switch Self.screening(bytes[..<count]) {
        case .pass:
            handOver(arrival)
        case let .refuse(status, reason, headers):
            refuse(arrival, status: status, reason: reason, headers: headers)
        case .incomplete:
            arrival.waits += 1
            guard arrival.waits < Self.patience * 100 else {
                return refuse(arrival, status: 408, reason: "the request did not arrive whole within \(Self.patience) s", headers: [])
            }
            g_source_unref(oneShotTimer(milliseconds: 10) { arrival.gate.watch(arrival) })
        }
    }

    /// What the gate does with a connection whose first bytes are `head`.
    enum Screening: Equatable {
        /// A request for libsoup.
        case pass
        /// Answered here: the status, why, and headers the answer carries beside the usual ones.
        case refuse(status: Int, reason: String, headers: [String])
        /// Not whole yet: look again when more has come.
        case incomplete
    }

    /// Screens the start of a connection (up to `maxHead + 1` bytes of it), in the order a server reads: the request
    /// line's length, its path, its method, then the head's length and its `Content-Length`.
    static func screening(_ head: ArraySlice<UInt8>) -> Screening {
        let newline = UInt8(ascii: "\n")
        guard let lineEnd = head.firstIndex(of: newline) else {
            return head.count > maxRequestLine ? tooLongLine : .incomplete
        }
        guard lineEnd - head.startIndex <= maxRequestLine else { return tooLongLine }
        let line = String(decoding: head[..<lineEnd], as: UTF8.self)
        if hasDotSegment(requestLine: line) { return .refuse(status: 404, reason: "no such page", headers: []) }
        let method = line.prefix { $0 != " " }
        if !allowedMethods.contains(String(method)) {
            let allow = "Allow: " + allowedMethods.sorted().joined(separator: ", ")
            return otherMethods.contains(String(method))
                ? .refuse(
                    status: 405, reason: "\(method) is not a method this camera answers: it answers GET, HEAD and POST", headers: [allow])
                : .refuse(
                    status: 501, reason: "\(String(method.prefix(32)).escapingControls) is not an HTTP method this camera knows",
                    headers: [allow])
        }
        // The head ends at an empty line ("\r\n" or a bare "\n").
        var index = lineEnd
        var headEnd: Int?
        while index < head.endIndex {
            let next = head.index(after: index)
            if next < head.endIndex, head[next] == newline { headEnd = next; break }
            if next + 1 < head.endIndex, head[next] == UInt8(ascii: "\r"), head[next + 1] == newline { headEnd = next + 1; break }
            guard let following = head[next...].firstIndex(of: newline) else { break }
            index = following
        }
        let tooLongHead = Screening.refuse(status: 431, reason: "the request's headers are over \(maxHead / 1024) KiB", headers: [])
        guard let headEnd else { return head.count > maxHead ? tooLongHead : .incomplete }
        guard headEnd - head.startIndex < maxHead else { return tooLongHead }
        return contentLengthRefusal(String(decoding: head[head.index(after: lineEnd)..<headEnd], as: UTF8.self)) ?? .pass
    }

    private static var tooLongLine: Screening {
        .refuse(status: 414, reason: "the request line is over \(maxRequestLine / 1024) KiB", headers: [])
    }

    /// A 400 for a `Content-Length` that is not a number of at most 18 digits, or several that differ (RFC 9110 8.6).
    private static func contentLengthRefusal(_ headers: String) -> Screening? {
        var lengths = Set<String>()
        for line in headers.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "content-length" else { continue }
            for value in line[line.index(after: colon)...].split(separator: ",") {
                let trimmed = value.trimmed
                guard !trimmed.isEmpty, trimmed.count <= 18, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    return .refuse(
                        status: 400, reason: "Content-Length \(String(trimmed.prefix(32)).escapingControls) is not a length in bytes",
                        headers: [])
                }
                lengths.insert(String(trimmed.drop { $0 == "0" }))
            }
        }
        return lengths.count > 1 ? .refuse(status: 400, reason: "the request has Content-Lengths that differ", headers: []) : nil
    }

    private func handOver(_ arrival: Arrival) {
        defer { withExtendedLifetime(arrival) {} }
        let stream = UnsafeMutableRawPointer(arrival.connection).assumingMemoryBound(to: GIOStream.self)
        if soup_server_accept_iostream(
            server, stream, arrival.local?.pointer(to: GSocketAddress.self), arrival.remote?.pointer(to: GSocketAddress.self), nil) == 0
        {
            g_io_stream_close(stream, nil, nil)
        }
    }

    /// Answers and closes (after the client's bytes, see `Refusal`).
    private func refuse(_ arrival: Arrival, status: Int, reason: String, headers: [String]) {
        let stream = UnsafeMutableRawPointer(arrival.connection).assumingMemoryBound(to: GIOStream.self)
        Refusal(
            answer: Refusal.answer(status: status, json: ["ok": false, "error": reason], headers: headers),
            socket: g_socket_connection_get_socket(arrival.connection), stream: stream)
    }
}
