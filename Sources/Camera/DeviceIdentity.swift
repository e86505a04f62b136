/// Names a camera independently of its `/dev/videoN` number, which can change across plug-ins and boots.
public struct DeviceIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The card name from `VIDIOC_QUERYCAP`, e.g. `"HD Pro Webcam C920"`.
    public let card: String
    /// Where the device is attached, e.g. `"usb-0000:00:14.0-1"` or `"platform:vivid-000"`.
    public let busInfo: String

    /// `card (bus)`, e.g. `vivid (platform:vivid-000)`.
    public var description: String { "\(card) (\(busInfo))" }
}
