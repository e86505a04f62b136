// Web: the browser camera screen, a transport over Capture's command interpreter. WebServer (HTTP, the
// JSON API, the gallery) with RequestGate and OriginPolicy in front of it, the page's state and WebSocket
// (PageState, PageSocket), and its viewers (LiveVideo: WebRTC through webrtcbin, MJPEG), each subscribed
// to Capture's shared live encoders; the page itself is in Assets/. Imports Capture, GStreamer, Filters and
// the C modules CGStreamer, CSoup and CGstWebRTC; only the `swiftcam` executable imports it.

import Base
import CGstWebRTC
import CSoup
public import Capture
import Dispatch
import Filters
import FoundationEssentials
import GStreamer
import Glibc

/// The browser camera screen: an HTTP + WebSocket server (libsoup-3.0, its main context on a thread of its
/// own) that serves the page, the JSON API over the one command interpreter, the gallery, the MJPEG stream
/// and WebRTC signalling. A transport, not a second set of commands: every control is a `Command`.
///
/// Threads: libsoup calls and every response happen on the loop thread; commands (which may wait for a
/// frame or a file to end) run on `commands` and answer through the loop; frames arrive on the live feed's
/// streaming thread and never wait for a viewer.
/// Unchecked Sendable: `server` and `gate` are touched only on the loop thread (in `listen` and in `stop`'s
/// `loop.sync`); every other field is immutable, `Sendable`, or behind `Locked`.
public final class WebServer: @unchecked Sendable {
    /// The options it was started with (the token, if any, included).
    public let options: WebOptions
    /// Largest request body accepted (413 above).
    public static let maxBody = 64 * 1024

    let session: CaptureSession
    let interpreter: CommandInterpreter
    let galleryDirectories: [String]
    let loop = MainContextThread(name: "swiftcam-web")
    let commands = DispatchQueue(label: "swiftcam.web.commands")
    /// Scrapes, off the loop thread and not behind a command that waits for a frame.
    let scrapes = DispatchQueue(label: "swiftcam.web.metrics")
    let metrics: (@Sendable () -> HostMetrics)?
    let video: LiveVideo
    let sockets = Locked(Sockets())
    /// Loop thread only.
    private var server: ObjectReference?
    private var gate: RequestGate?
    private let boundPort = Locked(0)

    struct Sockets {
        var next = 1
        var open: [Int: WebSocketClient] = [:]
        /// Refused (over the limit), held until their closing handshake ends.
        var refused: [Int: WebSocketClient] = [:]
    }

    /// A server for a session; nothing listens until `start`. `galleryDirectories` are where stills and
    /// recordings are looked up (by name only). Commands run with the page's permissions, whatever `interpreter` has.
    /// `metrics` makes what `/metrics` reports, on a queue of the server's own (it must not wait for the session's
    /// commands); without it, the session's counters and this server's viewers.
    public init(
        session: CaptureSession, interpreter: CommandInterpreter, options: WebOptions, galleryDirectories: [String],
        metrics: (@Sendable () -> HostMetrics)? = nil
    ) {
        self.session = session
        self.metrics = metrics
        self.interpreter = interpreter.restricted(to: .page)
        self.options = options
        self.galleryDirectories = galleryDirectories
        video = LiveVideo(session: session, restrictICEToLoopback: options.isLoopback)
        video.server = self
    }

    /// The port it listens on (the chosen one when asked for 0).
    public var port: Int { boundPort.withLock { $0 } }

    /// The URL to open, with the token when there is one.
    public var url: String { options.url(port: port) }

    /// Every URL that opens it: one for each of this machine's addresses when it listens on all of them.
    public var urls: [String] { options.urls(port: port) }

    /// WebRTC viewers now, by the codec their answer chose (`h264`, `vp8`, `vp9`, every offered one at 0; `negotiating`).
    public var webrtcCodecs: [String: Int] { video.webrtcCodecs }

    /// Browser viewers now, by kind (`webrtc`, `mjpeg`; `janus` while pages are handed to Janus).
    public var viewerCounts: [String: Int] { video.viewerCounts }

    /// Binds and starts serving. Throws when the address cannot be bound or a non-loopback address has no token.
    public func start() throws {
        _ = try options.checked()
        try loop.start { [self] in try self.listen() }
    }

    /// Stops serving: closes every viewer and WebSocket, then the server.
    public func stop() {
        video.stopAll()
        loop.sync { [self] in
            let open = sockets.withLock { sockets in
                defer { sockets.open = [:]; sockets.refused = [:] }
                return Array(sockets.open.values) + Array(sockets.refused.values)
            }
            for client in open { client.close() }
            gate?.close()
            gate = nil
            if let server {
                soup_server_disconnect(server.pointer(to: SoupServer.self))
                self.server = nil
            }
        }
        loop.stop()
    }

    /// Runs on the loop thread inside `start`.
    private func listen() throws {
        guard let server = CSoup_server_new() else {
            throw WebServerError.cannotListen(address: options.host, reason: "libsoup made no server")
        }
        let reference = ObjectReference(adopting: server)
        self.server = reference
        // No permessage-deflate: libsoup checks a message's size (`maxBody`) before inflating it, so 49 KB on the wire
        // became a 48 MB message in memory. The page's messages are small; without the extension they stay what they
        // were on the wire, and a compressed frame from a client that insists is a protocol error that closes it.
        soup_server_remove_websocket_extension(server, soup_websocket_extension_deflate_get_type())
        soup_server_add_early_handler(
            server, nil,
            { _, message, _, _, data in
                guard let message else { return }
                WebServer.handling(data)?.screen(message)
            }, Self.handlerData(self), Self.releaseHandlerData)
        soup_server_add_handler(
            server, nil,
            { _, message, path, _, data in
                guard let message else { return }
                // Still percent-encoded (the server's "raw-paths"): `route` decodes.
                let path = path.map { String(cString: $0) } ?? "/"
                WebServer.handling(data)?.route(message, path: path)
            }, Self.handlerData(self), Self.releaseHandlerData)
        if options.servesPage {
            soup_server_add_websocket_handler(
                server, "/ws", nil, nil,
                { _, message, _, connection, data in
                    guard let connection else { return }
                    WebServer.handling(data)?.accept(connection, from: WebServer.remoteAddress(of: message))
                }, Self.handlerData(self), Self.releaseHandlerData)
            // Handlers are found by path, the early one included: "/ws" has its own entry, so it needs the screen too.
            soup_server_add_early_handler(
                server, "/ws",
                { _, message, _, _, data in
                    guard let message else { return }
                    WebServer.handling(data)?.screen(message)
                }, Self.handlerData(self), Self.releaseHandlerData)
        }
        guard let address = g_inet_socket_address_new_from_string(options.host, guint(options.port)).map({ ObjectReference(adopting: $0) })
        else {
            throw WebServerError.cannotListen(address: options.host, reason: "not a numeric IP address")
        }
        defer { withExtendedLifetime(address) {} }
        do {
            let certificate = try options.tls?.certificate()
            gate = try RequestGate(server: server, address: address.pointer(to: GSocketAddress.self), certificate: certificate)
        } catch let error as TLSIdentityError {
            soup_server_disconnect(server)
            self.server = nil
            throw WebServerError.cannotListen(address: "\(options.host):\(options.port)", reason: error.description)
        } catch let WebServerError.cannotListen(_, reason) {
            soup_server_disconnect(server)
            self.server = nil
            throw WebServerError.cannotListen(address: "\(options.host):\(options.port)", reason: reason)
        }
        boundPort.withLock { $0 = gate?.port ?? options.port }
    }

    /// libsoup's handlers hold the server weakly, each through a box of its own that libsoup releases with the soup
    /// server, so a request handled as the server goes finds nil rather than a freed object.
    private static func handlerData(_ server: WebServer) -> gpointer {
        Unmanaged.passRetained(WeakReference(server)).toOpaque()
    }

    private static let releaseHandlerData: GDestroyNotify = { data in
        if let data { Unmanaged<WeakReference<WebServer>>.fromOpaque(data).release() }
    }

    private static func handling(_ data: gpointer?) -> WebServer? {
        data.map { Unmanaged<WeakReference<WebServer>>.fromOpaque($0).takeUnretainedValue().object } ?? nil
    }

    // MARK: - Requests

    /// The early handler (headers read, body not yet), for every path: the host name, the origin, the token and the body
    /// size. A refusal is answered here and the connection closed unread (`refuseEarly`): libsoup would read (and hold)
    /// the whole body first unless the client sent `Expect: 100-continue`. Every answer but the WebSocket's closes its
    /// connection, so each request line passes the `RequestGate`.
    private func screen(_ message: OpaquePointer) {
        let request = Request(message)
        if request.path != "/ws" {
            soup_message_headers_replace(soup_server_message_get_response_headers(message), "Connection", "close")
        }
        if let (status, reason) = refusal(request) {
            // A browser opening the page without the token gets a page that says what to do; API clients the JSON.
            let answer =
                status == 401 && TokenPage.isWanted(accept: request.header("Accept"))
                ? Refusal.answer(
                    status: status, type: "text/html; charset=utf-8", body: Data(TokenPage.html.utf8), head: request.method == "HEAD")
                : Refusal.answer(status: status, json: ["ok": false, "error": reason], head: request.method == "HEAD")
            refuseEarly(message, answer: answer)
            return
        }
        // A body of no declared length (chunked) is counted as it comes: refused once it passes the limit.
        let headers = soup_server_message_get_request_headers(message)
        guard soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CHUNKED else { return }
        typealias Chunk = @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void
        let chunk: Chunk = { message, _, data in
            guard let message, let server = SignalConnection.handler(data, as: WeakReference<WebServer>.self)?.object,
                let body = soup_server_message_get_request_body(message), body.pointee.length > WebServer.maxBody
            else { return }
            server.refuseEarly(
                message,
                answer: Refusal.answer(
                    status: 413, json: ["ok": false, "error": server.tooLarge],
                    head: Request(message).method == "HEAD"))
        }
        do {
            try SignalConnection.forLifetime(
                of: UnsafeMutableRawPointer(message), signal: "got-chunk", handler: WeakReference(self),
                trampoline: chunk)
        } catch {
            // A chunked body then goes uncounted until libsoup has it whole, and is refused there.
            DebugLog.warning("web: \(error)")
        }
    }

    private var tooLarge: String { "the request body is over \(Self.maxBody / 1024) KiB" }

    /// Why a request is refused before its body is read, in this order: a host name that is not this server's (no
    /// token only), a foreign origin on a command or a WebSocket, a missing token, a body over the limit.
    private func refusal(_ request: Request) -> (status: Int, reason: String)? {
        let host = request.header("Host")
        // A metrics-only server answers to any name a scraper uses: it reads counters and changes nothing, so a page on
        // another site that re-points a name at it learns only numbers.
        if options.token == nil, options.servesPage, !OriginPolicy.isLocal(host: host, bound: options.host, port: port) {
            let named = (host ?? "none").escapingControls
            let scheme = options.servesTLS ? "https" : "http"
            return (
                403,
                "this camera answers only to its own address (\(scheme)://127.0.0.1:\(port)/ or \(scheme)://localhost:\(port)/), not to host \(named)"
            )
        }
        let changes = !["GET", "HEAD"].contains(request.method) || request.path == "/ws"
        if changes, let origin = request.header("Origin"), !OriginPolicy.isSameOrigin(origin, host: host, secure: options.servesTLS) {
            return (403, "commands come from this camera's own page, not from \(origin.escapingControls)")
        }
        if let token = options.token {
            // The page's `?token=` before the cookie: the URL just opened replaces a cookie an earlier token left.
            let offered =
                request.header("X-SwiftCam-Token")
                ?? request.bearerToken
                ?? (request.path == "/" ? request.query["token"] : nil)
                ?? request.cookie("swiftcam-token")
            guard let offered, constantTimeEqual(offered, token) else {
                return (401, "this camera needs its token: open the URL swiftcam printed (…/?token=…)")
            }
        }
        let length = soup_message_headers_get_content_length(soup_server_message_get_request_headers(request.message))
        if length > Int64(Self.maxBody) { return (413, tooLarge) }
        return nil
    }

    /// Answers a refused request itself and closes the connection without reading the body: the connection is taken
    /// from libsoup (`soup_server_message_steal_connection`), so `message` must not be touched after this.
    private func refuseEarly(_ message: OpaquePointer, answer: Data) {
        guard let held = soup_server_message_steal_connection(message).map({ ObjectReference(adopting: $0) }) else { return }
        defer { withExtendedLifetime(held) {} }
        let stream = held.pointer(to: GIOStream.self)
        guard let socket = CSoup_stream_socket(stream) else {
            // Not a socket underneath (never with the gate's connections): closed unanswered rather than read.
            g_io_stream_close(stream, nil, nil)
            return
        }
        Refusal(answer: answer, socket: socket, stream: stream)
    }

    /// The handler for every path but the WebSocket.
    /// `encodedPath` is the request's path as sent, less the dot segments libsoup (GLib) removes (RFC 3986): a capture's
    /// name is decoded by `serveCapture` alone, so an encoded "/" or ".." in it never becomes a path separator.
    private func route(_ message: OpaquePointer, path encodedPath: String) {
        let capturePrefix = "/captures/"
        let path = encodedPath.hasPrefix(capturePrefix) ? capturePrefix : (encodedPath.percentDecoded ?? "")
        let request = Request(message)
        let method = request.method
        let body = request.body
        if body.count > Self.maxBody {
            respond(message, status: 413, json: ["ok": false, "error": tooLarge])
            return
        }
        switch (method, path) {
        case ("GET", "/metrics"), ("HEAD", "/metrics"):
            serveMetrics(message)
        case (_, _) where !options.servesPage:
            respond(message, status: 404, json: ["ok": false, "error": "this address serves only /metrics"])
        case ("GET", "/"), ("HEAD", "/"):
            if let token = options.token, request.query["token"] != nil {
                let headers = soup_server_message_get_response_headers(message)
                soup_message_headers_append(
                    headers, "Set-Cookie",
                    "swiftcam-token=\(token); Path=/; HttpOnly; SameSite=Strict" + (options.servesTLS ? "; Secure" : ""))
                // A relative Location: libsoup's set_redirect makes it absolute from a URI whose scheme is http:// even
                // when the page is HTTPS (TLS ends before libsoup), and the browser would follow it to plain HTTP.
                soup_server_message_set_status(message, 303, nil)
                soup_message_headers_replace(headers, "Location", "/")
                return
            }
            serveAsset("index.html", message)
        case ("GET", "/app.js"), ("GET", "/gestures.js"), ("GET", "/style.css"), ("GET", "/favicon.svg"),
            ("HEAD", "/app.js"), ("HEAD", "/gestures.js"), ("HEAD", "/style.css"), ("HEAD", "/favicon.svg"):
            serveAsset(String(path.dropFirst()), message)
        case ("GET", "/api/status"):
            respond(message, status: 200, json: stateJSON())
        case ("GET", "/api/filters"):
            respond(message, status: 200, json: ["filters": FilterCatalogJSON.all])
        case ("GET", "/api/gallery"):
            respond(message, status: 200, json: ["items": galleryJSON()])
        case ("GET", "/api/stats"):
            run(.stats(json: true), message)
        case ("GET", "/stream.mjpg"):
            let limit = options.limits.maxConnections
            if !video.addMJPEGViewer(message, limit: limit) {
                respond(
                    message, status: 503,
                    json: ["ok": false, "error": "this camera has \(limit) MJPEG readers, its limit: close one and try again"])
            }
        case ("POST", _) where path.hasPrefix("/api/"):
            let name = String(path.dropFirst(5))
            let command: Command
            do {
                command = try APICommand.parse(name: name, body: body, permissions: interpreter.permissions)
            } catch let error as APIError {
                respond(message, status: error.status, json: ["ok": false, "error": error.description])
                return
            } catch {
                respond(message, status: 400, json: ["ok": false, "error": "\(error)"])
                return
            }
            run(command, message)
        case ("GET", capturePrefix), ("HEAD", capturePrefix):  // libsoup sends HEAD's headers only
            serveCapture(named: String(encodedPath.dropFirst(capturePrefix.count)), message)
        case (_, _) where path.hasPrefix("/api/"):
            respond(
                message, status: 405, json: ["ok": false, "error": "\(method) is not allowed on \(path); commands are POST, listings GET"])
        default:
            respond(message, status: 404, json: ["ok": false, "error": "no such page"])
        }
    }

    /// Runs a command off the loop thread (it may wait for a frame or a file's end) and answers through the loop.
    private func run(_ command: Command, _ message: OpaquePointer) {
        soup_server_message_pause(message)
        let held = ObjectReference(retaining: message)  // touched again only on the loop thread
        commands.async { [self] in
            let reply = interpreter.execute(command)
            var json: [String: Any]
            let status: Int
            switch reply {
            case let .ok(detail):
                status = 200
                if case .stats = command, let stats = try? JSONValue.parse(detail) {
                    json = [
                        "ok": true, "stats": stats, "viewers": video.viewerCounts, "webrtcCodecs": video.webrtcCodecs, "live": liveJSON()
                    ]
                } else {
                    json = ["ok": true, "reply": detail.escapingControls]
                }
            case let .error(reason):
                status = 422
                json = ["ok": false, "error": reason.escapingControls]
            }
            json["command"] = command.description
            nonisolated(unsafe) let answer = json  // handed to the loop thread and read only there
            loop.invoke { [self] in
                respond(held.opaque, status: status, json: answer)
                soup_server_message_unpause(held.opaque)
            }
            switch command {
            case .snap, .recordStart, .recordStop, .switchCamera, .filter, .torch, .mirror: broadcastState()
            default: break
            }
        }
    }
}

/// Why the server could not start.
public enum WebServerError: Error, CustomStringConvertible {
    /// Binding failed (address in use, not ours, bad address).
    case cannotListen(address: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotListen(address, reason): "cannot serve the browser screen on \(address): \(reason)"
        }
    }
}
