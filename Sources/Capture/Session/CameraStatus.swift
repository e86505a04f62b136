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
    /// An element other than a camera (an encoder, a sink, the pipeline) failed: its name and what happened, in words.
    case failed(element: String, message: String)
    /// A camera failed (unplugged, driver gone, a streaming error, a refused format, no frames): the sentence
    /// names the device, what happened and what SwiftCam does next.
    case cameraFailed(CameraFailure)
    /// Another process holds the camera (`EBUSY`); the failure names it ("cheese (pid 4242)") where `/proc` tells.
    case busy(CameraFailure)

    /// The status of a camera failure: `busy` when another process holds it, else `failed`.
    public init(_ failure: CameraFailure) {
        if case .busy = failure.cause {
            self = .busy(failure)
        } else {
            self = .cameraFailed(failure)
        }
    }

    /// The case name, as printed in stats and checked by scripts.
    public var name: String {
        switch self {
        case .configured: "configured"
        case .unconfigured: "unconfigured"
        case .unauthorized: "unauthorized"
        case .failed, .cameraFailed: "failed"
        case .busy: "busy"
        }
    }

    /// The camera's failure, when a camera failed.
    public var failure: CameraFailure? {
        switch self {
        case let .cameraFailed(failure), let .busy(failure): failure
        case .configured, .unconfigured, .unauthorized, .failed: nil
        }
    }

    /// Why the session is not `configured`, in one sentence (nil when it is).
    public var reason: String? {
        switch self {
        case .configured: nil
        case let .unconfigured(reason), let .unauthorized(reason): reason
        case let .cameraFailed(failure), let .busy(failure): failure.description
        // A device's own error already names it ("/dev/video0 is in use …"): said once.
        case let .failed(element, message): message.hasPrefix(element) ? message : "\(element): \(message)"
        }
    }

    public var description: String {
        reason.map { "\(name): \($0)" } ?? name
    }
}

extension CameraStatus {
    /// The status a camera that cannot be opened puts the session in: missing → `unconfigured`,
    /// forbidden → `unauthorized`, held by another process → `busy`, anything else → `failed` naming the device.
    init(opening path: String, error: DeviceError) {
        switch error {
        case .deviceNotFound, .deviceGone:
            self = .unconfigured(reason: error.description)
        case .permissionDenied:
            self = .unauthorized(reason: error.description)
        case let .deviceBusy(_, holder):
            self = .busy(CameraFailure(device: path, cause: .busy(holder: holder), next: .stopping))
        default:
            self = .failed(element: path, message: error.description)
        }
    }
}
