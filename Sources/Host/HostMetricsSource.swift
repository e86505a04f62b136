import Base
import Capture
import Config
import Publish
import Synchronization
import Web

/// What `/metrics` reports while a host runs, read at each scrape: the session's counters, the page's viewers and
/// where each output it publishes stands. The page's server and the metrics-only server read the same.
final class HostMetricsSource: Sendable {
    private let session: CaptureSession
    private let page: @Sendable () -> WebServer?
    private let publishing = Locked<PublishService?>(nil)

    /// The figures of `session`; `page` is the camera page's server, whose viewers are counted (nil while none serves).
    init(session: CaptureSession, page: @escaping @Sendable () -> WebServer?) {
        self.session = session
        self.page = page
    }

    /// Adds the outputs `service` runs, once they have started.
    func publish(_ service: PublishService?) {
        publishing.withLock { $0 = service }
    }

    /// The figures now.
    func snapshot() -> HostMetrics {
        var outputs: [HostMetrics.PublishMetrics] = []
        let service = publishing.withLock { $0 }
        if let server = service?.server {
            outputs.append(.rtspServer(clients: server.clients, framesSent: server.framesSent))
        }
        var rtmp = 0
        for publisher in service?.publishers ?? [] {
            var output = "push"
            if publisher.target.scheme.isRTMP {
                rtmp += 1
                output = rtmp == 1 ? "rtmp" : "rtmp-\(rtmp)"
            }
            outputs.append(
                .push(output: output, state: publisher.metricsState, failures: publisher.failuresInAll, framesSent: publisher.framesSent))
        }
        if let janus = service?.janus {
            outputs.append(.push(output: "janus", state: janus.metricsState, failures: janus.failuresInAll, framesSent: janus.framesSent))
        }
        let server = page()
        var metrics = HostMetrics(session: session.metrics, viewers: server?.viewerCounts ?? ["webrtc": 0, "mjpeg": 0], publish: outputs)
        metrics.webrtcCodecs = server?.webrtcCodecs ?? [:]
        return metrics
    }

    /// Starts a server that answers `/metrics` only, at `options`.
    func serve(_ options: WebOptions, interpreter: CommandInterpreter) throws -> WebServer {
        var options = options
        options.servesPage = false
        let server = WebServer(
            session: session, interpreter: interpreter, options: options, galleryDirectories: [],
            metrics: { [self] in snapshot() })
        do {
            try server.start()
        } catch let WebServerError.cannotListen(address, reason) {
            throw MetricsServerError(address: address, reason: reason)
        }
        return server
    }
}

/// The metrics-only server could not bind (said as such, not as the camera page's).
public struct MetricsServerError: Error, CustomStringConvertible {
    /// The address asked for.
    public let address: String
    /// Why it could not listen there.
    public let reason: String

    /// One sentence naming the address.
    public var description: String { "cannot serve /metrics on \(address): \(reason)" }
}
