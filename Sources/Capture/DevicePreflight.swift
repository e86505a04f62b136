import Foundation
import Glibc

/// Opens a camera node once before building the graph, so a missing or forbidden device is reported
/// as a status a person can act on instead of a GStreamer error.
enum DevicePreflight {
    /// nil when the device opens; otherwise the status explaining why not.
    static func check(_ path: String) -> CameraStatus? {
        let descriptor = open(path, O_RDWR | O_NONBLOCK)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        let code = errno
        switch code {
        case ENOENT, ENODEV, ENXIO:
            let present = presentDevices()
            let list = present.isEmpty ? "no cameras are present" : "cameras present: \(present.joined(separator: ", "))"
            return .unconfigured(reason: "no camera at \(path); \(list) (list them with 'swiftcam devices')")
        case EACCES, EPERM:
            return .unauthorized(reason: "no permission to open \(path); join the 'video' group (sudo usermod -aG video $USER, then log in again)")
        case EBUSY:
            return .failed(element: path, message: "the camera is in use by another program")
        default:
            return .failed(element: path, message: "cannot open: \(errnoText(code))")
        }
    }

    /// `/dev/video*` nodes, sorted.
    static func presentDevices() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.filter { $0.hasPrefix("video") }.map { "/dev/\($0)" }.sorted()
    }
}
