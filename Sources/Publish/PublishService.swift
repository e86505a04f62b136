public import Capture
public import Config
import FoundationEssentials

/// What a config's `"publish"` asks for, running: the RTSP server and the pushes, all fed from the same
/// encoded stream, all reported in the session's `stats`.
public final class PublishService: Sendable {
    /// The RTSP server, when `publish.rtsp` is set.
    public let server: RTSPServer?
    /// The pushes: `publish.to`'s, then each of `publish.rtmp`'s.
    public let publishers: [Publisher]
    /// The Janus mountpoint's feed, when `publish.janus` is set.
    public let janus: JanusFeed?
    /// The camera page's viewers played through Janus, when `publish.janus` is set.
    public let janusViewers: JanusViewers?

    /// Starts what `config` asks for. `name` is the session's name (the default path is `/NAME`); credentials
    /// missing from the config come from `SWIFTCAM_RTSP_USER` and `SWIFTCAM_RTSP_PASSWORD` in `environment`.
    /// `onDemand` are the session's other codecs (VP8), fed to Janus while a page's viewer there needs them.
    public init(
        config: PublishConfig, name: String, stream: any LiveStream, onDemand: [any LiveStream] = [],
        environment: [String: String]? = nil
    ) throws(PublishError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        try Self.check(config, name: name, environment: environment)
        if let rtsp = config.rtsp {
            server = try RTSPServer(settings: .init(config: rtsp, name: name, environment: environment), stream: stream)
        } else {
            server = nil
        }
        var publishers: [Publisher] = []
        do {
            for target in try Self.pushTargets(config, environment: environment) {
                publishers.append(try Publisher(target: target, stream: stream))
            }
        } catch {
            publishers.forEach { $0.stop() }
            server?.stop()
            throw error
        }
        self.publishers = publishers
        if let janus = config.janus, let api = JanusAPI(janus.api) {
            do {
                let feed = try JanusFeed(
                    api: api, mountpoint: janus.mountpoint.map { UInt64($0) }, name: name, stream: stream, onDemand: onDemand)
                self.janus = feed
                janusViewers = JanusViewers(feed: feed)
            } catch {
                publishers.forEach { $0.stop() }
                server?.stop()
                throw error
            }
        } else {
            janus = nil
            janusViewers = nil
        }
    }

    /// Where `config` pushes: `to`, then each RTMP ingest with its key read now.
    private static func pushTargets(_ config: PublishConfig, environment: [String: String]) throws(PublishError) -> [PublishTarget] {
        var targets: [PublishTarget] = []
        if let to = config.to, let target = PublishTarget(to) { targets.append(target) }
        for ingest in config.rtmp ?? [] { targets.append(try RTMPIngest.target(ingest, environment: environment)) }
        return targets
    }

    /// Throws what would stop `config` from being published, before anything starts: an RTSP server beyond
    /// loopback without credentials, a push URL that cannot be pushed to. (A taken port shows only at start.)
    public static func check(_ config: PublishConfig, name: String, environment: [String: String]? = nil) throws(PublishError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        if let rtsp = config.rtsp {
            if rtsp.user == nil, rtsp.password == nil { try checkEnvironmentCredentials(environment) }
            try RTSPServer.Settings(config: rtsp, name: name, environment: environment).check()
        }
        if let to = config.to, PublishTarget(to) == nil {
            throw .setup(PublishTarget.problem(with: to) ?? "\(to) is not a push URL")
        }
        _ = try pushTargets(config, environment: environment)
        if let janus = config.janus, let problem = JanusAPI.problem(with: janus.api) { throw .setup(problem) }
    }

    /// `SWIFTCAM_RTSP_USER` and `SWIFTCAM_RTSP_PASSWORD` follow the config's rules: both or neither, a user name
    /// without ':', a password that is not empty.
    private static func checkEnvironmentCredentials(_ environment: [String: String]) throws(PublishError) {
        let user = environment["SWIFTCAM_RTSP_USER"], password = environment["SWIFTCAM_RTSP_PASSWORD"]
        if (user == nil) != (password == nil) {
            throw .badCredentials(
                variable: user == nil
                    ? "SWIFTCAM_RTSP_PASSWORD without SWIFTCAM_RTSP_USER" : "SWIFTCAM_RTSP_USER without SWIFTCAM_RTSP_PASSWORD",
                reason: "set both, or neither")
        }
        if let problem = user.flatMap(RTSPCredentials.userProblem) {
            throw .badCredentials(variable: "SWIFTCAM_RTSP_USER", reason: problem)
        }
        if let problem = password.flatMap(RTSPCredentials.passwordProblem) {
            throw .badCredentials(variable: "SWIFTCAM_RTSP_PASSWORD", reason: problem)
        }
    }

    /// What `config` publishes, one line each, for `swiftcam show`: the URL clients read (port 0: picked at
    /// start) and whether they authenticate, and where the stream is pushed (password hidden).
    public static func summary(_ config: PublishConfig, name: String, environment: [String: String]? = nil) -> [String] {
        let environment = environment ?? ProcessInfo.processInfo.environment
        var lines: [String] = []
        if let rtsp = config.rtsp {
            let settings = RTSPServer.Settings(config: rtsp, name: name, environment: environment)
            let url = RTSPServer.url(address: settings.address, port: settings.port, path: settings.path)
                .replacing(":0/", with: ":PORT/")
            let access =
                settings.authenticates
                ? "basic or digest authentication as \"\(settings.user ?? "")\""
                : PublishAddress.isLoopback(settings.address)
                    ? "no authentication (loopback only)"
                    : "refused at start: no user and password (publish.rtsp.user/password or SWIFTCAM_RTSP_USER/PASSWORD)"
            lines.append("serve \(url) (RTP over UDP or TCP, one shared media; \(access))")
        }
        if let to = config.to {
            if let target = PublishTarget(to) {
                let how = target.scheme == .rtsp ? "RTSP RECORD with rtspclientsink" : "MPEG-TS over SRT with srtsink"
                lines.append("push \(target.redacted) (\(how); retried with backoff up to \(Int(Publisher.maxBackoff)) s)")
            } else {
                lines.append("push \(to): \(PublishTarget.problem(with: to) ?? "not a push URL")")
            }
        }
        for ingest in config.rtmp ?? [] {
            let key =
                ingest.keyFile.map { " (stream key from \($0))" } ?? ingest.keyEnvironment.map { " (stream key from $\($0))" } ?? ""
            let url = ingest.keyFile == nil && ingest.keyEnvironment == nil ? ingest.url : ingest.url + "/KEY"
            let tls = url.lowercased().hasPrefix("rtmps://") ? " over TLS" : ""
            lines.append(
                "push \(PublishTarget.redacted(url))\(key) (FLV over RTMP\(tls) with rtmp2sink; retried with backoff up to \(Int(Publisher.maxBackoff)) s)"
            )
        }
        if let janus = config.janus {
            let id = janus.mountpoint.map { UInt64($0) } ?? JanusFeed.mountpointID(for: name)
            lines.append(
                "feed Janus \(janus.api) mountpoint \(id) (RTP H.264, VP8 while a page needs it; made over its HTTP API, made again after a restart; the camera page plays through it)"
            )
        }
        return lines
    }

    /// Adds the server's and each push's state to the session's `stats`.
    public func report(to session: CaptureSession) {
        if let server { session.setReport("publish-rtsp") { server.report } }
        for (index, publisher) in publishers.enumerated() {
            session.setReport(index == 0 ? "publish-push" : "publish-push-\(index + 1)") { publisher.report }
        }
        if let janus { session.setReport("publish-janus") { janus.report } }
    }

    /// Stops the server and every push; idempotent.
    public func stop() {
        janusViewers?.stop()
        janus?.stop()
        publishers.forEach { $0.stop() }
        server?.stop()
    }
}
