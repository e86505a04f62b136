public import Capture

/// What happened in a host, in order, for whoever reports it (the executable prints each; a service manager or a
/// metrics endpoint would watch the same stream). Delivered on the host's threads: an observer returns quickly.
public enum HostEvent: Sendable {
    /// The session said something (on its bus thread): a still, a failure, a notice.
    case session(SessionEvent)
    /// The camera page serves at `url`.
    case cameraScreen(url: String)
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
}
