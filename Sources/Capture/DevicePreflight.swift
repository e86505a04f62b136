import Foundation
import Glibc

/// Opens a camera node once before building the graph, so a missing, forbidden or busy device is reported
/// as a status a person can act on instead of a GStreamer error.
enum DevicePreflight {
    /// nil when the device opens; otherwise the status explaining why not (from the errno, via `DeviceError`).
    static func check(_ path: String) -> CameraStatus? {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        let error = DeviceError.opening(path, errno: errno, available: { presentDevices() })
        switch error {
        case .deviceNotFound, .deviceGone:
            return .unconfigured(reason: error.description)
        case .permissionDenied:
            return .unauthorized(reason: error.description)
        default:
            return .failed(element: path, message: error.description)
        }
    }

    /// The capture devices present (`/dev/video*` that open as cameras), sorted by number.
    static func presentDevices() -> [String] {
        CameraDevice.list().map(\.path)
    }
}
