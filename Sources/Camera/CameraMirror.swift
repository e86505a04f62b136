import CV4L2

/// What `CameraDevice.mirror(_:)` did.
public enum MirrorOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The sensor flips the image itself (`V4L2_CID_HFLIP`).
    case hardware(on: Bool)
    /// The camera cannot flip: apply the `mirror` filter when `on`.
    case digital(on: Bool)

    /// `mirror on (hardware horizontal_flip)` or `mirror on (digital)`.
    public var description: String {
        switch self {
        case let .hardware(on): return "mirror \(on ? "on" : "off") (hardware horizontal_flip)"
        case let .digital(on): return "mirror \(on ? "on" : "off") (digital)"
        }
    }
}

extension CameraDevice {
    /// Mirrors the image horizontally with `V4L2_CID_HFLIP` when present, else asks for the `mirror` filter.
    public func mirror(_ on: Bool) throws(DeviceError) -> MirrorOutcome {
        guard let control = try writableControl(ControlID.horizontalFlip) else { return .digital(on: on) }
        try set(control, to: control.type == .boolean ? .boolean(on) : .integer(on ? 1 : 0))
        return .hardware(on: on)
    }
}
