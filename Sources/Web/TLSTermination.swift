import Base
import CSoup
import FoundationEssentials
import GStreamer
import Glibc

/// HTTPS and WSS for the page: TLS ends here, in front of the `RequestGate`, with GLib's own TLS (glib-networking).
///
/// One per accepted TCP connection: its first byte says what the client speaks. TLS (a handshake record, 0x16)
/// is answered with the server's certificate; once the handshake is done the plain bytes are relayed
/// (`g_io_stream_splice_async`) to one end of a local socket pair, and the other end goes through the gate as a plain
/// connection would, carrying the TCP connection's addresses: the gate's peeks, libsoup, the MJPEG writer and the
/// refusals all work on a socket, unchanged. A client speaking plain HTTP to the HTTPS port gets a 400 naming the
/// `https://` URL, in plain text (it reads nothing else); a client that sends nothing, or does not finish its
/// handshake, within the gate's patience is closed.
///
/// Loop thread only (its sources run on the thread's default main context).
final class TLSTermination {
    /// The TLS record type that starts a handshake.
    static let handshakeRecord: UInt8 = 0x16

    private let tcp: ObjectReference
    private let certificate: ObjectReference
    private let cancellable = ObjectReference(adopting: g_cancellable_new())
    private let plain: (UnsafeMutablePointer<GSocketConnection>, ObjectReference?, ObjectReference?) -> Void
    private var tls: ObjectReference?
    private var waiting: UnsafeMutablePointer<GSource>?
    private var timer: UnsafeMutablePointer<GSource>?
    private var ended = false

    /// Starts on `connection` with `certificate` (a `GTlsCertificate`); `plain` gets the relayed plain connection and the
    /// TCP connection's local and remote addresses, once the handshake is done. Holds itself until it ends.
    @discardableResult
    init(
        connection: UnsafeMutablePointer<GSocketConnection>, certificate: ObjectReference, patience: Int,
        plain: @escaping (UnsafeMutablePointer<GSocketConnection>, ObjectReference?, ObjectReference?) -> Void
    ) {
        tcp = ObjectReference(retaining: connection)
        self.certificate = certificate
        self.plain = plain
        timer = oneShotTimer(milliseconds: guint(patience) * 1000) { self.expired() }
        awaitFirstByte()
    }

    private var connection: UnsafeMutablePointer<GSocketConnection> { tcp.pointer(to: GSocketConnection.self) }
    private var socket: UnsafeMutablePointer<GSocket> { g_socket_connection_get_socket(connection) }
    private var stream: UnsafeMutablePointer<GIOStream> {
        UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self)
    }

    private func awaitFirstByte() {
        typealias Ready = @convention(c) (UnsafeMutablePointer<GSocket>?, GIOCondition, gpointer?) -> gboolean
        let ready: Ready = { _, _, data in
            guard let data else { return 0 }
            Unmanaged<TLSTermination>.fromOpaque(data).takeUnretainedValue().firstByteArrived()
            return 0
        }
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        let source = g_socket_create_source(socket, condition, nil)!
        g_source_set_callback(source, unsafeBitCast(ready, to: GSourceFunc.self), Unmanaged.passRetained(self).toOpaque()) { data in
            if let data { Unmanaged<TLSTermination>.fromOpaque(data).release() }
        }
        g_source_attach(source, g_main_context_get_thread_default())
        waiting = source
    }

    private func firstByteArrived() {
        forget(&waiting)
        guard !ended else { return }
        var byte: UInt8 = 0
        let count = recv(g_socket_get_fd(socket), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count == 1 else { return end() }
        guard byte == Self.handshakeRecord else { return refusePlainHTTP() }
        handshake()
    }

    /// A plain request to the HTTPS port: the answer names the URL that works, and says nothing else.
    private func refusePlainHTTP() {
        ended = true
        forget(&timer)
        let local = g_socket_connection_get_local_address(connection, nil).map { ObjectReference(adopting: $0) }
        let address = local.flatMap { AddressText.of(OpaquePointer($0.raw)) }
        let url = address.map { "https://\($0)/" } ?? "https://"
        Refusal(
            answer: Refusal.answer(
                status: 400, json: ["ok": false, "error": "this camera serves HTTPS on this port: open \(url)"], headers: []),
            socket: socket, stream: stream)
    }

    private func handshake() {
        var error: UnsafeMutablePointer<GError>?
        guard let made = g_tls_server_connection_new(stream, certificate.pointer(to: GTlsCertificate.self), &error) else {
            let reason = error != nil ? GLibError(consuming: &error).message : "no reason given"
            DebugLog.warning("web: GLib's TLS made no server connection: \(reason)")
            return end()
        }
        let tls = ObjectReference(adopting: made)
        self.tls = tls
        typealias Done = @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, gpointer?) -> Void
        let done: Done = { _, result, data in
            guard let data else { return }
            Unmanaged<TLSTermination>.fromOpaque(data).takeRetainedValue().handshaken(result)
        }
        g_tls_connection_handshake_async(
            tls.pointer(to: GTlsConnection.self), G_PRIORITY_DEFAULT, cancellable.pointer(to: GCancellable.self), done,
            Unmanaged.passRetained(self).toOpaque())
    }

    private func handshaken(_ result: OpaquePointer?) {
        guard let tls else { return }
        var error: UnsafeMutablePointer<GError>?
        guard g_tls_connection_handshake_finish(tls.pointer(to: GTlsConnection.self), result, &error) != 0, !ended else {
            // A browser that does not trust the certificate ends here (an alert), as does a probe: for the debug log only.
            let reason = error != nil ? GLibError(consuming: &error).message : "the wait for it ended"
            DebugLog.info("web: a TLS handshake failed: \(reason)")
            return end()
        }
        forget(&timer)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            DebugLog.warning("web: no local socket pair to relay an HTTPS connection: \(SystemError.message(errno))")
            return end()
        }
        // Each end is its connection's from here (closed with it), or closed at once.
        let ours = Self.connection(on: pair[0]), theirs = Self.connection(on: pair[1])
        guard let ours, let theirs else { return end() }
        // The splice holds both streams until either side ends, then closes both (the TLS one with its close_notify,
        // then the TCP connection under it).
        ended = true
        // G_IO_STREAM_SPLICE_CLOSE_STREAM1 | G_IO_STREAM_SPLICE_CLOSE_STREAM2, by value: newer GLib headers mark the
        // enum as flags, and Swift then imports its constants under other names.
        let flags = GIOStreamSpliceFlags(rawValue: 0b11)
        g_io_stream_splice_async(
            tls.pointer(to: GIOStream.self), UnsafeMutableRawPointer(ours.raw).assumingMemoryBound(to: GIOStream.self), flags,
            G_PRIORITY_DEFAULT, nil, nil, nil)
        let local = g_socket_connection_get_local_address(connection, nil).map { ObjectReference(adopting: $0) }
        let remote = g_socket_connection_get_remote_address(connection, nil).map { ObjectReference(adopting: $0) }
        plain(theirs.pointer(to: GSocketConnection.self), local, remote)
    }

    /// A socket connection over descriptor `fd` (closed when it goes); nil, with `fd` closed, when GLib takes none.
    private static func connection(on fd: Int32) -> ObjectReference? {
        var error: UnsafeMutablePointer<GError>?
        guard let made = g_socket_new_from_fd(fd, &error) else {
            if error != nil { DebugLog.warning("web: \(GLibError(consuming: &error).message)") }
            close(fd)
            return nil
        }
        let socket = ObjectReference(adopting: made)
        return g_socket_connection_factory_create_connection(socket.pointer(to: GSocket.self)).map { ObjectReference(adopting: $0) }
    }

    /// Nothing whole within the patience: the handshake is cancelled, or the silent connection closed.
    private func expired() {
        forget(&timer)
        guard !ended else { return }
        if tls != nil {
            g_cancellable_cancel(cancellable.pointer(to: GCancellable.self))
        } else {
            end()
        }
    }

    private func end() {
        ended = true
        forget(&waiting)
        forget(&timer)
        if let tls {
            g_io_stream_close(tls.pointer(to: GIOStream.self), nil, nil)
        } else {
            g_io_stream_close(stream, nil, nil)
        }
    }

    /// Destroys a pending source (which releases what it held).
    private func forget(_ source: inout UnsafeMutablePointer<GSource>?) {
        guard let pending = source else { return }
        source = nil
        g_source_destroy(pending)
        g_source_unref(pending)
    }
}
