import CGStreamer

extension Element {
    /// Names each file a `splitmuxsink` opens: `name(fragment)` is asked on the streaming thread just before the
    /// file opens and must not block for long. Its string becomes the file's location; nil leaves splitmuxsink to
    /// its `location` pattern. Connects to `format-location`; the closure is dropped with the element.
    public func onFormatLocation(_ name: @escaping @Sendable (_ fragment: Int) -> String?) {
        let context = CallbackRegistry.register(FormatLocation(name: name))
        let handler: @convention(c) (UnsafeMutablePointer<GstElement>?, guint, UnsafeMutableRawPointer?) -> UnsafeMutablePointer<gchar>? = {
            _, fragment, userData in
            // On a streaming thread: an unknown context names nothing, never traps.
            guard let box = CallbackRegistry.lookup(userData, as: FormatLocation.self), let text = box.name(Int(fragment)) else {
                return nil
            }
            // The signal's return is transfer full: GLib memory the caller frees.
            return g_strdup(text)
        }
        g_signal_connect_data(
            UnsafeMutableRawPointer(pointer), "format-location", unsafeBitCast(handler, to: GCallback.self), context,
            { userData, _ in CallbackRegistry.remove(userData) }, CGStreamer_connect_default)
    }
}

/// The naming closure a `format-location` handler finds by its `user_data`.
private final class FormatLocation: Sendable {
    let name: @Sendable (Int) -> String?

    init(name: @escaping @Sendable (Int) -> String?) {
        self.name = name
    }
}

extension Element {
    /// Hands `child` to an object property that takes an element (splitmuxsink's `muxer` and `sink`); the property's
    /// owner takes its own reference. Calls `g_object_set_property`.
    public func set(_ property: String, element child: Element) throws(GStreamerError) {
        guard let spec = g_object_class_find_property(CGStreamer_object_class(objectPointer), property) else {
            throw .propertyNotFound(element: name, property: property)
        }
        guard isInstance(UnsafeMutableRawPointer(child.pointer), of: spec.pointee.value_type) else {
            throw .propertyTypeMismatch(
                element: name, property: property, expected: String(borrowingCString: g_type_name(spec.pointee.value_type)) ?? "an object")
        }
        var value = GValue()
        g_value_init(&value, spec.pointee.value_type)
        defer { g_value_unset(&value) }
        g_value_set_object(&value, UnsafeMutableRawPointer(child.pointer))
        g_object_set_property(objectPointer, property, &value)
    }
}
