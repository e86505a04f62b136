import FoundationEssentials

/// One control as `swiftcam controls` shows it; `name`, ranges and value match `v4l2-ctl --list-ctrls`.
public struct ControlReport: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `v4l2-ctl`'s name for the control, e.g. `horizontal_flip`.
    public let name: String
    /// The driver's name, e.g. `Horizontal Flip`.
    public let label: String
    /// The `V4L2_CID_*` ID.
    public let id: UInt32
    /// The type as `v4l2-ctl` names it.
    public let type: ControlType
    /// Smallest value (string: shortest length).
    public let minimum: Int64
    /// Largest value (string: longest length; bitmask: settable bits).
    public let maximum: Int64
    /// Step between values.
    public let step: UInt64
    /// The driver's default.
    public let defaultValue: Int64
    /// The current value; nil for buttons, arrays, compound and write-only controls (see `note`).
    public let value: ControlValue?
    /// Flag names as `v4l2-ctl` prints them.
    public let flags: [String]
    /// Menu items for menu and integer-menu controls.
    public let menu: [MenuItem]?
    /// Array dimensions for array controls.
    public let dimensions: [UInt32]?
    /// Why `value` is missing, when it is.
    public let note: String?

    enum CodingKeys: String, CodingKey {
        case name, label, id, type
        case minimum = "min"
        case maximum = "max"
        case step
        case defaultValue = "default"
        case value,
            flags, menu
        case dimensions = "dims"
        case note
    }

    /// Builds the report line for a control and the value read from it.
    public init(control: CameraControl, value: ControlValue?, note: String?) {
        name = control.name
        label = control.label
        id = control.id
        type = control.type
        minimum = control.minimum
        maximum = control.maximum
        step = control.step
        defaultValue = control.defaultValue
        self.value = value
        flags = control.flags.names
        menu = control.menu.isEmpty ? nil : control.menu
        dimensions = control.dimensions.isEmpty ? nil : control.dimensions
        self.note = note
    }

    /// `brightness 0x00980900 (int): min=0 max=255 step=1 default=128 value=128 flags=slider`.
    public var description: String {
        let hex = String(id, radix: 16)
        let hexID = "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        var parts = ["\(name) \(hexID) (\(type)):"]
        switch type {
        case .boolean: parts.append("default=\(defaultValue)")
        case .button: break
        case .bitmask:
            parts.append(
                "max=0x\(String(UInt32(truncatingIfNeeded: maximum), radix: 16)) default=0x\(String(UInt32(truncatingIfNeeded: defaultValue), radix: 16))"
            )
        case .menu, .integerMenu: parts.append("min=\(minimum) max=\(maximum) default=\(defaultValue)")
        case .string: parts.append("min=\(minimum) max=\(maximum) step=\(step)")
        default: parts.append("min=\(minimum) max=\(maximum) step=\(step) default=\(defaultValue)")
        }
        if let value {
            if case let .string(text) = value {
                parts.append("value='\(text)'")
            } else if let item = menu?.first(where: { $0.index == value.integerValue }) {
                parts.append("value=\(value) (\(item.name ?? item.value.map(String.init) ?? ""))")
            } else {
                parts.append("value=\(value)")
            }
        }
        if let dimensions { parts.append("dims=" + dimensions.map { "[\($0)]" }.joined()) }
        if !flags.isEmpty { parts.append("flags=" + flags.joined(separator: ", ")) }
        if let note { parts.append("(\(note))") }
        return parts.joined(separator: " ")
    }
}

/// Everything `swiftcam devices` / `swiftcam controls` prints about one camera, as text or JSON.
public struct DeviceReport: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The device node, e.g. `/dev/video0`.
    public let path: String
    /// Card name + bus info: stable across renumbering.
    public let identity: DeviceIdentity
    /// The kernel driver.
    public let driver: String
    /// The card name.
    public let card: String
    /// The bus info.
    public let bus: String
    /// The driver version.
    public let version: String
    /// Capability names of the node (`video-capture`, `streaming`, …).
    public let capabilities: [String]
    /// Pixel formats with sizes and frame rates.
    public let formats: [PixelFormatDescription]
    /// Every enabled control with its range and current value.
    public let controls: [ControlReport]
    /// The camera's best mode for live use, the one `swiftcam init` writes (`MJPG 1280x720@30`); nil when none serves.
    public let liveMode: String?

    /// Queries formats, controls and current values of an open device.
    ///
    /// A control whose value cannot be read is reported with a `note`; only a device that went away throws.
    public init(device: CameraDevice) throws(DeviceError) {
        path = device.path
        identity = device.identity
        driver = device.info.driver
        card = device.identity.card
        bus = device.identity.busInfo
        version = device.info.version
        capabilities = device.info.capabilityNames
        formats = try device.formats()
        var reports: [ControlReport] = []
        for control in try device.controls() {
            var value: ControlValue?
            var note: String?
            do {
                value = try device.value(of: control)
                if value == nil {
                    if control.isArrayOrCompound {
                        note = "array/compound value not read"
                    } else if control.type == .button {
                        note = "button: no value"
                    } else {
                        note = "write-only"
                    }
                }
            } catch .deviceGone(let path) {
                throw .deviceGone(path: path)
            } catch {
                note = "could not read: \(error)"
            }
            reports.append(ControlReport(control: control, value: value, note: note))
        }
        controls = reports
        liveMode = (try? ModeChooser.choose(ModeRequest(), from: formats, path: device.path))?.mode.description
    }

    /// The opened device's report, opening `path` first.
    public init(path: String) throws(DeviceError) {
        try self.init(device: try CameraDevice(path: path))
    }

    /// The report as JSON (`JSONEncoder`, sorted keys; pretty-printed by default).
    public func json(pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The plain-text rendering: identity, formats with sizes and rates, then controls like `v4l2-ctl --list-ctrls`.
    public var description: String {
        var lines = ["\(path): \(card) (\(bus)), driver \(driver) \(version)"]
        lines.append("Formats:")
        if formats.isEmpty { lines.append("  none") }
        for format in formats {
            let flags = [format.compressed ? "compressed" : nil, format.emulated ? "emulated" : nil].compactMap { $0 }
            lines.append("  \(format.fourcc) (\(format.name))" + (flags.isEmpty ? "" : " [\(flags.joined(separator: ", "))]"))
            for size in format.sizes {
                var line = "    \(size.size) @ \(size.rates)"
                let largest = size.size.largest
                if let liveMode, liveMode.hasPrefix("\(format.fourcc) \(largest.width)x\(largest.height)@") {
                    line += "   <- live mode (swiftcam init): \(liveMode)"
                }
                lines.append(line)
            }
        }
        lines.append("Controls:")
        if controls.isEmpty { lines.append("  none") }
        for control in controls {
            lines.append("  " + control.description)
            for item in control.menu ?? [] {
                lines.append("      \(item.index): \(item.name ?? item.value.map { String($0) } ?? "")")
            }
        }
        return lines.joined(separator: "\n")
    }
}
