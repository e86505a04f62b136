public import Capture
import FoundationEssentials

/// What a config's `"publish"` asks for, running: the RTSP server and the push, both fed from the same
/// encoded stream, both reported in the session's `stats`.
public final class PublishService: Sendable {
    /// The RTSP server, when `publish.rtsp` is set.
    public let server: RTSPServer?
    /// The push, when `publish.to` is set.
    public let publisher: Publisher?

    /// Starts what `config` asks for. `name` is the session's name (the default path is `/NAME`); credentials
    /// missing from the config come from `SWIFTCAM_RTSP_USER` and `SWIFTCAM_RTSP_PASSWORD` in `environment`.
    public init(
        config: PublishConfig, name: String, stream: any LiveStream,
        environment: [String: String]? = nil
    ) throws(PublishError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        try Self.check(config, name: name, environment: environment)
        if let rtsp = config.rtsp {
            server = try RTSPServer(settings: .init(config: rtsp, name: name, environment: environment), stream: stream)
        } else {
            server = nil
        }
        if let to = config.to, let target = PublishTarget(to) {
            do {
                publisher = try Publisher(target: target, stream: stream)
            } catch {
                server?.stop()
                throw error
            }
        } else {
            publisher = nil
        }
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
        return lines
    }

    /// Adds the server's and the push's state to the session's `stats`.
    public func report(to session: CaptureSession) {
        if let server { session.setReport("publish-rtsp") { server.report } }
        if let publisher { session.setReport("publish-push") { publisher.report } }
    }

    /// Stops both; idempotent.
    public func stop() {
        publisher?.stop()
        server?.stop()
    }
}
