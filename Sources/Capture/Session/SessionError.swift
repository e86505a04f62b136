public import Base
import Glibc

/// What a running session's commands can fail with. Every case reads as one sentence a user can act on.
public enum SessionError: CategorizedError, Sendable, Equatable {
    /// The session is not playing.
    case notRunning
    /// The source has no hardware for this, and there is no software fallback.
    case notSupported(feature: String, source: String)
    /// `switch` needs two sources.
    case singleSource
    /// A raw launch config lacks the element this command drives.
    case missingElement(name: String, command: String)
    /// A still could not be made.
    case snapshotFailed(reason: String)
    /// A file or directory could not be written.
    case cannotWrite(path: String, reason: String)
    /// As `cannotWrite`, because this user may not write there (EACCES, EPERM): exit 77, not 73 or 74.
    case notPermitted(path: String, reason: String)
    /// `record start` while recording.
    case alreadyRecording(path: String)
    /// `record stop` while not recording.
    case notRecording
    /// The recording branch failed.
    case recordingFailed(reason: String)
    /// A branch on the tee (a recording's or a live stream's feed) would not start.
    case branchFailed(name: String)
    /// The shared live encoder could not start.
    case liveFailed(reason: String)
    /// A command did not parse.
    case badCommand(String)

    public var description: String {
        switch self {
        case .notRunning:
            "the pipeline is not running"
        case let .notSupported(feature, source):
            "\(feature) is not supported by this source (\(source))"
        case .singleSource:
            "switch needs a config with two sources"
        case let .missingElement(name, command):
            "'\(command)' needs an element named '\(name)' in the pipeline"
        case let .snapshotFailed(reason):
            "snapshot failed: \(reason)"
        case let .cannotWrite(path, reason), let .notPermitted(path, reason):
            "cannot write \(path): \(reason)"
        case let .alreadyRecording(path):
            "already recording to \(path)"
        case .notRecording:
            "not recording"
        case let .recordingFailed(reason):
            "recording failed: \(reason)"
        case let .branchFailed(name):
            "the \(name) branch would not start"
        case let .liveFailed(reason):
            "live stream failed: \(reason)"
        case let .badCommand(text):
            text
        }
    }

    /// Bad commands and values are bad data; what the source or session cannot do is unavailable.
    public var kind: FailureKind {
        switch self {
        case .badCommand, .singleSource, .missingElement: .badData
        case .notRunning, .notSupported, .alreadyRecording, .notRecording: .unavailable
        case .cannotWrite: .cannotCreate
        case .notPermitted: .permission
        case .snapshotFailed, .recordingFailed: .ioError
        case .branchFailed, .liveFailed: .software
        }
    }
}

/// Why `start` failed, carrying the status.
public struct StartError: CategorizedError, Sendable {
    /// The status the session ended in.
    public let status: CameraStatus
    public var description: String { "status \(status)" }
    /// The status's kind (`CameraStatus.kind`).
    public var kind: FailureKind { status.kind }
}

extension CameraStatus {
    /// How a session that ended in this status is reported (`run`'s exit code): `unauthorized` → permission,
    /// `unconfigured` and `busy` → unavailable, a camera that went away → unavailable, one that cannot deliver the
    /// format asked → bad data (the config asks for it), other failures → software.
    public var kind: FailureKind {
        switch self {
        case .unauthorized: .permission
        case .unconfigured, .busy: .unavailable
        case .configured, .failed: .software
        case let .cameraFailed(failure):
            switch failure.cause {
            case .permissionDenied: .permission
            case .gone, .busy: .unavailable
            case .refusedFormat, .noMode: .badData
            case .stoppedSending, .wouldNotStart, .stalled, .streamingError, .childEnded: .software
            }
        }
    }
}

extension SessionError {
    /// `cannotWrite`, or `notPermitted` when `code` (an errno) says this user may not write `path`.
    static func writeFailure(path: String, code: Int32 = errno, reason: String? = nil) -> SessionError {
        let text = reason ?? errnoText(code)
        return code == EACCES || code == EPERM ? .notPermitted(path: path, reason: text) : .cannotWrite(path: path, reason: text)
    }
}
