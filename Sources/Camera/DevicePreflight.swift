import Glibc

/// Opens a camera node once before a graph is built on it, so a missing, forbidden, busy or wrong device is
/// known as a `DeviceError` (from the errno, or `VIDIOC_QUERYCAP`) before GStreamer reports it as an element
/// error ("This isn't a device … (system error: Success)" for a plain file).
public enum DevicePreflight {
    /// nil when the device opens and captures video; otherwise why not.
    public static func check(_ path: String) -> DeviceError? {
        do {
            _ = try CameraDevice(path: path)
            return nil
        } catch {
            return error
        }
    }
}
