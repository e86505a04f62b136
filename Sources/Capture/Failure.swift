public import Base
public import Camera

extension DeviceError: CategorizedError {
    /// Missing → no input, forbidden → permission, busy or gone → unavailable, not a camera → bad data.
    public var kind: FailureKind {
        switch self {
        case .deviceNotFound: .noInput
        case .permissionDenied: .permission
        case .deviceBusy, .deviceGone, .ioctlFailed: .unavailable
        case .notACamera, .controlNotFound, .invalidControlValue: .badData
        }
    }
}

extension ModeChoiceError: CategorizedError {
    /// The config asks for what the camera cannot do: bad data, like any config value that cannot be served.
    public var kind: FailureKind { .badData }
}
