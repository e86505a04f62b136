public import Capture

/// What happened in a host, in order, for whoever reports it (the executable prints each; a service manager or a
/// metrics endpoint would watch the same stream). Delivered on the host's threads: an observer returns quickly.
public enum HostEvent: Sendable {
    /// The session said something (on its bus thread): a still, a failure, a notice.
    case session(SessionEvent)
    /// The camera page serves at `url` (one event for each URL that opens it).
    case cameraScreen(url: String)
    /// The page's HTTPS certificate, after its URLs: its SHA-256 fingerprint (what a browser shows) and where it is.
    case certificate(fingerprint: String, origin: String)
    /// The metrics-only server serves `GET /metrics` at `url`.
    case metrics(url: String)
    /// The camera failed while starting; the page (or `/metrics`) shows why until a stop is asked for.
    case showingFailure(any Error)
    /// The RTSP server serves at `url`.
    case rtsp(url: String)
    /// The stream is pushed to `target` (credentials left out).
    case pushing(target: String)
    /// The session plays; `description` is the config's.
    case running(name: String, description: String?)
    /// The control socket listens at `path`.
    case controlSocket(path: String)
    /// The control socket could not listen; the host runs without it.
    case controlSocketUnavailable(any Error)
    /// Everything is up: the session plays and every transport listens. The console (standard input) may send
    /// commands to `console` from now on.
    case ready(console: CommandInterpreter)
    /// The stats line, every second while the session runs (`HostOptions.reportsStats`).
    case stats(String)
    /// A reload (SIGHUP) read the config and did what it asks.
    case reloaded(ReloadOutcome)
    /// A reload could not use the config (it does not load, or would not start): the running one goes on.
    case reloadFailed(any Error)
}

/// What a reload did.
public enum ReloadOutcome: Sendable, Equatable {
    /// The config is as it was.
    case unchanged
    /// Only the filter changed: set on the running graph; `detail` is what the `filter` command answers.
    case filterChanged(String)
    /// More than the filter changed (`changed`: the config's top-level keys): the graph is rebuilt with the new config.
    case restarting(changed: [String])
}

/// Why a reload left the running config in place, besides the config's own error.
public enum ReloadError: Error, CustomStringConvertible {
    /// The running graph refused the new filter chain; `reply` is the `filter` command's answer.
    case filterRefused(reply: String)

    /// One sentence.
    public var description: String {
        switch self {
        case let .filterRefused(reply): "the running graph refused the new filter: \(reply)"
        }
    }
}
