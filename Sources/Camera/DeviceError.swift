import Glibc

/// Why a V4L2 device could not be opened or driven; each `description` is one sentence a user can act on.
///
/// Named `DeviceError` (not `CaptureError`) so it cannot collide with the session's error type.
public enum DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device node does not exist (`ENOENT`); `available` lists the capture devices present.
    case deviceNotFound(path: String, available: [String])
    /// This user may not open the device (`EACCES`/`EPERM`).
    case permissionDenied(path: String)
    /// Another process holds the device (`EBUSY`); `holder` names it when `/proc` tells.
    case deviceBusy(path: String, holder: String?)
    /// The device went away while open, e.g. it was unplugged (`ENODEV`/`ENXIO`).
    case deviceGone(path: String)
    /// The path exists but is not a V4L2 video capture device.
    case notACamera(path: String)
    /// A V4L2 ioctl failed with an errno none of the cases above covers.
    case ioctlFailed(request: String, errno: Int32)
    /// The device has no control with this ID.
    case controlNotFound(id: UInt32)
    /// The value cannot be written to or read from this control; `reason` says why.
    case invalidControlValue(control: String, reason: String)

    /// One sentence naming the problem and what to do about it.
    public var description: String {
        switch self {
        case let .deviceNotFound(path, available):
            if available.isEmpty {
                return
                    "No camera at \(path): this machine has no video capture devices; connect one and run `swiftcam devices` to list them."
            }
            return "No camera at \(path); cameras present: \(available.joined(separator: ", ")) (`swiftcam devices` lists them)."
        case let .permissionDenied(path):
            return "Permission denied opening \(path): join the video group with `sudo usermod -aG video $USER`, then log out and in again."
        case let .deviceBusy(path, holder):
            if let holder {
                return "\(path) is in use by \(holder); stop that program and try again."
            }
            return "\(path) is in use by another program; stop it and try again."
        case let .deviceGone(path):
            return "\(path) went away (unplugged or its driver unloaded); reconnect it and try again."
        case let .notACamera(path):
            return "\(path) is not a video capture device; run `swiftcam devices` to list the cameras present."
        case let .ioctlFailed(request, code):
            return "\(request) failed: \(Self.errnoText(code)) (errno \(code)); the driver rejected the request."
        case let .controlNotFound(id):
            return "This camera has no control 0x\(String(id, radix: 16)); run `swiftcam controls DEVICE` to list its controls."
        case let .invalidControlValue(control, reason):
            return "Cannot set \(control): \(reason)."
        }
    }

    /// Maps the errno of a failed `open` of `path`; `available` and `holder` are asked only when needed.
    public static func opening(
        _ path: String, errno code: Int32,
        available: () -> [String] = { CameraDevice.list().map(\.path) },
        holder: (String) -> String? = { ProcessHolder.holder(of: $0) }
    ) -> DeviceError {
        switch code {
        case ENOENT, ENOTDIR: return .deviceNotFound(path: path, available: available())
        case EACCES, EPERM, EROFS: return .permissionDenied(path: path)
        case EBUSY: return .deviceBusy(path: path, holder: holder(path))
        case ENODEV, ENXIO: return .deviceGone(path: path)
        case ENOTTY, EISDIR: return .notACamera(path: path)
        default: return .ioctlFailed(request: "open(\(path))", errno: code)
        }
    }

    /// Maps the errno of a failed ioctl `request` on the open device at `path`.
    public static func ioctl(
        _ request: String, errno code: Int32, path: String,
        holder: (String) -> String? = { ProcessHolder.holder(of: $0) }
    ) -> DeviceError {
        switch code {
        case ENODEV, ENXIO: return .deviceGone(path: path)
        case EBUSY: return .deviceBusy(path: path, holder: holder(path))
        case ENOTTY: return .notACamera(path: path)
        default: return .ioctlFailed(request: request, errno: code)
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
