import FoundationEssentials

/// How many connections a transport keeps open at once and how long one may stay silent: the control socket's and the
/// page's WebSocket's. A connection over `maxConnections` is refused with a one-line reason and closed; one that sends
/// nothing for `idleSeconds` is closed. Every open connection holds a thread (control) or a WebRTC viewer (page), so
/// both bound what clients can make the host hold.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once (1...4096).
    public var maxConnections: Int
    /// Seconds a connection may send nothing before it is closed (1...86400).
    public var idleSeconds: Int

    /// Clamps both to their ranges.
    public init(maxConnections: Int, idleSeconds: Int) {
        self.maxConnections = min(max(maxConnections, 1), 4096)
        self.idleSeconds = min(max(idleSeconds, 1), 86400)
    }

    /// The control socket's: 16 connections, 300 s idle (`swiftcam ctl` connects for one command; an interactive
    /// client has five minutes between lines); `SWIFTCAM_CONTROL_MAX_CONNECTIONS` and `SWIFTCAM_CONTROL_IDLE_SECONDS`
    /// change them.
    public static var control: ConnectionLimits {
        ConnectionLimits(environmentPrefix: "SWIFTCAM_CONTROL", default: ConnectionLimits(maxConnections: 16, idleSeconds: 300))
    }

    /// `default`, less what `PREFIX_MAX_CONNECTIONS` and `PREFIX_IDLE_SECONDS` set (whole numbers, clamped to the ranges;
    /// anything else is ignored).
    public init(environmentPrefix prefix: String, default standard: ConnectionLimits, environment: [String: String]? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.init(
            maxConnections: environment["\(prefix)_MAX_CONNECTIONS"].flatMap { Int($0) } ?? standard.maxConnections,
            idleSeconds: environment["\(prefix)_IDLE_SECONDS"].flatMap { Int($0) } ?? standard.idleSeconds)
    }
}
