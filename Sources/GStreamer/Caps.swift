public import CGStreamer

/// Media capabilities (formats a pad can produce or accept). Holds one reference.
/// Unchecked Sendable: `pointer` is immutable after init, the caps are only read through it, and GStreamer's
/// refcounting is atomic.
public final class Caps: @unchecked Sendable, CustomStringConvertible {
    /// The wrapped caps; valid for this object's lifetime.
    public let pointer: UnsafeMutablePointer<GstCaps>

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: UnsafeMutablePointer<GstCaps>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own (transfer none). Calls `gst_mini_object_ref`.
    public init(retaining pointer: UnsafeMutablePointer<GstCaps>) {
        gst_mini_object_ref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
        self.pointer = pointer
    }

    /// Parses caps text such as "video/x-raw,format=RGBA,width=64,height=48". Calls `gst_caps_from_string`.
    public convenience init(parsing text: String) throws(GStreamerError) {
        GStreamer.initialize()
        guard let caps = gst_caps_from_string(text) else { throw .invalidCaps(text) }
        self.init(adopting: caps)
    }

    deinit {
        gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// Number of structures. Calls `gst_caps_get_size`.
    public var count: Int { Int(gst_caps_get_size(pointer)) }

    /// Whether these are ANY caps. Calls `gst_caps_is_any`.
    public var isAny: Bool { gst_caps_is_any(pointer) != 0 }

    /// Whether no format fits. Calls `gst_caps_is_empty`.
    public var isEmpty: Bool { gst_caps_is_empty(pointer) != 0 }

    /// Whether the caps describe exactly one format. Calls `gst_caps_is_fixed`.
    public var isFixed: Bool { gst_caps_is_fixed(pointer) != 0 }

    /// A copy of the structure at `index`, or nil past the end. Calls `gst_caps_get_structure`.
    public func structure(at index: Int) -> Structure? {
        guard index >= 0, index < count, let structure = gst_caps_get_structure(pointer, guint(index)) else { return nil }
        return Structure(copying: structure)
    }

    /// Whether the two caps describe exactly the same formats. Calls `gst_caps_is_equal`.
    public func isEqual(to other: Caps) -> Bool {
        pointer == other.pointer || gst_caps_is_equal(pointer, other.pointer) != 0
    }

    /// Whether the two caps share a format. Calls `gst_caps_can_intersect`.
    public func canIntersect(_ other: Caps) -> Bool {
        gst_caps_can_intersect(pointer, other.pointer) != 0
    }

    /// Calls `gst_caps_to_string`.
    public var description: String {
        String(adoptingGLibString: gst_caps_to_string(pointer)) ?? ""
    }
}

/// A named set of typed fields (caps entries, element messages, stats). Owns its own copy.
/// Unchecked Sendable: `pointer` is immutable and the copy is its own; `set`, its one unlocked write, is called only
/// on a structure not yet shared, and every other method reads.
public final class Structure: @unchecked Sendable, CustomStringConvertible {
    /// The wrapped structure; freed in `deinit`.
    public let pointer: UnsafeMutablePointer<GstStructure>

    /// Owns a structure the caller gives up (transfer full, no parent).
    public init(adopting pointer: UnsafeMutablePointer<GstStructure>) {
        self.pointer = pointer
    }

    /// Copies a borrowed structure. Calls `gst_structure_copy`.
    public init(copying pointer: UnsafePointer<GstStructure>) {
        self.pointer = gst_structure_copy(pointer)
    }

    /// An empty structure with a name. Calls `gst_structure_new_empty`.
    public convenience init(name: String) {
        GStreamer.initialize()
        self.init(adopting: gst_structure_new_empty(name))
    }

    /// Parses text such as "stats, frames=(guint64)10". Calls `gst_structure_from_string`.
    public convenience init(parsing text: String) throws(GStreamerError) {
        GStreamer.initialize()
        guard let structure = gst_structure_from_string(text, nil) else { throw .invalidStructure(text) }
        self.init(adopting: structure)
    }

    deinit {
        gst_structure_free(pointer)
    }

    /// The structure's name, e.g. "video/x-raw". Calls `gst_structure_get_name`.
    public var name: String { String(borrowingCString: gst_structure_get_name(pointer)) ?? "" }

    /// The field names in order. Calls `gst_structure_nth_field_name`.
    public var fieldNames: [String] {
        (0..<Int(gst_structure_n_fields(pointer))).compactMap {
            String(borrowingCString: gst_structure_nth_field_name(pointer, guint($0)))
        }
    }

    /// Whether a field exists. Calls `gst_structure_has_field`.
    public func has(_ field: String) -> Bool { gst_structure_has_field(pointer, field) != 0 }

    /// A field of any integer type, or nil. Calls `gst_structure_get_value`.
    public func int(_ field: String) -> Int? {
        guard let value = gst_structure_get_value(pointer, field) else { return nil }
        return Int64.read(from: value).flatMap { Int(exactly: $0) }
            ?? (value.pointee.g_type == CGStreamer_type_uint64() ? Int(exactly: g_value_get_uint64(value)) : nil)
    }

    /// A floating-point (or integer) field. Calls `gst_structure_get_value`.
    public func double(_ field: String) -> Double? {
        gst_structure_get_value(pointer, field).flatMap { Double.read(from: $0) }
    }

    /// A boolean field. Calls `gst_structure_get_value`.
    public func bool(_ field: String) -> Bool? {
        gst_structure_get_value(pointer, field).flatMap { Bool.read(from: $0) }
    }

    /// A string (or enum, or serialized) field. Calls `gst_structure_get_value`.
    public func string(_ field: String) -> String? {
        gst_structure_get_value(pointer, field).flatMap { String.read(from: $0) }
    }

    /// A string field, or a list of strings (`format={ RGBA, NV12 }`) in order; nil for other types.
    /// Calls `gst_structure_get_value` and `gst_value_list_get_value`.
    public func strings(_ field: String) -> [String]? {
        guard let value = gst_structure_get_value(pointer, field) else { return nil }
        if value.pointee.g_type == CGStreamer_type_string() {
            return String(borrowingCString: g_value_get_string(value)).map { [$0] }
        }
        guard value.pointee.g_type == gst_value_list_get_type() else { return nil }
        var strings: [String] = []
        for index in 0..<gst_value_list_get_size(value) {
            guard let item = gst_value_list_get_value(value, index), item.pointee.g_type == CGStreamer_type_string(),
                let string = String(borrowingCString: g_value_get_string(item))
            else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// A fraction field such as a framerate, as numerator/denominator. Calls `gst_structure_get_fraction`.
    public func fraction(_ field: String) -> (numerator: Int, denominator: Int)? {
        var numerator: gint = 0, denominator: gint = 0
        guard gst_structure_get_fraction(pointer, field, &numerator, &denominator) != 0 else { return nil }
        return (Int(numerator), Int(denominator))
    }

    /// Any field, printed as GStreamer serializes it. Calls `gst_value_serialize`.
    public func serialized(_ field: String) -> String? {
        gst_structure_get_value(pointer, field).flatMap { String(adoptingGLibString: gst_value_serialize($0)) }
    }

    /// Sets a field to a Swift value, typed as GLib's matching fundamental. Calls `gst_structure_set_value`.
    public func set(_ field: String, _ value: some StructureFieldValue) {
        var gvalue = GValue()
        value.initialize(&gvalue)
        gst_structure_take_value(pointer, field, &gvalue)
    }

    /// Calls `gst_structure_to_string`.
    public var description: String {
        String(adoptingGLibString: gst_structure_to_string(pointer)) ?? ""
    }
}

/// A Swift value that can become a new structure field.
public protocol StructureFieldValue {
    /// Initializes an empty `GValue` with self.
    func initialize(_ value: UnsafeMutablePointer<GValue>)
}

extension Bool: StructureFieldValue {
    public func initialize(_ value: UnsafeMutablePointer<GValue>) {
        g_value_init(value, CGStreamer_type_boolean()); g_value_set_boolean(value, self ? 1 : 0)
    }
}

extension Int: StructureFieldValue {
    public func initialize(_ value: UnsafeMutablePointer<GValue>) {
        g_value_init(value, CGStreamer_type_int64()); g_value_set_int64(value, self)
    }
}

extension UInt64: StructureFieldValue {
    public func initialize(_ value: UnsafeMutablePointer<GValue>) {
        g_value_init(value, CGStreamer_type_uint64()); g_value_set_uint64(value, UInt(self))
    }
}

extension Double: StructureFieldValue {
    public func initialize(_ value: UnsafeMutablePointer<GValue>) {
        g_value_init(value, CGStreamer_type_double()); g_value_set_double(value, self)
    }
}

extension String: StructureFieldValue {
    public func initialize(_ value: UnsafeMutablePointer<GValue>) {
        g_value_init(value, CGStreamer_type_string()); g_value_set_string(value, self)
    }
}
