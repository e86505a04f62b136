import CV4L2

/// What `VIDIOC_QUERYCAP` says about one video node.
public struct CameraInfo: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The device node, e.g. `/dev/video0`.
    public let path: String
    /// Card name and bus info: stable across renumbering.
    public let identity: DeviceIdentity
    /// The kernel driver, e.g. `uvcvideo`.
    public let driver: String
    /// The driver version as `major.minor.patch`.
    public let version: String
    /// This node's capabilities (`device_caps` when the driver reports them, else `capabilities`).
    public let capabilities: UInt32

    /// True when the node captures video (single- or multi-planar).
    public var isCapture: Bool {
        capabilities & (UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE)) != 0
    }

    /// The buffer type to enumerate formats with: multi-planar only when the node has no single-planar capture.
    var captureBufferType: UInt32 {
        capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0
            ? V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
    }

    /// Readable names of the capability bits that matter to a camera user.
    public var capabilityNames: [String] {
        let table: [(Int32, String)] = [
            (V4L2_CAP_VIDEO_CAPTURE, "video-capture"), (V4L2_CAP_VIDEO_CAPTURE_MPLANE, "video-capture-mplane"),
            (V4L2_CAP_VIDEO_OUTPUT, "video-output"), (V4L2_CAP_META_CAPTURE, "metadata-capture"),
            (V4L2_CAP_READWRITE, "read-write"), (V4L2_CAP_STREAMING, "streaming"), (V4L2_CAP_IO_MC, Self.mediaControllerName)
        ]
        return table.filter { capabilities & UInt32(bitPattern: $0.0) != 0 }.map(\.1)
    }

    /// The capability name of a node whose formats are set through its media controller (`V4L2_CAP_IO_MC`): one stage
    /// of a camera pipeline (a sensor's raw Bayer, an ISP's input), driven by libcamera, not a camera by itself.
    public static let mediaControllerName = "media-controller"

    /// Whether the node is one stage of a media-controller pipeline (`V4L2_CAP_IO_MC`).
    public var isMediaControllerNode: Bool { capabilities & UInt32(V4L2_CAP_IO_MC) != 0 }

    /// `/dev/video0: vivid (platform:vivid-000), driver vivid`.
    public var description: String { "\(path): \(identity), driver \(driver)" }
}

extension CameraInfo {
    /// Builds the info from a filled `v4l2_capability`.
    init(path: String, capability cap: v4l2_capability) {
        self.path = path
        identity = DeviceIdentity(card: cString(cap.card), busInfo: cString(cap.bus_info))
        driver = cString(cap.driver)
        version = "\(cap.version >> 16).\((cap.version >> 8) & 0xff).\(cap.version & 0xff)"
        let hasDeviceCaps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
        capabilities = hasDeviceCaps ? cap.device_caps : cap.capabilities
    }
}
