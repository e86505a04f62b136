import Base
import CGstRTSPServer
import Capture
public import Config
import FoundationEssentials
import GStreamer
import Glibc
import Synchronization

/// An RTSP server for one stream (gst-rtsp-server on a GLib main context and thread of its own): one
/// shared media, fed from one subscription to the live stream however many clients read it, over RTP/UDP
/// and RTP/TCP (interleaved). A client joining a playing media gets a key frame at once.
/// Unchecked Sendable: every field is immutable after `init` (the GStreamer objects are reference-counted and
/// thread-safe), the counts are atomics, and `stop` runs its teardown once, guarded by the atomic `stopped`.
public final class RTSPServer: @unchecked Sendable {
    /// Where and how it serves.
    public struct Settings: Sendable, Equatable {
        /// The address to listen on ("127.0.0.1", "0.0.0.0", "::1", …).
        public var address: String
        /// The TCP port; 0 picks a free one (`port` then says which).
        public var port: Int
        /// The mount path, e.g. "/cam".
        public var path: String
        /// Basic and digest credentials; nil serves anyone who can reach the address.
        public var user: String?
        public var password: String?

        public init(address: String = "127.0.0.1", port: Int = 8554, path: String, user: String? = nil, password: String? = nil) {
            (self.address, self.port, self.path, self.user, self.password) = (address, port, path, user, password)
        }

        /// A config's `publish.rtsp` with its defaults: 127.0.0.1, port 8554, path `/NAME`; credentials missing
        /// from the config come from `SWIFTCAM_RTSP_USER` and `SWIFTCAM_RTSP_PASSWORD` in `environment`.
        public init(config: RTSPServeConfig, name: String, environment: [String: String]) {
            let fromEnvironment = { (key: String) in environment[key].flatMap { $0.isEmpty ? nil : $0 } }
            self.init(
                address: config.address.flatMap(PublishAddress.parse) ?? "127.0.0.1", port: config.port ?? 8554,
                path: config.path ?? "/\(name)", user: config.user ?? fromEnvironment("SWIFTCAM_RTSP_USER"),
                password: config.password ?? fromEnvironment("SWIFTCAM_RTSP_PASSWORD"))
        }

        /// Throws when these settings cannot be served: beyond loopback without a user and password.
        public func check() throws(PublishError) {
            if !PublishAddress.isLoopback(address), user == nil || password == nil {
                throw .credentialsRequired(address: address)
            }
        }

        /// Whether clients must authenticate.
        public var authenticates: Bool { user != nil && password != nil }
    }

    /// The settings it was started with.
    public let settings: Settings
    /// The port it listens on (the one picked when `settings.port` was 0).
    public let port: Int
    private let relay: StreamRelay
    private let thread = MainContextThread(name: "swiftcam-rtsp")
    private let server: ObjectReference
    private let factory: ObjectReference
    private let sourceID: guint
    private let handlers: Handlers
    private let connections: [SignalConnection]
    private let stopped = Atomic<Bool>(false)

    /// Starts serving `stream`. Throws when the port is taken or credentials are missing beyond loopback.
    public init(settings: Settings, stream: any LiveStream) throws(PublishError) {
        GStreamer.initialize()
        try settings.check()
        for element in ["appsrc", stream.payloader, "udpsink", "rtpbin"] where !Element.factoryExists(element) {
            throw .missing(element: element, package: "gstreamer1.0-plugins-good and gstreamer1.0-plugins-base")
        }
        self.settings = settings
        relay = StreamRelay(stream: stream)
        let serverReference = ObjectReference(adopting: gst_rtsp_server_new())
        self.server = serverReference
        let server = serverReference.pointer(to: GstRTSPServer.self)
        gst_rtsp_server_set_address(server, settings.address)
        gst_rtsp_server_set_service(server, "\(settings.port)")

        let factoryReference = ObjectReference(adopting: gst_rtsp_media_factory_new())
        self.factory = factoryReference
        let factory = factoryReference.pointer(to: GstRTSPMediaFactory.self)
        gst_rtsp_media_factory_set_launch(factory, Self.launch(payloader: stream.payloader))
        gst_rtsp_media_factory_set_shared(factory, 1)
        gst_rtsp_media_factory_set_protocols(
            factory, GstRTSPLowerTrans(GST_RTSP_LOWER_TRANS_UDP.rawValue | GST_RTSP_LOWER_TRANS_TCP.rawValue))
        // The stream is live: a client that pauses does not hold it for the others.
        gst_rtsp_media_factory_set_suspend_mode(factory, GST_RTSP_SUSPEND_MODE_NONE)

        let handlers = Handlers(relay: relay)
        self.handlers = handlers
        do {
            connections = [
                try SignalConnection(
                    to: UnsafeMutableRawPointer(factory), signal: "media-configure", handler: handlers,
                    trampoline: Self.mediaConfigure),
                try SignalConnection(
                    to: UnsafeMutableRawPointer(server), signal: "client-connected", handler: handlers,
                    trampoline: Self.clientConnected)
            ]
        } catch {
            throw .setup(error.description)
        }

        if let user = settings.user, let password = settings.password {
            let auth = ObjectReference(adopting: gst_rtsp_auth_new())
            defer { withExtendedLifetime(auth) {} }
            gst_rtsp_auth_set_supported_methods(
                auth.pointer(to: GstRTSPAuth.self),
                GstRTSPAuthMethod(GST_RTSP_AUTH_BASIC.rawValue | GST_RTSP_AUTH_DIGEST.rawValue))
            let token = CGstRTSPServer_token_for_role("viewer")
            if let basic = gst_rtsp_auth_make_basic(user, password) {
                gst_rtsp_auth_add_basic(auth.pointer(to: GstRTSPAuth.self), basic, token)
                g_free(basic)
            }
            gst_rtsp_auth_add_digest(auth.pointer(to: GstRTSPAuth.self), user, password, token)
            gst_rtsp_token_unref(token)
            CGstRTSPServer_allow_role(factory, "viewer")
            gst_rtsp_server_set_auth(server, auth.pointer(to: GstRTSPAuth.self))
        }

        let mounts = ObjectReference(adopting: gst_rtsp_server_get_mount_points(server))
        defer { withExtendedLifetime(mounts) {} }
        // The mount points take a reference of their own (transfer full); ours stays for `stop`.
        gst_rtsp_mount_points_add_factory(
            mounts.pointer(to: GstRTSPMountPoints.self), settings.path,
            factoryReference.newReference().assumingMemoryBound(to: GstRTSPMediaFactory.self))

        sourceID = gst_rtsp_server_attach(server, thread.context)
        guard sourceID != 0 else {
            throw .cannotListen(
                address: settings.address, port: settings.port,
                reason: Self.bindProblem(address: settings.address, port: settings.port))
        }
        port = Int(gst_rtsp_server_get_bound_port(server))
        thread.start()
    }

    deinit {
        stop()
    }

    /// The URL clients read, with this machine's name when it listens on every interface.
    public var url: String { Self.url(address: settings.address, port: port, path: settings.path) }

    /// `rtsp://HOST:PORT/PATH` for an address, with this machine's name for "every interface".
    static func url(address: String, port: Int, path: String) -> String {
        "rtsp://\(URLHost.forAddress(address)):\(port)\(path)"
    }

    /// Clients connected now.
    public var clients: Int { handlers.clients.load(ordering: .relaxed) }

    /// Frames handed to the media's appsrc so far.
    public var framesSent: Int { relay.delivered.load(ordering: .relaxed) }

    /// One phrase for `stats`.
    public var report: String {
        "rtsp \(url) \(clients) client\(clients == 1 ? "" : "s") \(framesSent) frames"
    }

    /// Closes every client, stops listening and ends the server's thread; idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        CGstRTSPServer_remove_source(thread.context, sourceID)
        CGstRTSPServer_close_all_clients(server.pointer(to: GstRTSPServer.self))
        relay.close()
        thread.stop()
        for connection in connections { connection.disconnect() }
    }

    /// The media pipeline: a leaky live appsrc (the encoder never waits for a client) into the payloader.
    /// Built as a typed graph and printed; no config text goes into it.
    static func launch(payloader: String) -> String {
        var graph = GraphDescription()
        let source = graph.add(
            "appsrc", name: "src",
            [
                "is-live": true, "format": "time", "do-timestamp": true,
                "max-buffers": 30, "leaky-type": "downstream"
            ])
        var properties: [(String, GraphValue)] = [("pt", 96)]
        // SPS and PPS every second for clients that join late (-1, with every IDR, leaves openh264dec 1.22 decoding nothing).
        if payloader == "rtph264pay" { properties.append(("config-interval", 1)) }
        let pay = graph.add(payloader, name: "pay0", properties: properties)
        graph.chain(source, pay)
        return "( \(graph.launchText) )"
    }

    private static func bindProblem(address: String, port: Int) -> String {
        let descriptor = socket(address.contains(":") ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "no socket" }
        defer { close(descriptor) }
        func bindTo<Address>(_ socketAddress: Address) -> Int32 {
            withUnsafePointer(to: socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
            }
        }
        let result: Int32
        if address.contains(":") {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, address, &socketAddress.sin6_addr)
            result = bindTo(socketAddress)
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, address, &socketAddress.sin_addr)
            result = bindTo(socketAddress)
        }
        return result == 0 ? "GStreamer refused it" : SystemError.message(errno)
    }

    // MARK: - Signal handlers (on the server's thread or a media's; they never trap)

    /// What the signal handlers share. Each connection's box holds it, so a media or client that calls in after `stop`
    /// still finds it alive.
    final class Handlers: Sendable {
        let relay: StreamRelay
        let clients = Atomic<Int>(0)
        init(relay: StreamRelay) { self.relay = relay }
    }

    private typealias ObjectSignal = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    private typealias ObjectArgumentSignal =
        @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    /// A media was made (the first client of a shared one): feed its appsrc until it is unprepared.
    private static let mediaConfigure: ObjectArgumentSignal = { _, media, data in
        guard let media, let handlers = SignalConnection.handler(data, as: Handlers.self),
            let element = gst_rtsp_media_get_element(media.assumingMemoryBound(to: GstRTSPMedia.self))
        else { return }
        let bin = Bin(adopting: element)
        guard let source = bin.element(named: "src", as: AppSrc.self) else { return }
        let key = UInt(bitPattern: media)
        try? SignalConnection.forLifetime(of: media, signal: "unprepared", handler: handlers, trampoline: mediaUnprepared)
        do {
            try handlers.relay.attach(source, key: key)
        } catch {
            // No stream to feed (the session stopped): the media cannot prepare and the client is told so.
            bin.postError("no live stream: \(error)")
        }
    }

    private static let mediaUnprepared: ObjectSignal = { media, data in
        guard let media else { return }
        SignalConnection.handler(data, as: Handlers.self)?.relay.detach(key: UInt(bitPattern: media))
    }

    private static let clientConnected: ObjectArgumentSignal = { _, client, data in
        guard let client, let handlers = SignalConnection.handler(data, as: Handlers.self) else { return }
        handlers.clients.add(1, ordering: .relaxed)
        try? SignalConnection.forLifetime(of: client, signal: "play-request", handler: handlers, trampoline: playRequest)
        try? SignalConnection.forLifetime(of: client, signal: "closed", handler: handlers, trampoline: clientClosed)
    }

    /// A client started playing: when the media was already streaming, it needs a key frame now.
    private static let playRequest: ObjectArgumentSignal = { _, _, data in
        SignalConnection.handler(data, as: Handlers.self)?.relay.requestKeyFrame()
    }

    private static let clientClosed: ObjectSignal = { _, data in
        SignalConnection.handler(data, as: Handlers.self)?.clients.subtract(1, ordering: .relaxed)
    }
}
