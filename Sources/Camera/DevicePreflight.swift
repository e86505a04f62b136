import Glibc

/// Opens a camera node once before a graph is built on it, so a missing, forbidden or busy device is known
/// as a `DeviceError` (from the errno) before GStreamer reports it as an element error.
public enum DevicePreflight {
    /// nil when the device opens; otherwise why not.
    public static func check(_ path: String) -> DeviceError? {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        return DeviceError.opening(path, errno: errno)
    }
}
