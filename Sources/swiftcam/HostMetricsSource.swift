import Capture
import Publish
import Synchronization
import Web

/// What `/metrics` reports while `run` runs, read at each scrape: the session's counters, the page's viewers and where
/// each output it publishes stands. The page's server and the `--metrics` server read the same.
final class HostMetricsSource: Sendable {
    private let session: CaptureSession
    private let page: WebServerSlot
    private let publishing = Mutex<PublishService?>(nil)

    init(session: CaptureSession, page: WebServerSlot) {
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
            outputs.append(.init(output: "rtsp", state: "serving", states: ["serving"], clients: server.clients, failures: 0,
                                 framesSent: server.framesSent))
        }
        if let publisher = service?.publisher {
            let state = switch publisher.phase {
            case .connecting: "connecting"
            case .connected: "connected"
            case .retrying: "retrying"
            case .stopped: "stopped"
            }
            outputs.append(.init(output: "push", state: state, states: ["connecting", "connected", "retrying", "stopped"],
                                 clients: state == "connected" ? 1 : 0, failures: publisher.failuresInAll, framesSent: publisher.framesSent))
        }
        let viewers = page.withLock { $0 }?.viewerCounts ?? ["webrtc": 0, "mjpeg": 0]
        return HostMetrics(session: session.metrics, viewers: viewers, publish: outputs)
    }

    /// `--metrics [ADDR:]PORT`: the options of a server that answers `/metrics` only; nil without the option.
    static func options(_ text: String?) throws -> WebOptions? {
        guard let text else { return nil }
        guard !text.isEmpty, var options = try? WebOptions(parsing: text) else {
            throw UsageError("--metrics takes [ADDR:]PORT with a numeric address and a port from 0 to 65535, e.g. --metrics 9464 "
                             + "or --metrics 0.0.0.0:9464 (got '\(text.terminalSafe)')")
        }
        options.servesPage = false
        return options
    }

    /// Starts the `--metrics` server (none without options) and says where it listens.
    func serve(_ options: WebOptions?, interpreter: CommandInterpreter) throws -> WebServer? {
        guard let options else { return nil }
        let server = WebServer(session: session, interpreter: interpreter, options: options, galleryDirectories: [], metrics: { [self] in snapshot() })
        do {
            try server.start()
        } catch let WebServerError.cannotListen(address, reason) {
            throw MetricsServerError(address: address, reason: reason)
        }
        Output.line("metrics \(options.url(port: server.port))metrics")
        return server
    }
}

/// The `--metrics` server could not bind (said as such, not as the browser screen's).
struct MetricsServerError: Error, CustomStringConvertible {
    let address: String
    let reason: String

    var description: String { "cannot serve /metrics on \(address): \(reason)" }
}
