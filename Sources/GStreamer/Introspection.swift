import CGStreamer

// Reading a built graph back: its pads, their peers and every property as text. Tests compare a graph
// built from a `GraphDescription` with the one gst-launch text parses to; `show --dot` tooling can too.

extension Element {
    /// Every pad of the element, static and requested. Calls `gst_element_iterate_pads`.
    public var pads: [Pad] {
        objects(of: gst_element_iterate_pads(pointer)) { Pad(retaining: $0.assumingMemoryBound(to: GstPad.self)) }
    }

    /// Reads any readable property as GStreamer serializes it; nil when it has no text form (an object, a
    /// pointer) or cannot be read. Calls `g_object_get_property` and `gst_value_serialize`.
    public func serializedProperty(_ property: String) -> String? {
        guard let spec = g_object_class_find_property(CGStreamer_object_class(objectPointer), property),
            spec.pointee.flags.rawValue & CGStreamer_param_readable.rawValue != 0
        else { return nil }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(objectPointer, property, &value)
        // An unset sample or object has no text; GStreamer's serializers would complain about NULL.
        switch g_type_fundamental(spec.pointee.value_type) {
        case CGStreamer_type_boxed() where g_value_get_boxed(&value) == nil: return nil
        case CGStreamer_type_object() where g_value_get_object(&value) == nil: return nil
        default: return String(adoptingGLibString: gst_value_serialize(&value))
        }
    }
}

extension Element {
    /// Whether elements of `factory` have an enum or flags property named `property` (false when either is
    /// unknown). Calls `gst_element_factory_find` and `g_object_class_find_property` on the element's class.
    static func propertyIsEnumOrFlags(factory: String, property: String) -> Bool {
        guard let type = propertyType(factory: factory, property: property) else { return false }
        let fundamental = g_type_fundamental(type)
        return fundamental == CGStreamer_type_enum() || fundamental == CGStreamer_type_flags()
    }
}

extension Pad {
    /// Whether data leaves the element through this pad. Calls `gst_pad_get_direction`.
    public var isSource: Bool { gst_pad_get_direction(pointer) == GST_PAD_SRC }

    /// The element the pad belongs to (nil for a pad without one). Calls `gst_pad_get_parent_element`.
    public var parentElement: Element? {
        gst_pad_get_parent_element(pointer).map { Element(adopting: $0) }
    }
}

/// Every object a GStreamer iterator yields (starting over when the collection changes under it), each
/// wrapped by `wrap`, which takes its own reference. Frees the iterator. Calls `gst_iterator_next`.
func objects<T>(of iterator: UnsafeMutablePointer<GstIterator>?, _ wrap: (UnsafeMutableRawPointer) -> T) -> [T] {
    guard let iterator else { return [] }
    defer { gst_iterator_free(iterator) }
    var result: [T] = []
    var item = GValue()
    defer { g_value_unset(&item) }
    while true {
        switch gst_iterator_next(iterator, &item) {
        case GST_ITERATOR_OK:
            if let object = g_value_get_object(&item) { result.append(wrap(object)) }
            g_value_reset(&item)
        case GST_ITERATOR_RESYNC:
            result.removeAll()
            gst_iterator_resync(iterator)
        default:
            return result
        }
    }
}
