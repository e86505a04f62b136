import CV4L2

/// A picture adjustment the camera may do in hardware (V4L2 user controls) or the `colorcontrols` filter does.
public enum ColorAdjustment: String, Hashable, Sendable, CaseIterable, Codable {
    /// `V4L2_CID_BRIGHTNESS`.
    case brightness
    /// `V4L2_CID_CONTRAST`.
    case contrast
    /// `V4L2_CID_SATURATION`.
    case saturation
    /// `V4L2_CID_HUE`.
    case hue

    /// The control ID.
    public var controlID: UInt32 {
        switch self {
        case .brightness: return ControlID.brightness
        case .contrast: return ControlID.contrast
        case .saturation: return ControlID.saturation
        case .hue: return ControlID.hue
        }
    }
}

/// How a colour adjustment's value is given.
public enum AdjustmentLevel: Hashable, Sendable {
    /// -1…1: 0 is the driver's default, -1 the control's minimum, +1 its maximum (values outside are clamped).
    /// Without a hardware control the same number goes to the `colorcontrols` filter.
    case normalized(Double)
    /// The device's own units (as `v4l2-ctl` shows them); must lie inside the control's range.
    case raw(Int64)
}

/// What `CameraDevice.set(_:to:)` did.
public enum ColorOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The control was set to `value` in `minimum…maximum`.
    case hardware(ColorAdjustment, value: Int64, minimum: Int64, maximum: Int64)
    /// No such control: apply the normalized `level` with the `colorcontrols` filter.
    case digital(ColorAdjustment, level: Double)

    /// `brightness 160 (hardware 0…255)` or `brightness 0.25 (digital)`.
    public var description: String {
        switch self {
        case let .hardware(adjustment, value, minimum, maximum):
            return "\(adjustment.rawValue) \(value) (hardware \(minimum)…\(maximum))"
        case let .digital(adjustment, level):
            return "\(adjustment.rawValue) \(level.decimalText) (digital)"
        }
    }
}

extension CameraDevice {
    /// Sets brightness, contrast, saturation or hue in hardware when the camera has the control,
    /// else returns `.digital` for the filter; a raw value on a camera without the control throws.
    public func set(_ adjustment: ColorAdjustment, to level: AdjustmentLevel) throws(DeviceError) -> ColorOutcome {
        guard let control = try writableControl(adjustment.controlID) else {
            switch level {
            case let .normalized(value):
                return .digital(adjustment, level: value.isFinite ? Swift.min(Swift.max(value, -1), 1) : 0)
            case let .raw(value):
                // Without camera units a whole number is a level like any other, clamped into -1…1.
                return .digital(adjustment, level: Double(Swift.min(Swift.max(value, -1), 1)))
            }
        }
        let value: Int64
        switch level {
        case let .normalized(normalized): value = control.value(normalized: normalized)
        case let .raw(raw): value = Swift.min(Swift.max(raw, control.minimum), control.maximum)
        }
        try set(control, to: .integer(value))
        return .hardware(adjustment, value: value, minimum: control.minimum, maximum: control.maximum)
    }
}
