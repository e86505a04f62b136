public import Capture
import Foundation

/// What a config's `"publish"` asks for, running: the RTSP server and the push, both fed from the same
/// encoded stream, both reported in the session's `stats`.
public final class PublishService: Sendable {
    /// The RTSP server, when `publish.rtsp` is set.
    public let server: RTSPServer?
    /// The push, when `publish.to` is set.
    public let publisher: Publisher?

    /// Starts what `config` asks for. `name` is the session's name (the default path is `/NAME`); credentials
    /// missing from the config come from `SWIFTCAM_RTSP_USER` and `SWIFTCAM_RTSP_PASSWORD` in `environment`.
    public init(config: PublishConfig, name: String, stream: any LiveStream,
                environment: [String: String]? = nil) throws(PublishError) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        if let rtsp = config.rtsp {
            let settings = RTSPServer.Settings(
                address: rtsp.address.flatMap(PublishAddress.parse) ?? "127.0.0.1", port: rtsp.port ?? 8554,
                path: rtsp.path ?? "/\(name)",
                user: rtsp.user ?? environment["SWIFTCAM_RTSP_USER"].flatMap { $0.isEmpty ? nil : $0 },
                password: rtsp.password ?? environment["SWIFTCAM_RTSP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 })
            server = try RTSPServer(settings: settings, stream: stream)
        } else {
            server = nil
        }
        if let to = config.to {
            guard let target = PublishTarget(to) else {
                server?.stop()
                throw .setup(PublishTarget.problem(with: to) ?? "\(to) is not a push URL")
            }
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
