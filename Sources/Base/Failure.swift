/// What kind of failure an error is, so every transport reports it the same way: the CLI maps a kind to
/// one sysexits code.
public enum FailureKind: Sendable, Equatable {
    /// The command line or request does not fit the command.
    case usage
    /// The input (a config, a spec, a value) is wrong.
    case badData
    /// A named input (config, device, file) does not exist.
    case noInput
    /// A needed service or device is missing, busy or gone.
    case unavailable
    /// An output (file, directory, socket) cannot be created.
    case cannotCreate
    /// Writing failed part-way (a full disk, an I/O error).
    case ioError
    /// This user may not do it.
    case permission
    /// Something inside SwiftCam or GStreamer failed.
    case software
}

/// An error that knows its `FailureKind`.
public protocol CategorizedError: Error, CustomStringConvertible {
    /// How this failure is reported.
    var kind: FailureKind { get }
}

extension FailureKind {
    /// The kind of any error: its own when it says, else `software`.
    public init(of error: any Error) {
        self = (error as? any CategorizedError)?.kind ?? .software
    }
}
