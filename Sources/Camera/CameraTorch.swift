import CV4L2

/// What `CameraDevice.torch(on:intensity:)` did.
public enum TorchOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The flash LED mode was set to torch (or none) on `node`; `intensity` is the torch intensity and its maximum.
    case hardware(on: Bool, node: String, intensity: Int64?, maximum: Int64?)
    /// Neither the video node nor a flash sub-device of its media device has a flash LED.
    case unsupported

    /// `torch on (hardware /dev/v4l-subdev2, intensity 120/200)` or `this camera has no torch`.
    public var description: String {
        switch self {
        case let .hardware(on, node, intensity, maximum):
            let level = intensity.map { value in ", intensity \(value)" + (maximum.map { "/\($0)" } ?? "") } ?? ""
            return "torch \(on ? "on" : "off") (hardware \(node)\(level))"
        case .unsupported:
            return "this camera has no torch"
        }
    }
}

extension CameraDevice {
    /// Switches the torch with `V4L2_CID_FLASH_LED_MODE` (= `V4L2_FLASH_LED_MODE_TORCH` or `NONE`) on the video node,
    /// else on a flash sub-device of the same media device; `intensity` (0…1) sets `V4L2_CID_FLASH_TORCH_INTENSITY`.
    public func torch(on: Bool, intensity: Double? = nil) throws(DeviceError) -> TorchOutcome {
        guard let (candidate, mode) = try torchMode() else { return .unsupported }
        var level: Int64?
        var maximum: Int64?
        if let strength = try candidate.queryControl(id: ControlID.flashTorchIntensity) {
            maximum = strength.maximum
            if on, let intensity, strength.isWritable {
                let fraction = intensity.isFinite ? Swift.min(Swift.max(intensity, 0), 1) : 1
                let value = strength.snapped(Double(strength.minimum) + fraction * Double(strength.maximum - strength.minimum))
                try candidate.setValue(.integer(value), of: strength)
            }
            level = try candidate.value(of: strength)?.integerValue
        }
        let mark = on ? V4L2_FLASH_LED_MODE_TORCH : V4L2_FLASH_LED_MODE_NONE
        try candidate.setValue(.integer(Int64(mark.rawValue)), of: mode)
        return .hardware(on: on, node: candidate.path, intensity: on ? level : nil, maximum: on ? maximum : nil)
    }

    /// Whether `torch(on:)` would find a flash LED with a torch mode: false when asking the device fails.
    public var hasTorch: Bool { ((try? torchMode()) ?? nil) != nil }

    /// The first node (the video node, then a flash sub-device) whose flash LED mode is writable and has a torch
    /// entry, with that control.
    private func torchMode() throws(DeviceError) -> (DeviceNode, CameraControl)? {
        let torchIndex = Int64(V4L2_FLASH_LED_MODE_TORCH.rawValue)
        for candidate in try flashCandidates() {
            if let mode = try candidate.queryControl(id: ControlID.flashLEDMode), mode.isWritable,
                mode.menu.contains(where: { $0.index == torchIndex })
            {
                return (candidate, mode)
            }
        }
        return nil
    }

    /// The video node first, then the flash sub-devices of its media graph (looked up once).
    private func flashCandidates() throws(DeviceError) -> [DeviceNode] {
        if case .notSearched = flashNodeLookup {
            flashNodeLookup = .none
            if let number = node.deviceNumber {
                for path in MediaTopology.flashSubdevices(ofVideoDevice: number) {
                    if let subdev = try? DeviceNode(path: path) {
                        flashNodeLookup = .found(subdev)
                        break
                    }
                }
            }
        }
        if case let .found(subdev) = flashNodeLookup { return [node, subdev] }
        return [node]
    }
}
