/// Everything the GStreamer wrappers can fail with.
public enum GStreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No element factory of that name is installed; `package` names the Debian package that ships it, when known.
    case elementNotFound(factory: String, package: String?)
    /// The factory made an element of another type than the wrapper asked for (`AppSink.make("fakesink")`).
    case wrongElementType(factory: String, expected: String, actual: String)
    /// The element has no property of that name.
    case propertyNotFound(element: String, property: String)
    /// The property exists but holds another type than the one asked for or given.
    case propertyTypeMismatch(element: String, property: String, expected: String)
    /// An enum property was given a nick it does not list.
    case invalidEnumValue(element: String, property: String, value: String, allowed: [String])
    /// The value has the property's type but lies outside what the property accepts (its range).
    case propertyValueOutOfRange(element: String, property: String, value: String, allowed: String)
    /// The property cannot be written.
    case propertyNotWritable(element: String, property: String)
    /// The property cannot be read (it is write-only).
    case propertyNotReadable(element: String, property: String)
    /// Two elements (or pads) would not link.
    case linkFailed(source: String, sink: String, reason: String)
    /// An element has no such pad.
    case padNotFound(element: String, pad: String)
    /// Adding an element to a bin failed (already has a parent, or a name clash).
    case addFailed(bin: String, element: String)
    /// A graph's launch text would refer to this element (or `element.pad`) by a name the launch parser
    /// cannot read as a reference, so the printed line would not be the graph that was built.
    case nameNotReferenceable(String)
    /// `gst_parse_launch` rejected the description.
    case parse(GLibError)
    /// A state change failed; `element` and `message` come from the first error on the bus, when there is one.
    case stateChangeFailed(element: String, state: State, message: String)
    /// A state change did not complete within the timeout.
    case stateChangeTimedOut(element: String, state: State, seconds: Double)
    /// Caps text did not parse.
    case invalidCaps(String)
    /// Structure text did not parse.
    case invalidStructure(String)
    /// Caps do not describe raw video that `VideoInfo` understands.
    case notVideoCaps(String)
    /// Mapping a buffer or video frame failed.
    case mapFailed(String)
    /// Pushing into an appsrc failed with this flow return.
    case pushFailed(flow: String)
    /// A bus timeout or the stream ended before the expected message.
    case timedOut(String)
    /// A GObject type has no signal of that name.
    case signalNotFound(type: String, signal: String)

    /// One sentence a user can act on, naming the element, property or pad concerned.
    public var description: String {
        switch self {
        case let .elementNotFound(factory, package):
            if let package {
                return "no GStreamer element '\(factory)': install the Debian package \(package) (apt-get install \(package))"
            }
            return "no GStreamer element '\(factory)': check the name with gst-inspect-1.0"
        case let .wrongElementType(factory, expected, actual):
            return "factory '\(factory)' makes a \(actual), not a \(expected): use the factory of that type"
        case let .propertyNotFound(element, property): return "element '\(element)' has no property '\(property)'"
        case let .propertyTypeMismatch(element, property, expected): return "property '\(property)' of '\(element)' holds \(expected)"
        case let .invalidEnumValue(element, property, value, allowed):
            return "property '\(property)' of '\(element)' has no value '\(value)'; allowed: \(allowed.joined(separator: ", "))"
        case let .propertyValueOutOfRange(element, property, value, allowed):
            return "property '\(property)' of '\(element)' takes \(allowed), not \(value)"
        case let .propertyNotWritable(element, property): return "property '\(property)' of '\(element)' cannot be changed"
        case let .propertyNotReadable(element, property): return "property '\(property)' of '\(element)' cannot be read"
        case let .linkFailed(source, sink, reason): return "cannot link '\(source)' to '\(sink)': \(reason)"
        case let .padNotFound(element, pad): return "element '\(element)' has no pad '\(pad)'"
        case let .addFailed(bin, element): return "cannot add '\(element)' to '\(bin)': it already has a parent or the name is taken"
        case let .nameNotReferenceable(name):
            return
                "'\(name)' cannot be referred to in gst-launch text; name the element (and pad) with ASCII letters, digits and -_%: only, not starting with '-'"
        case let .parse(error): return "pipeline description rejected: \(error.message)"
        case let .stateChangeFailed(element, state, message): return "'\(element)' failed to go to \(state): \(message)"
        case let .stateChangeTimedOut(element, state, seconds): return "'\(element)' did not reach \(state) within \(seconds) s"
        case let .signalNotFound(type, signal): return "a \(type) has no signal '\(signal)'"
        case let .invalidCaps(text): return "caps '\(text)' do not parse"
        case let .invalidStructure(text): return "structure '\(text)' does not parse"
        case let .notVideoCaps(text): return "caps '\(text)' are not raw video with a known format and size"
        case let .mapFailed(what): return "cannot map \(what)"
        case let .pushFailed(flow): return "appsrc refused the buffer: \(flow)"
        case let .timedOut(what): return "timed out waiting for \(what)"
        }
    }

    /// Debian packages that ship well-known element factories, for the hint in `elementNotFound`.
    static func package(forFactory factory: String) -> String? {
        switch factory {
        case "videotestsrc", "videoconvert", "videoscale", "appsrc", "appsink", "tee", "queue",
            "input-selector", "fakesink", "identity", "capsfilter", "theoraenc", "oggmux", "videorate":
            return "gstreamer1.0-plugins-base"
        case "v4l2src", "jpegenc", "jpegdec", "pngenc", "pngdec", "matroskamux", "matroskademux",
            "qtmux", "mp4mux", "qtdemux", "videoflip", "videobalance",
            "multifilesink", "splitmuxsink", "vp8enc", "vp8dec", "vp9enc", "vp9dec", "autovideosink", "ximagesink":
            return "gstreamer1.0-plugins-good"
        case "x264enc": return "gstreamer1.0-plugins-ugly"
        case let name where name.hasPrefix("frei0r-"): return "frei0r-plugins"
        case "fpsdisplaysink", "coloreffects", "gaussianblur", "openh264enc", "h264parse": return "gstreamer1.0-plugins-bad"
        case let name where name.hasPrefix("avenc_") || name.hasPrefix("avdec_"): return "gstreamer1.0-libav"
        default: return nil
        }
    }
}

/// The four element states (`GstState`).
public enum State: Sendable, Equatable, CustomStringConvertible {
    /// `GST_STATE_NULL`: the initial state; the element holds no resources.
    case null
    /// `GST_STATE_READY`: resources are allocated (a device opened), ready to go to paused.
    case ready
    /// `GST_STATE_PAUSED`: data is accepted and prerolled, the clock stands still (a sink holds one buffer).
    case paused
    /// `GST_STATE_PLAYING`: the clock runs and data flows.
    case playing

    /// The state as `gst_element_state_get_name` spells it, e.g. "PLAYING".
    public var description: String {
        switch self {
        case .null: "NULL"
        case .ready: "READY"
        case .paused: "PAUSED"
        case .playing: "PLAYING"
        }
    }
}
