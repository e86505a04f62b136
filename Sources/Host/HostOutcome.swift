public import Base
public import Capture

/// How a host ended; the executable maps it to an exit code.
public enum HostOutcome: Sendable {
    /// It ran and ended as asked (its end, a limit, `quit`, a signal), every still and recording written.
    case stopped(HostSummary)
    /// It ran and the camera failed for good: the session's status when the host stopped.
    case cameraFailed(CameraStatus, HostSummary)
    /// It ran, and `count` stills or recordings failed along the way; `first` is the kind of the first failure.
    case outputsFailed(count: Int, first: FailureKind?, HostSummary)
    /// It did not start: what would be refused (publishing, a window without a display), the camera, publishing.
    case notStarted(any Error)
    /// The camera page could not serve.
    case pageUnavailable(any Error)
    /// The camera failed while starting, and the page showed why until a stop was asked for.
    case shownUntilStopped(any Error)

    /// What a host that ran left behind; nil when it did not run.
    public var summary: HostSummary? {
        switch self {
        case let .stopped(summary), let .cameraFailed(_, summary), let .outputsFailed(_, _, summary): summary
        case .notStarted, .pageUnavailable, .shownUntilStopped: nil
        }
    }
}

/// What a host that ran left behind.
public struct HostSummary: Sendable {
    /// The recording the stop finalized, when one was running and had not failed.
    public let recorded: String?
    /// The session's last stats line.
    public let stats: String
}
