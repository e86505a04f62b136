import CV4L2
import Glibc

/// An open V4L2 video capture device: discovery, formats and controls.
///
/// Holds the node's file descriptor for its lifetime and closes it in `deinit`; not thread-safe —
/// use one instance from one thread (or serialize access), like `v4l2-ctl` does.
public final class CameraDevice {
    /// The device node, e.g. `/dev/video0`.
    public let path: String
    /// What `VIDIOC_QUERYCAP` reported when the device was opened.
    public let info: CameraInfo
    let node: DeviceNode
    /// The flash sub-device found for the torch, looked up once.
    var flashNodeLookup: FlashLookup = .notSearched

    enum FlashLookup {
        case notSearched
        case none
        case found(DeviceNode)
    }

    /// Opens `path` (`O_RDWR | O_NONBLOCK`) and checks with `VIDIOC_QUERYCAP` that it captures video.
    public init(path: String) throws(DeviceError) {
        let node = try DeviceNode(path: path)
        var cap = v4l2_capability()
        let code = node.attempt(CV4L2_VIDIOC_QUERYCAP, &cap)
        if code == ENOTTY || code == EINVAL { throw DeviceError.notACamera(path: path) }
        if code != 0 { throw DeviceError.ioctl("VIDIOC_QUERYCAP", errno: code, path: path) }
        let info = CameraInfo(path: path, capability: cap)
        guard info.isCapture else { throw DeviceError.notACamera(path: path) }
        self.path = path
        self.info = info
        self.node = node
    }

    /// Card name and bus info: names this camera independently of its `/dev/videoN` number.
    public var identity: DeviceIdentity { info.identity }

    /// The video capture devices under `directory` (`video*` nodes), sorted by number; empty when there are none
    /// or none can be opened.
    public static func list(directory: String = "/dev") -> [CameraInfo] {
        let names = ProcessHolder.directoryEntries(directory).filter { name in
            name.hasPrefix("video") && name.count > 5 && name.dropFirst(5).allSatisfy(\.isNumber)
        }
        let sorted = names.sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        return sorted.compactMap { name in
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            return try? CameraDevice(path: path).info
        }
    }

    /// The first capture device with this identity, wherever it is numbered now.
    public static func find(_ identity: DeviceIdentity, directory: String = "/dev") -> CameraInfo? {
        list(directory: directory).first { $0.identity == identity }
    }

    /// Pixel formats with their sizes and frame rates (`VIDIOC_ENUM_FMT`, `ENUM_FRAMESIZES`, `ENUM_FRAMEINTERVALS`).
    public func formats() throws(DeviceError) -> [PixelFormatDescription] {
        try node.formats(bufferType: info.captureBufferType)
    }

    /// Every enabled control (`VIDIOC_QUERY_EXT_CTRL` with `NEXT_CTRL | NEXT_COMPOUND`, menus via `VIDIOC_QUERYMENU`).
    public func controls() throws(DeviceError) -> [CameraControl] {
        try node.queryControls()
    }

    /// The control with this `V4L2_CID_*` ID, or nil when the device has none.
    public func control(id: UInt32) throws(DeviceError) -> CameraControl? {
        try node.queryControl(id: id)
    }

    /// The current value (`VIDIOC_G_EXT_CTRLS`); nil for buttons, arrays, compound and write-only controls.
    public func value(of control: CameraControl) throws(DeviceError) -> ControlValue? {
        try node.value(of: control)
    }

    /// The current value of the control with this ID; throws `controlNotFound` when there is none.
    public func value(id: UInt32) throws(DeviceError) -> ControlValue? {
        guard let control = try node.queryControl(id: id) else { throw DeviceError.controlNotFound(id: id) }
        return try node.value(of: control)
    }

    /// Writes a control (`VIDIOC_S_EXT_CTRLS`) after checking type, access and range; press a button with `.integer(1)`.
    public func set(_ control: CameraControl, to value: ControlValue) throws(DeviceError) {
        try node.setValue(value, of: control)
    }

    /// Writes the control with this ID; throws `controlNotFound` when there is none.
    public func set(id: UInt32, to value: ControlValue) throws(DeviceError) {
        guard let control = try node.queryControl(id: id) else { throw DeviceError.controlNotFound(id: id) }
        try node.setValue(value, of: control)
    }
}
