import Capture
public import Config
public import Web

/// What a host runs and how: a value, made by whoever starts the host (the `swiftcam run` command line, a test).
public struct HostOptions: Sendable {
    /// The session's name: the control socket's, the RTSP path's, the one reported.
    public var name: String
    /// The pipeline config, loaded and validated.
    public var config: PipelineConfig
    /// The camera page's address and token, when the page is served.
    public var web: WebOptions?
    /// The address of a server that answers `GET /metrics` only (the page's server answers it too).
    public var metrics: WebOptions?
    /// Whether the control socket listens (`swiftcam ctl NAME …`).
    public var controlSocket = true
    /// Whether a `.stats` event comes every second while the session runs.
    public var reportsStats = true
    /// Whether SIGINT, SIGTERM and SIGHUP reach this host. A signal is the whole process's: every host taking them
    /// hears each one.
    public var handlesSignals = true

    /// Re-reads the config for a reload (SIGHUP, `CameraHost.reload()`); it throws the config's error (file, key,
    /// reason). Nil: SIGHUP stops the host, as a terminal going away.
    public var reload: (@Sendable () throws -> PipelineConfig)?
    /// The service manager that started the process (systemd: `ServiceManager(environment:)`), told of readiness,
    /// the watchdog, the status, reloads and the stop; nil tells no one.
    public var serviceManager: ServiceManager?
    /// A test hook: after this many filtered frames the sources pause (no error, the process runs on), as a hung
    /// camera would; the service manager's watchdog then stops hearing from the host. Nil in normal use.
    public var stallAfterFrames: Int?

    /// A host for `config` under `name`, with the control socket, a stats line a second and the signals.
    public init(name: String, config: PipelineConfig) {
        self.name = name
        self.config = config
    }
}
