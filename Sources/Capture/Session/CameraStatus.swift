import Camera

/// Where a session stands, like AVFoundation's configured / unconfigured / unauthorized / failed,
/// each with a reason a person can act on.
public enum CameraStatus: Sendable, Equatable, CustomStringConvertible {
    /// Built and playing (or ready to play).
    case configured
    /// A camera is missing; the reason names it and lists the ones present.
    case unconfigured(reason: String)
    /// The camera exists but this user may not open it; the reason says how to fix that.
    case unauthorized(reason: String)
    /// Negotiation or a runtime error: the element and GStreamer's message.
    case failed(element: String, message: String)

    /// The case name, as printed in stats and checked by scripts.
    public var name: String {
        switch self {
        case .configured: "configured"
        case .unconfigured: "unconfigured"
        case .unauthorized: "unauthorized"
        case .failed: "failed"
        }
    }

    public var description: String {
        switch self {
        case .configured: "configured"
        case let .unconfigured(reason): "unconfigured: \(reason)"
        case let .unauthorized(reason): "unauthorized: \(reason)"
        // A device's own error already names it ("/dev/video0 is in use …"): said once.
        case let .failed(element, message): message.hasPrefix(element) ? "failed: \(message)" : "failed: \(element): \(message)"
        }
    }
}

extension CameraStatus {
    /// The status a camera that cannot be opened puts the session in: missing → `unconfigured`,
    /// forbidden → `unauthorized`, anything else → `failed` naming the device.
    init(opening path: String, error: DeviceError) {
        switch error {
        case .deviceNotFound, .deviceGone:
            self = .unconfigured(reason: error.description)
        case .permissionDenied:
            self = .unauthorized(reason: error.description)
        default:
            self = .failed(element: path, message: error.description)
        }
    }
}
