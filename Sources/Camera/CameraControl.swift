import CV4L2

/// A V4L2 control's type, named as `v4l2-ctl --list-ctrls` prints it (`int`, `bool`, `menu`, …).
public enum ControlType: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `V4L2_CTRL_TYPE_INTEGER`, a 32-bit signed value.
    case integer
    /// `V4L2_CTRL_TYPE_BOOLEAN`.
    case boolean
    /// `V4L2_CTRL_TYPE_MENU`: the value is a menu index, items have names.
    case menu
    /// `V4L2_CTRL_TYPE_BUTTON`: writing any value performs an action; nothing to read.
    case button
    /// `V4L2_CTRL_TYPE_INTEGER64`.
    case integer64
    /// `V4L2_CTRL_TYPE_CTRL_CLASS`: a heading that groups the controls after it.
    case controlClass
    /// `V4L2_CTRL_TYPE_STRING`: minimum/maximum are lengths in bytes.
    case string
    /// `V4L2_CTRL_TYPE_BITMASK`: a 32-bit mask; `maximum` holds the bits that may be set.
    case bitmask
    /// `V4L2_CTRL_TYPE_INTEGER_MENU`: the value is a menu index, items carry 64-bit integers.
    case integerMenu
    /// Array element types (`U8`, `U16`, `U32`) and compound types (`AREA`, codec structs), by raw code.
    case other(UInt32)

    /// Maps the kernel's `v4l2_ctrl_type` code.
    public init(code: UInt32) {
        switch code {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: self = .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: self = .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: self = .menu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: self = .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: self = .integer64
        case V4L2_CTRL_TYPE_CTRL_CLASS.rawValue: self = .controlClass
        case V4L2_CTRL_TYPE_STRING.rawValue: self = .string
        case V4L2_CTRL_TYPE_BITMASK.rawValue: self = .bitmask
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: self = .integerMenu
        default: self = .other(code)
        }
    }

    /// The name `v4l2-ctl` prints for this type.
    public var description: String {
        switch self {
        case .integer: return "int"
        case .boolean: return "bool"
        case .menu: return "menu"
        case .button: return "button"
        case .integer64: return "int64"
        case .controlClass: return "ctrl_class"
        case .string: return "str"
        case .bitmask: return "bitmask"
        case .integerMenu: return "intmenu"
        case let .other(code):
            switch code {
            case V4L2_CTRL_TYPE_U8.rawValue: return "u8"
            case V4L2_CTRL_TYPE_U16.rawValue: return "u16"
            case V4L2_CTRL_TYPE_U32.rawValue: return "u32"
            case V4L2_CTRL_TYPE_AREA.rawValue: return "area"
            default: return "type_0x\(String(code, radix: 16))"
            }
        }
    }

    /// Decodes from the `v4l2-ctl` name (or `type_0x…` for others).
    public init(from decoder: Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        let known: [ControlType] = [
            .integer, .boolean, .menu, .button, .integer64, .controlClass, .string,
            .bitmask, .integerMenu, .other(V4L2_CTRL_TYPE_U8.rawValue),
            .other(V4L2_CTRL_TYPE_U16.rawValue), .other(V4L2_CTRL_TYPE_U32.rawValue),
            .other(V4L2_CTRL_TYPE_AREA.rawValue)
        ]
        if let match = known.first(where: { $0.description == name }) {
            self = match
        } else if name.hasPrefix("type_0x"), let code = UInt32(name.dropFirst(7), radix: 16) {
            self = .other(code)
        } else {
            throw DecodingError.dataCorruptedError(
                in: try decoder.singleValueContainer(),
                debugDescription: "unknown control type \(name)")
        }
    }

    /// Encodes as the `v4l2-ctl` name.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// True for types whose single value this API reads and writes as an integer.
    var isIntegral: Bool {
        switch self {
        case .integer, .boolean, .menu, .button, .integer64, .bitmask, .integerMenu: return true
        case .controlClass, .string, .other: return false
        }
    }
}

/// A control's `V4L2_CTRL_FLAG_*` bits: here what may be done with it, in the extension below how it behaves.
public struct ControlFlags: OptionSet, Hashable, Sendable, Codable {
    /// The raw flag bits.
    public let rawValue: UInt32
    /// Wraps raw flag bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Permanently disabled; hidden from listings.
    public static let disabled = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_DISABLED))
    /// Temporarily grabbed (e.g. while streaming); writes fail with EBUSY.
    public static let grabbed = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_GRABBED))
    /// Cannot be written.
    public static let readOnly = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_READ_ONLY))
    /// Currently has no effect (e.g. manual exposure while auto exposure is on).
    public static let inactive = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_INACTIVE))
    /// Cannot be read.
    public static let writeOnly = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_WRITE_ONLY))

    /// The names `v4l2-ctl` prints, in its order (`read-only`, `slider`, …).
    public var names: [String] {
        let table: [(ControlFlags, String)] = [
            (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.update, "update"),
            (.inactive, "inactive"), (.slider, "slider"), (.writeOnly, "write-only"), (.volatile, "volatile"),
            (.hasPayload, "has-payload"), (.executeOnWrite, "execute-on-write"),
            (.modifyLayout, "modify-layout"), (.dynamicArray, "dynamic-array")
        ]
        return table.filter { contains($0.0) }.map(\.1)
    }
}

/// The flags that say how a control behaves and what its value is like.
extension ControlFlags {
    /// Changing it may change other controls.
    public static let update = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_UPDATE))
    /// Best shown as a slider.
    public static let slider = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_SLIDER))
    /// The value changes by itself (e.g. a gain chosen by auto gain).
    public static let volatile = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_VOLATILE))
    /// The value lives behind a pointer (strings, arrays, compound types).
    public static let hasPayload = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_HAS_PAYLOAD))
    /// Writing performs an action even when the value is unchanged.
    public static let executeOnWrite = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_EXECUTE_ON_WRITE))
    /// Changing it changes the buffer layout.
    public static let modifyLayout = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_MODIFY_LAYOUT))
    /// An array whose length changes.
    public static let dynamicArray = ControlFlags(rawValue: UInt32(V4L2_CTRL_FLAG_DYNAMIC_ARRAY))
}

/// One entry of a menu or integer-menu control.
public struct MenuItem: Hashable, Sendable, Codable {
    /// The value the control takes to select this item.
    public let index: Int64
    /// The item's name (menu controls).
    public let name: String?
    /// The item's integer (integer-menu controls).
    public let value: Int64?
}

/// What `VIDIOC_QUERY_EXT_CTRL` (+ `VIDIOC_QUERYMENU`) says about one control; look controls up by `id`.
public struct CameraControl: Hashable, Sendable, Codable {
    /// The control ID (`V4L2_CID_*`); the only stable key — kernels name the same control differently.
    public let id: UInt32
    /// The driver's name, e.g. `"Horizontal Flip"`.
    public let label: String
    /// The name `v4l2-ctl` uses, e.g. `"horizontal_flip"` (see `ControlNames.key(for:)`).
    public let name: String
    /// The control's type.
    public let type: ControlType
    /// Smallest value (for strings: shortest length).
    public let minimum: Int64
    /// Largest value (for strings: longest length; for bitmasks: the settable bits).
    public let maximum: Int64
    /// Step between values.
    public let step: UInt64
    /// The driver's default value.
    public let defaultValue: Int64
    /// The control's flags.
    public let flags: ControlFlags
    /// Bytes per element.
    public let elementSize: UInt32
    /// Number of elements (1 for plain controls).
    public let elements: UInt32
    /// Array dimensions; empty for plain controls.
    public let dimensions: [UInt32]
    /// Menu items (menu and integer-menu types), skipping indexes the driver leaves out.
    public let menu: [MenuItem]

    /// Creates a control description; `name` is derived from `label` the way `v4l2-ctl` does.
    public init(
        id: UInt32, label: String, type: ControlType, minimum: Int64, maximum: Int64, step: UInt64,
        defaultValue: Int64, flags: ControlFlags, elementSize: UInt32 = 4, elements: UInt32 = 1,
        dimensions: [UInt32] = [], menu: [MenuItem] = []
    ) {
        (self.id, self.label, self.name, self.type, self.flags) = (id, label, ControlNames.key(for: label), type, flags)
        (self.minimum, self.maximum, self.step, self.defaultValue) = (minimum, maximum, step, defaultValue)
        (self.elementSize, self.elements, self.dimensions, self.menu) = (elementSize, elements, dimensions, menu)
    }

    /// True for arrays and compound types, whose values this API lists but does not read or write.
    public var isArrayOrCompound: Bool {
        !dimensions.isEmpty || elements != 1 || !(type.isIntegral || type == .string)
    }

    /// True when a scalar value can be read (not a button, class, array, compound or write-only control).
    public var isReadable: Bool {
        !isArrayOrCompound && type != .button && type != .controlClass && !flags.contains(.writeOnly)
    }

    /// True when a value can be written.
    public var isWritable: Bool {
        !isArrayOrCompound && type != .controlClass && !flags.contains(.readOnly)
    }
}

/// The value of a scalar control.
public enum ControlValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// int, int64, menu and integer-menu indexes, bitmasks.
    case integer(Int64)
    /// bool.
    case boolean(Bool)
    /// str.
    case string(String)

    /// The value as `v4l2-ctl` would print it, without quoting.
    public var description: String {
        switch self {
        case let .integer(value): return String(value)
        case let .boolean(value): return value ? "1" : "0"
        case let .string(value): return value
        }
    }

    /// The integer form: booleans are 0/1, strings have none.
    public var integerValue: Int64? {
        switch self {
        case let .integer(value): return value
        case let .boolean(value): return value ? 1 : 0
        case .string: return nil
        }
    }

    /// Decodes from a JSON number, boolean or string.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes as a JSON number, boolean or string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .integer(value): try container.encode(value)
        case let .boolean(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        }
    }
}

/// How `v4l2-ctl` turns a driver's control name into its command-line name.
public enum ControlNames {
    /// Lowercases ASCII letters and digits and joins the runs between them with `_`,
    /// dropping leading and trailing separators (v4l2-ctl's `name2var`): `"Gain, Automatic"` → `"gain_automatic"`.
    public static func key(for label: String) -> String {
        var result = ""
        var pendingUnderscore = false
        for byte in label.utf8 {
            let isAlnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlnum {
                if pendingUnderscore { result.append("_") }
                pendingUnderscore = false
                let lower = (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
                result.unicodeScalars.append(Unicode.Scalar(lower))
            } else if !result.isEmpty {
                pendingUnderscore = true
            }
        }
        return result
    }
}
