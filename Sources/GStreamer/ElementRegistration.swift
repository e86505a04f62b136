public import CGStreamer

/// Facts about an installed element factory, read without making an element, and registering a factory's
/// element type under a name of one's own.
extension Element {
    /// The ranks `gst_element_register` takes (`GstRank`).
    public enum Rank: UInt32, Sendable {
        /// `GST_RANK_NONE`: picked last or not at all by autoplugging (decodebin, autovideosink); made by name.
        case none = 0
        /// `GST_RANK_MARGINAL`: picked only when nothing better is installed.
        case marginal = 64
        /// `GST_RANK_SECONDARY`: likely to be picked.
        case secondary = 128
        /// `GST_RANK_PRIMARY`: picked first.
        case primary = 256
    }

    /// Registers `type` (an element type: a registered factory's, see `elementType(of:)`, or one derived from it) as
    /// the factory `name` in this process, so `Element.make(name)` makes one of those — e.g. a stand-in for an element
    /// this machine lacks. Returns false when GStreamer refuses (a type that is no element). Calls `gst_element_register`.
    @discardableResult
    public static func register(name: String, rank: Rank = .none, type: GType) -> Bool {
        GStreamer.initialize()
        return type != 0 && g_type_is_a(type, gst_element_get_type()) != 0 && gst_element_register(nil, name, rank.rawValue, type) != 0
    }

    /// The GType of the elements `factory` makes (0 when it is not installed), for code that derives a type
    /// of its own from it. Calls `gst_element_factory_get_element_type`.
    public static func elementType(of factory: String) -> GType {
        withFactoryType(factory) { $0 } ?? 0
    }

    /// Whether elements of `factory` have a property named `property` (false when the factory is not
    /// installed). Calls `g_object_class_find_property` on the element's class.
    public static func factoryHasProperty(_ factory: String, _ property: String) -> Bool {
        propertyType(factory: factory, property: property) != nil
    }

    /// The value type of `property` on elements of `factory`; nil when either is unknown.
    static func propertyType(factory: String, property: String) -> GType? {
        withFactoryType(factory) { type -> GType? in
            guard let klass = g_type_class_ref(type) else { return nil }
            defer { g_type_class_unref(klass) }
            return g_object_class_find_property(klass.assumingMemoryBound(to: GObjectClass.self), property)?.pointee.value_type
        } ?? nil
    }

    /// Runs `body` with the element type of the installed `factory`, its plugin loaded; nil when it is not installed.
    /// Calls `gst_element_factory_find` and `gst_plugin_feature_load`.
    static func withFactoryType<Result>(_ factory: String, _ body: (GType) -> Result) -> Result? {
        GStreamer.initialize()
        guard let found = gst_element_factory_find(factory) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(found)) }
        // Loads the plugin when it is not yet loaded, as making the element would.
        guard let loaded = gst_plugin_feature_load(found) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(loaded)) }
        let type = gst_element_factory_get_element_type(loaded)
        guard type != 0 else { return nil }
        return body(type)
    }
}
