/// Helpers the camera-control decisions share: finding a writable control and mapping normalized values.
extension CameraDevice {
    /// The control with `id` when the device has it and it can be written; nil otherwise.
    public func writableControl(_ id: UInt32) throws(DeviceError) -> CameraControl? {
        guard let control = try control(id: id), control.isWritable else { return nil }
        return control
    }
}

extension CameraControl {
    /// Clamps `value` into range and rounds it onto the control's step grid (counted from `minimum`).
    public func snapped(_ value: Double) -> Int64 {
        guard value.isFinite else { return defaultValue }
        // Int64(Double) traps outside ±2^63; controls like vivid's "Integer 64 Bits" span the whole range.
        let target: Int64 = value >= 9.2e18 ? .max : value <= -9.2e18 ? .min : Int64(value.rounded())
        return snapped(integer: target)
    }

    /// Integer version of `snapped(_:)`: exact for 64-bit ranges, and like the kernel's ROUND_TO_RANGE
    /// an off-grid maximum rounds down to the last step inside.
    public func snapped(integer target: Int64) -> Int64 {
        guard maximum >= minimum else { return defaultValue }
        let clamped = Swift.min(Swift.max(target, minimum), maximum)
        let step = Swift.max(self.step, 1)
        let offset = UInt64(bitPattern: clamped &- minimum)
        let span = UInt64(bitPattern: maximum &- minimum)
        var steps = offset / step + (offset % step >= (step + 1) / 2 ? 1 : 0)
        if steps.multipliedReportingOverflow(by: step).overflow || steps * step > span { steps -= 1 }
        return minimum &+ Int64(bitPattern: steps &* step)
    }

    /// Maps `level` in [-1, 1] onto the range: 0 is the driver's default, -1 the minimum, +1 the maximum.
    public func value(normalized level: Double) -> Int64 {
        let level = level.isFinite ? Swift.min(Swift.max(level, -1), 1) : 0
        let base = Double(defaultValue)
        let target = level >= 0 ? base + level * (Double(maximum) - base) : base + level * (base - Double(minimum))
        return snapped(target)
    }
}

extension Double {
    /// The number with at most two decimals and at least one (`2.0`, `2.25`), as control replies print it.
    public var decimalText: String {
        // Past a billion the hundredths are noise, and ×100 would overflow to inf near Double's limit.
        guard isFinite, abs(self) < 1e9 else { return String(self) }
        return String((self * 100).rounded() / 100)
    }
}
