import CV4L2

/// A white balance request.
public enum WhiteBalanceMode: Hashable, Sendable, CustomStringConvertible {
    /// Let the camera choose.
    case auto
    /// A fixed colour temperature in kelvin.
    case kelvin(Int)

    /// `auto` or `5000K`.
    public var description: String {
        switch self {
        case .auto: return "auto"
        case let .kelvin(value): return "\(value)K"
        }
    }
}

/// What `CameraDevice.whiteBalance(_:)` did.
public enum WhiteBalanceOutcome: Hashable, Sendable, CustomStringConvertible {
    /// `V4L2_CID_AUTO_WHITE_BALANCE` is on.
    case hardwareAuto
    /// Auto white balance is off and `V4L2_CID_WHITE_BALANCE_TEMPERATURE` is `kelvin` (clamped to the device range).
    case hardwareKelvin(requested: Int, kelvin: Int64)
    /// No usable hardware control: apply `mode` with the `temperature` filter (`.auto` = filter neutral).
    case digital(WhiteBalanceMode)

    /// `wb auto (hardware)`, `wb 5000K (hardware 5000K)` or `wb 5000K (digital)`.
    public var description: String {
        switch self {
        case .hardwareAuto: return "wb auto (hardware)"
        case let .hardwareKelvin(requested, kelvin): return "wb \(requested)K (hardware \(kelvin)K)"
        case let .digital(mode): return "wb \(mode) (digital)"
        }
    }
}

extension CameraDevice {
    /// Sets white balance with `V4L2_CID_AUTO_WHITE_BALANCE` / `V4L2_CID_WHITE_BALANCE_TEMPERATURE` where present,
    /// else returns `.digital` for the `temperature` filter.
    public func whiteBalance(_ mode: WhiteBalanceMode) throws(DeviceError) -> WhiteBalanceOutcome {
        let auto = try writableControl(ControlID.autoWhiteBalance)
        switch mode {
        case .auto:
            guard let auto else { return .digital(.auto) }
            try set(auto, to: auto.type == .boolean ? .boolean(true) : .integer(1))
            return .hardwareAuto
        case let .kelvin(kelvin):
            guard try control(id: ControlID.whiteBalanceTemperature) != nil else { return .digital(mode) }
            if let auto, try value(of: auto)?.integerValue != 0 {
                try set(auto, to: auto.type == .boolean ? .boolean(false) : .integer(0))
            }
            // Re-query: the temperature control is inactive (sometimes read-only) while auto is on.
            guard let temperature = try writableControl(ControlID.whiteBalanceTemperature) else { return .digital(mode) }
            let value = temperature.snapped(Double(kelvin))
            try set(temperature, to: .integer(value))
            return .hardwareKelvin(requested: kelvin, kelvin: value)
        }
    }
}
