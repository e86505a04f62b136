public import CGStreamer

/// A Swift type that can be stored in or read from a GObject property.
public protocol PropertyValue {
    /// Reads the value out of an initialized `GValue`, or nil when the types do not fit.
    static func read(from value: UnsafePointer<GValue>) -> Self?
    /// Stores self into a `GValue` initialized to the property's type; false when the types do not fit.
    func write(into value: UnsafeMutablePointer<GValue>) -> Bool
    /// What the type is called in error messages.
    static var propertyTypeName: String { get }
}

extension Element {
    /// Sets a property, checking that it exists, is writable and takes this type. Calls `g_object_set_property`.
    public func set<Value: PropertyValue>(_ property: String, _ newValue: Value) throws(GStreamerError) {
        try withValue(of: property, allowing: CGStreamer_param_writable) { spec, value throws(GStreamerError) in
            if !newValue.write(into: value) {
                if let text = newValue as? String, g_type_fundamental(spec.pointee.value_type) == CGStreamer_type_enum() {
                    throw .invalidEnumValue(element: name, property: property, value: text, allowed: enumNicks(spec))
                }
                throw .propertyTypeMismatch(element: name, property: property, expected: typeName(spec))
            }
            // g_object_set_property would print a warning for a value outside the property's range and keep the
            // old value; the caller hears of it instead.
            if g_param_value_validate(spec, value) != 0 {
                throw .propertyValueOutOfRange(element: name, property: property, value: "\(newValue)", allowed: allowedValues(spec))
            }
            g_object_set_property(objectPointer, property, value)
        }
    }

    /// Reads a property as the given type. Calls `g_object_get_property`.
    public func get<Value: PropertyValue>(_ property: String, as type: Value.Type = Value.self) throws(GStreamerError) -> Value {
        try withValue(of: property, allowing: CGStreamer_param_readable) { spec, value throws(GStreamerError) in
            g_object_get_property(objectPointer, property, value)
            guard let result = Value.read(from: value) else {
                throw .propertyTypeMismatch(element: name, property: property, expected: typeName(spec))
            }
            return result
        }
    }

    /// Runs `body` with the property's spec and a `GValue` initialized to its type (unset afterwards), once the
    /// property is found and its flags include `access` (readable or writable).
    private func withValue<Result>(
        of property: String, allowing access: GParamFlags,
        _ body: (UnsafeMutablePointer<GParamSpec>, UnsafeMutablePointer<GValue>) throws(GStreamerError) -> Result
    ) throws(GStreamerError) -> Result {
        let spec = try paramSpec(property)
        guard spec.pointee.flags.rawValue & access.rawValue != 0 else {
            if access == CGStreamer_param_readable { throw .propertyNotReadable(element: name, property: property) }
            throw .propertyNotWritable(element: name, property: property)
        }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        return try withUnsafeMutablePointer(to: &value) { pointer throws(GStreamerError) in try body(spec, pointer) }
    }

    /// Whether the element has a property of that name. Calls `g_object_class_find_property`.
    public func hasProperty(_ property: String) -> Bool {
        g_object_class_find_property(CGStreamer_object_class(objectPointer), property) != nil
    }

    /// The names of all properties. Calls `g_object_class_list_properties`.
    public var propertyNames: [String] {
        var count: guint = 0
        guard let specs = g_object_class_list_properties(CGStreamer_object_class(objectPointer), &count) else { return [] }
        defer { g_free(specs) }
        return (0..<Int(count)).compactMap { specs[$0].flatMap { String(borrowingCString: $0.pointee.name) } }
    }

    var objectPointer: UnsafeMutablePointer<GObject> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GObject.self)
    }

    private func paramSpec(_ property: String) throws(GStreamerError) -> UnsafeMutablePointer<GParamSpec> {
        guard let spec = g_object_class_find_property(CGStreamer_object_class(objectPointer), property) else {
            throw .propertyNotFound(element: name, property: property)
        }
        return spec
    }

    private func typeName(_ spec: UnsafeMutablePointer<GParamSpec>) -> String {
        String(borrowingCString: g_type_name(spec.pointee.value_type)) ?? "another type"
    }

    /// The range of a numeric property as "MIN…MAX"; other properties: "a value it accepts".
    private func allowedValues(_ spec: UnsafeMutablePointer<GParamSpec>) -> String {
        func range<Spec, Bound>(_ type: Spec.Type, _ bounds: (Spec) -> (Bound, Bound)) -> String {
            let (minimum, maximum) = bounds(UnsafeMutableRawPointer(spec).assumingMemoryBound(to: Spec.self).pointee)
            return "\(minimum)…\(maximum)"
        }
        switch g_type_fundamental(spec.pointee.value_type) {
        case CGStreamer_type_int(): return range(GParamSpecInt.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_uint(): return range(GParamSpecUInt.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_long(): return range(GParamSpecLong.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_ulong(): return range(GParamSpecULong.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_int64(): return range(GParamSpecInt64.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_uint64(): return range(GParamSpecUInt64.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_float(): return range(GParamSpecFloat.self) { ($0.minimum, $0.maximum) }
        case CGStreamer_type_double(): return range(GParamSpecDouble.self) { ($0.minimum, $0.maximum) }
        default: return "a value it accepts"
        }
    }

    private func enumNicks(_ spec: UnsafeMutablePointer<GParamSpec>) -> [String] {
        guard let enumClass = g_type_class_ref(spec.pointee.value_type)?.assumingMemoryBound(to: GEnumClass.self) else { return [] }
        defer { g_type_class_unref(enumClass) }
        return (0..<Int(enumClass.pointee.n_values)).compactMap {
            String(borrowingCString: enumClass.pointee.values[$0].value_nick)
        }
    }
}

private func fundamental(_ value: UnsafePointer<GValue>) -> GType {
    g_type_fundamental(value.pointee.g_type)
}

extension Bool: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Bool? {
        fundamental(value) == CGStreamer_type_boolean() ? g_value_get_boolean(value) != 0 : nil
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        guard fundamental(value) == CGStreamer_type_boolean() else { return false }
        g_value_set_boolean(value, self ? 1 : 0)
        return true
    }

    public static var propertyTypeName: String { "gboolean" }
}

/// Integer properties of every GLib width, range-checked on write.
extension Int64: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Int64? {
        switch fundamental(value) {
        case CGStreamer_type_int(): Int64(g_value_get_int(value))
        case CGStreamer_type_uint(): Int64(g_value_get_uint(value))
        case CGStreamer_type_long(): Int64(g_value_get_long(value))
        case CGStreamer_type_ulong(): Int64(exactly: g_value_get_ulong(value))
        case CGStreamer_type_int64(): Int64(g_value_get_int64(value))
        case CGStreamer_type_uint64(): Int64(exactly: g_value_get_uint64(value))
        case CGStreamer_type_enum(): Int64(g_value_get_enum(value))
        default: nil
        }
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        switch fundamental(value) {
        case CGStreamer_type_int():
            guard let v = Int32(exactly: self) else { return false }
            g_value_set_int(value, v)
        case CGStreamer_type_uint():
            guard let v = UInt32(exactly: self) else { return false }
            g_value_set_uint(value, v)
        case CGStreamer_type_long():
            g_value_set_long(value, Int(self))
        case CGStreamer_type_ulong():
            guard let v = UInt(exactly: self) else { return false }
            g_value_set_ulong(value, v)
        case CGStreamer_type_int64():
            g_value_set_int64(value, Int(self))
        case CGStreamer_type_uint64():
            guard let v = UInt64(exactly: self) else { return false }
            g_value_set_uint64(value, UInt(v))
        default:
            return false
        }
        return true
    }

    public static var propertyTypeName: String { "an integer" }
}

extension Int: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Int? { Int64.read(from: value).flatMap { Int(exactly: $0) } }
    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool { Int64(self).write(into: value) }
    public static var propertyTypeName: String { "an integer" }
}

extension UInt: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> UInt? {
        if fundamental(value) == CGStreamer_type_uint64() { return UInt(g_value_get_uint64(value)) }
        return Int64.read(from: value).flatMap { UInt(exactly: $0) }
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        if fundamental(value) == CGStreamer_type_uint64() {
            g_value_set_uint64(value, self)
            return true
        }
        guard let v = Int64(exactly: self) else { return false }
        return v.write(into: value)
    }

    public static var propertyTypeName: String { "an unsigned integer" }
}

extension UInt64: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> UInt64? { UInt.read(from: value).map(UInt64.init) }
    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool { UInt(self).write(into: value) }
    public static var propertyTypeName: String { "an unsigned integer" }
}

extension Double: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Double? {
        switch fundamental(value) {
        case CGStreamer_type_double(): g_value_get_double(value)
        case CGStreamer_type_float(): Double(g_value_get_float(value))
        default: Int64.read(from: value).map(Double.init)
        }
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        switch fundamental(value) {
        case CGStreamer_type_double(): g_value_set_double(value, self)
        case CGStreamer_type_float(): g_value_set_float(value, Float(self))
        default:
            guard let whole = Int64(exactly: self) else { return false }
            return whole.write(into: value)
        }
        return true
    }

    public static var propertyTypeName: String { "a number" }
}

/// Strings; on enum properties the nick (or name), on flags properties the serialized flags.
extension String: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> String? {
        switch fundamental(value) {
        case CGStreamer_type_string():
            return String(borrowingCString: g_value_get_string(value)) ?? ""
        case CGStreamer_type_enum():
            guard let enumClass = g_type_class_ref(value.pointee.g_type)?.assumingMemoryBound(to: GEnumClass.self) else { return nil }
            defer { g_type_class_unref(enumClass) }
            return g_enum_get_value(enumClass, g_value_get_enum(value)).flatMap { String(borrowingCString: $0.pointee.value_nick) }
        default:
            if value.pointee.g_type == gst_caps_get_type() || value.pointee.g_type == gst_structure_get_type()
                || fundamental(value) == CGStreamer_type_flags()
            {
                return String(adoptingGLibString: gst_value_serialize(value))
            }
            return nil
        }
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        switch fundamental(value) {
        case CGStreamer_type_string():
            g_value_set_string(value, self)
            return true
        case CGStreamer_type_enum():
            guard let enumClass = g_type_class_ref(value.pointee.g_type)?.assumingMemoryBound(to: GEnumClass.self) else { return false }
            defer { g_type_class_unref(enumClass) }
            guard let entry = g_enum_get_value_by_nick(enumClass, self) ?? g_enum_get_value_by_name(enumClass, self) else { return false }
            g_value_set_enum(value, entry.pointee.value)
            return true
        case CGStreamer_type_flags():
            return gst_value_deserialize(value, self) != 0
        default:
            // A structure property (v4l2 encoders' `extra-controls`) takes its serialised form, as gst-launch's does.
            guard value.pointee.g_type == gst_structure_get_type() else { return false }
            return gst_value_deserialize(value, self) != 0
        }
    }

    public static var propertyTypeName: String { "a string" }
}

/// A boxed GStreamer type a property holds by pointer (`GstCaps`, `GstStructure`), read and written with
/// `g_value_get_boxed` and `g_value_set_boxed`, as `gst_value_get_caps`, `gst_value_set_caps` and the structure pair do.
protocol BoxedPropertyValue: PropertyValue {
    associatedtype Boxed
    /// The boxed type's `GType`.
    static var boxedType: GType { get }
    /// The wrapped value.
    var pointer: UnsafeMutablePointer<Boxed> { get }
    /// Wraps a value a `GValue` holds (transfer none: the wrapper takes a reference or a copy of its own).
    init(borrowing boxed: UnsafeMutablePointer<Boxed>)
}

extension BoxedPropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Self? {
        guard value.pointee.g_type == boxedType, let boxed = g_value_get_boxed(value) else { return nil }
        return Self(borrowing: boxed.assumingMemoryBound(to: Boxed.self))
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        guard value.pointee.g_type == Self.boxedType else { return false }
        g_value_set_boxed(value, pointer)
        return true
    }
}

extension Caps: BoxedPropertyValue {
    static var boxedType: GType { gst_caps_get_type() }
    convenience init(borrowing boxed: UnsafeMutablePointer<GstCaps>) { self.init(retaining: boxed) }
    public static var propertyTypeName: String { "GstCaps" }
}

extension Structure: BoxedPropertyValue {
    static var boxedType: GType { gst_structure_get_type() }
    convenience init(borrowing boxed: UnsafeMutablePointer<GstStructure>) { self.init(copying: boxed) }
    public static var propertyTypeName: String { "GstStructure" }
}

/// Object properties holding a pad, such as input-selector's `active-pad`.
extension Pad: PropertyValue {
    public static func read(from value: UnsafePointer<GValue>) -> Pad? {
        guard g_type_is_a(value.pointee.g_type, gst_pad_get_type()) != 0,
            let object = g_value_get_object(value)
        else { return nil }
        return Pad(retaining: object.assumingMemoryBound(to: GstPad.self))
    }

    public func write(into value: UnsafeMutablePointer<GValue>) -> Bool {
        guard g_type_is_a(value.pointee.g_type, gst_pad_get_type()) != 0 else { return false }
        g_value_set_object(value, UnsafeMutableRawPointer(pointer))
        return true
    }

    public static var propertyTypeName: String { "GstPad" }
}
