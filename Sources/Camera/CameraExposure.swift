import CV4L2

/// The exposure controls a camera has, for spot metering and exposure compensation; nil where it has none.
public struct ExposureControls: Hashable, Sendable {
    /// `V4L2_CID_EXPOSURE_AUTO`: menu of auto, manual, shutter priority, aperture priority.
    public let autoExposure: CameraControl?
    /// `V4L2_CID_EXPOSURE_ABSOLUTE`: exposure time in units of 100 µs.
    public let exposureTime: CameraControl?
    /// `V4L2_CID_GAIN`.
    public let gain: CameraControl?
    /// `V4L2_CID_AUTOGAIN`: must be off before `gain` takes effect.
    public let autoGain: CameraControl?
    /// `V4L2_CID_AUTO_EXPOSURE_BIAS`: compensation, usually an integer menu in units of 0.001 EV.
    public let bias: CameraControl?

    /// True when software spot metering can drive the sensor (a writable exposure time or gain) instead of a filter.
    public var canMeterInHardware: Bool {
        (exposureTime?.isWritable ?? false) || (gain?.isWritable ?? false)
    }
}

/// What `CameraDevice.exposure(ev:)` did.
public enum ExposureOutcome: Hashable, Sendable, CustomStringConvertible {
    /// `V4L2_CID_AUTO_EXPOSURE_BIAS` was set to the nearest supported value, `applied` EV.
    case hardware(requested: Double, applied: Double)
    /// No compensation control: apply `ev` with the `exposure` filter.
    case digital(ev: Double)

    /// `exposure ev=1.0 (hardware 1.0 EV)` or `exposure ev=1.0 (digital)`.
    public var description: String {
        switch self {
        case let .hardware(requested, applied): return "exposure ev=\(requested.decimalText) (hardware \(applied.decimalText) EV)"
        case let .digital(ev): return "exposure ev=\(ev.decimalText) (digital)"
        }
    }
}

/// What `CameraDevice.setManualExposure(time:gain:)` did.
public enum ManualExposureOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The sensor now runs with these values (nil: left alone or absent).
    case hardware(time: Int64?, gain: Int64?)
    /// Neither control can be written: meter with the `exposure` filter.
    case unsupported

    /// `exposure time 300 gain 40 (hardware)` or `this camera has no manual exposure or gain`.
    public var description: String {
        switch self {
        case let .hardware(time, gain):
            let parts = [time.map { "time \($0)" }, gain.map { "gain \($0)" }].compactMap { $0 }
            return "exposure \(parts.joined(separator: " ")) (hardware)"
        case .unsupported:
            return "this camera has no manual exposure or gain"
        }
    }
}

extension CameraDevice {
    /// Looks up the exposure-related controls by ID.
    public func exposureControls() throws(DeviceError) -> ExposureControls {
        ExposureControls(
            autoExposure: try control(id: ControlID.exposureAuto),
            exposureTime: try control(id: ControlID.exposureTimeAbsolute),
            gain: try control(id: ControlID.gain),
            autoGain: try control(id: ControlID.autoGain),
            bias: try control(id: ControlID.autoExposureBias))
    }

    /// Sets exposure compensation to the bias value nearest `ev` when the camera has it, else returns `.digital`.
    public func exposure(ev: Double) throws(DeviceError) -> ExposureOutcome {
        let ev = ev.isFinite ? ev : 0
        guard let bias = try writableControl(ControlID.autoExposureBias) else { return .digital(ev: ev) }
        let target = ev * 1000
        switch bias.type {
        case .integerMenu:
            guard
                let nearest = bias.menu.compactMap({ item in item.value.map { (item.index, $0) } })
                    .min(by: { abs(Double($0.1) - target) < abs(Double($1.1) - target) })
            else { return .digital(ev: ev) }
            try set(bias, to: .integer(nearest.0))
            return .hardware(requested: ev, applied: Double(nearest.1) / 1000)
        case .integer, .integer64:
            let value = bias.snapped(target)
            try set(bias, to: .integer(value))
            return .hardware(requested: ev, applied: Double(value) / 1000)
        default:
            return .digital(ev: ev)
        }
    }

    /// Switches auto exposure to manual and auto gain off as needed, then writes `time` (100 µs units) and `gain`,
    /// each clamped to its range; for driving the sensor from software spot metering.
    public func setManualExposure(time: Int64?, gain: Int64?) throws(DeviceError) -> ManualExposureOutcome {
        let controls = try exposureControls()
        var appliedTime: Int64?
        var appliedGain: Int64?
        if let time, let timeControl = controls.exposureTime, timeControl.isWritable {
            let manual = Int64(V4L2_EXPOSURE_MANUAL.rawValue)
            if let auto = controls.autoExposure, auto.isWritable, auto.menu.contains(where: { $0.index == manual }),
                try value(of: auto)?.integerValue != manual
            {
                try set(auto, to: .integer(manual))
            }
            appliedTime = timeControl.snapped(Double(time))
            try set(timeControl, to: .integer(appliedTime ?? timeControl.defaultValue))
        }
        if let gain, controls.gain != nil {
            if let autoGain = controls.autoGain, autoGain.isWritable, try value(of: autoGain)?.integerValue != 0 {
                try set(autoGain, to: .boolean(false))
            }
            // Re-query: turning auto gain off clears the inactive/volatile state.
            if let fresh = try control(id: ControlID.gain), fresh.isWritable {
                appliedGain = fresh.snapped(Double(gain))
                try set(fresh, to: .integer(appliedGain ?? fresh.defaultValue))
            }
        }
        if appliedTime == nil && appliedGain == nil { return .unsupported }
        return .hardware(time: appliedTime, gain: appliedGain)
    }
}
