import CGStreamer

/// A capture device GStreamer's device providers see.
public struct DeviceInfo: Sendable, Hashable {
    /// Human-readable name, e.g. "Integrated Camera".
    public let name: String
    /// Device class, e.g. "Video/Source".
    public let deviceClass: String
    /// The device node, when the provider says (V4L2: `api.v4l2.path` or `device.path`).
    public let path: String?
    /// Every caps structure the device offers, as text.
    public let caps: [String]
    /// Provider properties as text (`gst_structure_to_string`).
    public let properties: String
}

/// Lists video capture devices through `GstDeviceMonitor`.
public enum DeviceMonitor {
    /// The video sources present now; an empty list when there are none or no provider runs.
    /// Calls `gst_device_monitor_start` and `gst_device_monitor_get_devices`.
    public static func videoSources() -> [DeviceInfo] {
        GStreamer.initialize()
        guard let monitor = gst_device_monitor_new() else { return [] }
        defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
        _ = gst_device_monitor_add_filter(monitor, "Video/Source", nil)
        guard gst_device_monitor_start(monitor) != 0 else { return [] }
        defer { gst_device_monitor_stop(monitor) }
        var devices: [DeviceInfo] = []
        var node = gst_device_monitor_get_devices(monitor)
        let list = node
        defer { g_list_free_full(list) { gst_object_unref($0) } }
        while let current = node {
            if let device = current.pointee.data?.assumingMemoryBound(to: GstDevice.self) {
                devices.append(info(for: device))
            }
            node = current.pointee.next
        }
        return devices
    }

    private static func info(for device: UnsafeMutablePointer<GstDevice>) -> DeviceInfo {
        let properties = gst_device_get_properties(device).map { Structure(adopting: $0) }
        var caps: [String] = []
        if let raw = gst_device_get_caps(device) {
            let all = Caps(adopting: raw)
            caps = (0..<all.count).compactMap { all.structure(at: $0)?.description }
        }
        return DeviceInfo(
            name: String(adoptingGLibString: gst_device_get_display_name(device)) ?? "unnamed",
            deviceClass: String(adoptingGLibString: gst_device_get_device_class(device)) ?? "",
            path: properties?.string("api.v4l2.path") ?? properties?.string("device.path"),
            caps: caps,
            properties: properties?.description ?? "")
    }
}
