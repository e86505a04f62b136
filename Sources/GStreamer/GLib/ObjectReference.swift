public import CGStreamer

/// One reference to a GObject of any type (a libsoup server, an RTSP server, a socket, a WebRTC transport),
/// dropped in `deinit`. The GObject-level owner for the libraries the typed wrappers (`Element`, `Bus`, …) do not
/// cover: whoever holds the value holds the object alive, and nothing else unrefs it.
///
/// Untyped on purpose: libsoup, GIO and gst-rtsp-server declare many of their instance structs opaque, so the
/// same owner serves `UnsafeMutablePointer<T>` and `OpaquePointer` alike; `pointer(to:)` and `opaque` hand the
/// pointer back typed as the caller's C function wants it, valid for this value's lifetime. Swift may end a local's
/// lifetime at its last use, which for a pointer handed to C is `pointer(to:)` itself: a local reference whose pointer
/// goes to C is kept to the end of the call (`withExtendedLifetime`, or `defer { withExtendedLifetime(reference) {} }`).
/// Unchecked Sendable: `raw` is immutable after init and GObject's refcounting is atomic; calls into an object whose
/// library is not thread-safe (libsoup) are kept on its thread by the code that makes them, not by this type.
public final class ObjectReference: @unchecked Sendable {
    /// The object; valid for this value's lifetime.
    public let raw: UnsafeMutableRawPointer

    /// Takes over a reference the caller owns (a transfer-full result, already sunk if it was floating).
    public init(adopting raw: UnsafeMutableRawPointer) {
        self.raw = raw
    }

    /// Adds a reference of its own to a borrowed object (transfer none). Calls `g_object_ref`.
    public convenience init(retaining raw: UnsafeMutableRawPointer) {
        g_object_ref(raw)
        self.init(adopting: raw)
    }

    /// Owns a transfer-floating result: sinks the floating reference (or adds one to a non-floating object).
    /// Calls `g_object_ref_sink`.
    public convenience init(sinking raw: UnsafeMutableRawPointer) {
        g_object_ref_sink(raw)
        self.init(adopting: raw)
    }

    /// Takes over a transfer-full typed result.
    public convenience init<Object>(adopting pointer: UnsafeMutablePointer<Object>) {
        self.init(adopting: UnsafeMutableRawPointer(pointer))
    }

    /// Retains a transfer-none typed result. Calls `g_object_ref`.
    public convenience init<Object>(retaining pointer: UnsafeMutablePointer<Object>) {
        self.init(retaining: UnsafeMutableRawPointer(pointer))
    }

    /// Takes over a transfer-full result of an opaque type.
    public convenience init(adopting pointer: OpaquePointer) {
        self.init(adopting: UnsafeMutableRawPointer(pointer))
    }

    /// Retains a transfer-none result of an opaque type. Calls `g_object_ref`.
    public convenience init(retaining pointer: OpaquePointer) {
        self.init(retaining: UnsafeMutableRawPointer(pointer))
    }

    deinit {
        g_object_unref(raw)
    }

    /// The object typed as the C function wants it; valid for this value's lifetime.
    public func pointer<Object>(to type: Object.Type) -> UnsafeMutablePointer<Object> {
        raw.assumingMemoryBound(to: type)
    }

    /// The object as an opaque pointer (for types C declares opaque); valid for this value's lifetime.
    public var opaque: OpaquePointer { OpaquePointer(raw) }

    /// A reference of the caller's own to hand to a call that takes one (transfer full). Calls `g_object_ref`.
    public func newReference() -> UnsafeMutableRawPointer {
        g_object_ref(raw)
        return raw
    }

    /// Whether the object is an instance of `type` (a GType, from the library's `…_get_type()`).
    /// Calls `g_type_check_instance_is_a`.
    public func isInstance(of type: GType) -> Bool {
        g_type_check_instance_is_a(raw.assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    /// The object an object-typed property holds, retained; nil when the object has no such property, it holds no
    /// object, or it is unset. Calls `g_object_class_find_property` and `g_object_get_property`.
    public func objectProperty(_ name: String) -> ObjectReference? {
        guard let specification = g_object_class_find_property(CGStreamer_object_class(raw), name),
            g_type_is_a(specification.pointee.value_type, CGStreamer_type_object()) != 0
        else { return nil }
        var value = GValue()
        g_value_init(&value, specification.pointee.value_type)
        defer { g_value_unset(&value) }
        g_object_get_property(raw.assumingMemoryBound(to: GObject.self), name, &value)
        return g_value_get_object(&value).map { ObjectReference(retaining: $0) }
    }

    /// The object's type name, e.g. "SoupServer". Calls `g_type_name`.
    public var typeName: String {
        String(borrowingCString: g_type_name(CGStreamer_object_class(raw).pointee.g_type_class.g_type)) ?? "GObject"
    }
}
