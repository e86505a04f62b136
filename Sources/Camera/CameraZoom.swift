import CV4L2

/// What `CameraDevice.zoom(_:maxZoom:)` did.
public enum ZoomOutcome: Hashable, Sendable, CustomStringConvertible {
    /// `V4L2_CID_ZOOM_ABSOLUTE` was set to `value` (of `maximum`) for the clamped `factor`.
    case hardware(factor: Double, value: Int64, maximum: Int64)
    /// The camera has no usable zoom control: apply `factor` with the `zoom` filter.
    case digital(factor: Double)

    /// `zoom 2.0 (hardware 200/500)` or `zoom 2.0 (digital)`.
    public var description: String {
        switch self {
        case let .hardware(factor, value, maximum): return "zoom \(factor.decimalText) (hardware \(value)/\(maximum))"
        case let .digital(factor): return "zoom \(factor.decimalText) (digital)"
        }
    }
}

extension CameraDevice {
    /// Clamps a zoom factor to [1, maxZoom]; NaN and a `maxZoom` below 1 count as 1.
    public static func clampZoom(_ factor: Double, maxZoom: Double) -> Double {
        let upper = maxZoom.isFinite && maxZoom > 1 ? maxZoom : 1
        guard !factor.isNaN else { return 1 }
        return Swift.min(Swift.max(factor, 1), upper)
    }

    /// Zooms to `factor` clamped to [1, maxZoom]: maps [1, maxZoom] linearly onto `V4L2_CID_ZOOM_ABSOLUTE`'s
    /// [min, max] when the camera has it, else tells the caller to zoom digitally.
    public func zoom(_ factor: Double, maxZoom: Double) throws(DeviceError) -> ZoomOutcome {
        let factor = Self.clampZoom(factor, maxZoom: maxZoom)
        guard let control = try writableControl(ControlID.zoomAbsolute), control.maximum > control.minimum else {
            return .digital(factor: factor)
        }
        let upper = Self.clampZoom(maxZoom, maxZoom: maxZoom)
        let fraction = upper > 1 ? (factor - 1) / (upper - 1) : 0
        let value = control.snapped(Double(control.minimum) + fraction * Double(control.maximum - control.minimum))
        try set(control, to: .integer(value))
        return .hardware(factor: factor, value: value, maximum: control.maximum)
    }
}
