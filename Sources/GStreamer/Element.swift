public import CGStreamer

/// A GStreamer element. Holds exactly one reference, dropped in `deinit`.
/// Unchecked Sendable: `pointer` is immutable after init, and the `GstElement` it wraps is thread-safe (atomic
/// refcounting; GStreamer's element calls take the object's lock).
public class Element: @unchecked Sendable {
    /// The wrapped element; valid for this object's lifetime.
    public let pointer: UnsafeMutablePointer<GstElement>

    /// Takes over a reference the caller owns (transfer full, already sunk).
    public required init(adopting pointer: UnsafeMutablePointer<GstElement>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own to a borrowed element (transfer none). Calls `gst_object_ref`.
    public convenience init(retaining pointer: UnsafeMutablePointer<GstElement>) {
        gst_object_ref(pointer)
        self.init(adopting: pointer)
    }

    /// Sinks a floating result (`gst_element_factory_make`, `gst_parse_launch`) and owns it.
    convenience init(sinking pointer: UnsafeMutablePointer<GstElement>) {
        gst_object_ref_sink(pointer)
        self.init(adopting: pointer)
    }

    deinit {
        gst_object_unref(pointer)
    }

    /// The GType this wrapper stands for; `Bin.element(named:as:)` checks it before wrapping.
    public class var gType: GType { gst_element_get_type() }

    /// Creates an element from its factory, typed as asked: a factory whose element is not of this wrapper's
    /// GType (`AppSink.make("fakesink")`) throws `wrongElementType`, like `Bin.element(named:as:)` returns nil.
    /// Calls `gst_element_factory_make`.
    public static func make(_ factory: String, name: String? = nil) throws(GStreamerError) -> Self {
        GStreamer.initialize()
        guard let element = gst_element_factory_make(factory, name) else {
            throw .elementNotFound(factory: factory, package: GStreamerError.package(forFactory: factory))
        }
        gst_object_ref_sink(element)
        guard isInstance(element, of: gType) else {
            let actual = typeName(of: element)
            gst_object_unref(element)
            throw .wrongElementType(
                factory: factory, expected: String(borrowingCString: g_type_name(gType)) ?? "?",
                actual: actual)
        }
        return Self(adopting: element)
    }

    /// Whether a factory of that name is installed. Calls `gst_element_factory_find`.
    public static func factoryExists(_ factory: String) -> Bool {
        GStreamer.initialize()
        guard let found = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(found))
        return true
    }

    /// The element's name. Calls `gst_object_get_name`.
    public var name: String {
        objectName(UnsafeMutableRawPointer(pointer))
    }

    /// The element's running time now (its clock's time less its base time), in nanoseconds; nil before it
    /// has a clock (not yet PLAYING). What a buffer handed from another pipeline is stamped with here.
    /// Calls `gst_element_get_clock`, `gst_clock_get_time` and `gst_element_get_base_time`.
    public var runningTime: UInt64? {
        guard let (now, base) = clockAndBaseTime else { return nil }
        return now >= base ? now - base : 0
    }

    /// The element's clock's time now and its base time, in nanoseconds; nil before it has a clock (not yet PLAYING).
    /// For a caller that treats a base time still ahead of the clock as no running time at all.
    /// Calls `gst_element_get_clock`, `gst_clock_get_time` and `gst_element_get_base_time`.
    public var clockAndBaseTime: (now: UInt64, base: UInt64)? {
        guard let clock = gst_element_get_clock(pointer) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        return (UInt64(gst_clock_get_time(clock)), UInt64(gst_element_get_base_time(pointer)))
    }

    /// The name of the factory that made this element, e.g. "videotestsrc". Calls `gst_element_get_factory`.
    public var factoryName: String? {
        guard let factory = gst_element_get_factory(pointer) else { return nil }
        return objectName(UnsafeMutableRawPointer(factory))
    }

    /// The classes its factory declares ("Codec/Decoder/Video" gives ["Codec", "Decoder", "Video"]); empty when it
    /// has no factory. Calls `gst_element_factory_get_metadata` with `GST_ELEMENT_METADATA_KLASS`.
    public var factoryClasses: [String] {
        guard let factory = gst_element_get_factory(pointer),
            let klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS)
        else { return [] }
        return String(cString: klass).split(separator: "/").map(String.init)
    }

    /// A static pad by name. Calls `gst_element_get_static_pad`.
    public func staticPad(_ name: String) throws(GStreamerError) -> Pad {
        guard let pad = gst_element_get_static_pad(pointer, name) else {
            throw .padNotFound(element: self.name, pad: name)
        }
        return Pad(adopting: pad)
    }

    /// The caps of the element's pad template `name` ("sink", "src", "src_%u"): every format the pad may ever
    /// take; nil when there is no such template. Calls `gst_element_get_pad_template` and `gst_pad_template_get_caps`.
    public func padTemplateCaps(_ name: String) -> Caps? {
        guard let template = gst_element_get_pad_template(pointer, name),
            let caps = gst_pad_template_get_caps(template)
        else { return nil }
        return Caps(adopting: caps)
    }

    /// Requests a pad from a template such as "src_%u". Calls `gst_element_request_pad_simple`.
    public func requestPad(_ template: String) throws(GStreamerError) -> Pad {
        guard let pad = gst_element_request_pad_simple(pointer, template) else {
            throw .padNotFound(element: name, pad: template)
        }
        return Pad(adopting: pad)
    }

    /// Gives a request pad back. Calls `gst_element_release_request_pad`.
    public func releaseRequestPad(_ pad: Pad) {
        gst_element_release_request_pad(pointer, pad.pointer)
    }

    /// Links this element's pads to `next`, optionally through caps. Calls `gst_element_link_filtered`.
    @discardableResult
    public func link(to next: Element, caps: Caps? = nil) throws(GStreamerError) -> Element {
        guard gst_element_link_filtered(pointer, next.pointer, caps?.pointer) != 0 else {
            throw .linkFailed(
                source: name, sink: next.name,
                reason: caps.map { "no common format with \($0)" } ?? "no compatible pads or formats")
        }
        return next
    }

    /// Unlinks from `next`. Calls `gst_element_unlink`.
    public func unlink(from next: Element) {
        gst_element_unlink(pointer, next.pointer)
    }

    /// Asks for a state without waiting; false when the change failed at once. Calls `gst_element_set_state`.
    @discardableResult
    public func requestState(_ state: State) -> Bool {
        gst_element_set_state(pointer, state.gstState) != GST_STATE_CHANGE_FAILURE
    }

    /// Keeps the element's state in step with its parent's. Calls `gst_element_sync_state_with_parent`.
    @discardableResult
    public func syncStateWithParent() -> Bool {
        gst_element_sync_state_with_parent(pointer) != 0
    }

    /// The current state, waiting at most `timeout` seconds for a pending change. Calls `gst_element_get_state`.
    public func currentState(timeout: Double = 0) -> State {
        var current = GST_STATE_VOID_PENDING
        var pending = GST_STATE_VOID_PENDING
        _ = gst_element_get_state(pointer, &current, &pending, clockTime(seconds: timeout))
        return State(current) ?? .null
    }

    /// Sends an event (for example end-of-stream) into the element. Calls `gst_element_send_event`.
    @discardableResult
    public func sendEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        gst_element_send_event(pointer, event) != 0
    }

    /// Sends end-of-stream into this element. Calls `gst_event_new_eos`.
    @discardableResult
    public func sendEndOfStream() -> Bool {
        sendEvent(gst_event_new_eos())
    }

    /// Asks the encoder upstream of this element (a sink) for a key frame with its headers as soon as it can.
    /// Calls `gst_video_event_new_upstream_force_key_unit`.
    @discardableResult
    public func requestKeyFrame() -> Bool {
        sendEvent(gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0))
    }

    /// Posts a message on the element's bus (GStreamer takes ownership). Calls `gst_element_post_message`.
    @discardableResult
    public func post(_ message: UnsafeMutablePointer<GstMessage>) -> Bool {
        gst_element_post_message(pointer, message) != 0
    }

    /// Posts an error from this element with `text` as its message (no GError domain of GStreamer's fits a reason
    /// of ours, so it has none). Calls `gst_message_new_error`.
    @discardableResult
    public func postError(_ text: String) -> Bool {
        post(gst_message_new_error(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self), nil, text))
    }
}

/// A pad of an element. Holds one reference.
/// Unchecked Sendable: `pointer` is immutable after init, and the `GstPad` it wraps is thread-safe (atomic
/// refcounting; GStreamer's pad calls take the object's lock).
public final class Pad: @unchecked Sendable {
    /// The wrapped pad; valid for this object's lifetime.
    public let pointer: UnsafeMutablePointer<GstPad>

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: UnsafeMutablePointer<GstPad>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own (transfer none). Calls `gst_object_ref`.
    public convenience init(retaining pointer: UnsafeMutablePointer<GstPad>) {
        gst_object_ref(pointer)
        self.init(adopting: pointer)
    }

    deinit {
        gst_object_unref(pointer)
    }

    /// The pad's name. Calls `gst_object_get_name`.
    public var name: String {
        objectName(UnsafeMutableRawPointer(pointer))
    }

    /// Links to a sink pad. Calls `gst_pad_link`.
    public func link(to sink: Pad) throws(GStreamerError) {
        let result = gst_pad_link(pointer, sink.pointer)
        guard result == GST_PAD_LINK_OK else {
            throw .linkFailed(
                source: name, sink: sink.name,
                reason: String(borrowingCString: gst_pad_link_get_name(result)) ?? "refused")
        }
    }

    /// Unlinks from a sink pad. Calls `gst_pad_unlink`.
    @discardableResult
    public func unlink(from sink: Pad) -> Bool {
        gst_pad_unlink(pointer, sink.pointer) != 0
    }

    /// The caps currently flowing, if negotiated. Calls `gst_pad_get_current_caps`.
    public var currentCaps: Caps? {
        gst_pad_get_current_caps(pointer).map { Caps(adopting: $0) }
    }

    /// The pad on the other side of the link. Calls `gst_pad_get_peer`.
    public var peer: Pad? {
        gst_pad_get_peer(pointer).map { Pad(adopting: $0) }
    }

    /// Sends end-of-stream into this pad (for one branch of a graph). Calls `gst_event_new_eos`.
    @discardableResult
    public func sendEndOfStream() -> Bool {
        sendEvent(gst_event_new_eos())
    }

    /// Sends an event through this pad. Calls `gst_pad_send_event`.
    @discardableResult
    public func sendEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        gst_pad_send_event(pointer, event) != 0
    }
}

/// Whether a GObject instance is of `type` or a subtype. Calls `g_type_check_instance_is_a`
/// (`G_TYPE_CHECK_INSTANCE_TYPE` is a macro).
func isInstance(_ object: UnsafeMutableRawPointer, of type: GType) -> Bool {
    g_type_check_instance_is_a(object.assumingMemoryBound(to: GTypeInstance.self), type) != 0
}

/// The GType name of a GObject instance, e.g. "GstFakeSink". Reads `g_class->g_type` (`G_OBJECT_TYPE` is a macro).
func typeName(of object: UnsafeMutableRawPointer) -> String {
    let type = object.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class?.pointee.g_type ?? 0
    return String(borrowingCString: g_type_name(type)) ?? "an unknown type"
}

/// Reads a GstObject's name and frees the copy.
func objectName(_ object: UnsafeMutableRawPointer?) -> String {
    guard let object else { return "(none)" }
    return String(adoptingGLibString: gst_object_get_name(object.assumingMemoryBound(to: GstObject.self))) ?? "(unnamed)"
}

/// Converts seconds to a GstClockTime; negative means "forever".
func clockTime(seconds: Double) -> GstClockTime {
    seconds < 0 ? GstClockTime.max : GstClockTime(seconds * 1_000_000_000)
}

extension State {
    var gstState: GstState {
        switch self {
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }

    init?(_ state: GstState) {
        switch state {
        case GST_STATE_NULL: self = .null
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: return nil
        }
    }
}
