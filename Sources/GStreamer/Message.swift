import CGStreamer

/// A bus message, copied out of C so it can travel between threads.
public enum Message: Sendable, CustomStringConvertible {
    /// The stream ended.
    case eos(source: String)
    /// An element failed; `debug` has GStreamer's detail when it gave one (for the debug log: it names source
    /// files and internal states); `reason` has the error's domain, code and flow return, which is what to map.
    case error(source: String, message: String, debug: String?, reason: ErrorReason)
    /// An element warns; streaming goes on.
    case warning(source: String, message: String, debug: String?)
    /// An element informs.
    case info(source: String, message: String, debug: String?)
    /// An element changed state.
    case stateChanged(source: String, old: State, new: State, pending: State?)
    /// Quality of service: a sink or filter dropped (or processed) late buffers.
    case qos(source: String, live: Bool, processed: UInt64, dropped: UInt64)
    /// A new stream started.
    case streamStart(source: String)
    /// An element-specific message with its structure.
    case element(source: String, structure: Structure)
    /// An application message (posted by our own code).
    case application(source: String, structure: Structure)
    /// Anything else, by GStreamer's type name.
    case other(type: String, source: String)

    /// The name of the element that posted the message.
    public var source: String {
        switch self {
        case let .eos(source), let .error(source, _, _, _), let .warning(source, _, _), let .info(source, _, _),
            let .stateChanged(source, _, _, _), let .qos(source, _, _, _), let .streamStart(source),
            let .element(source, _), let .application(source, _), let .other(_, source):
            return source
        }
    }

    /// Copies a borrowed message. Reads the type with `GST_MESSAGE_TYPE`'s field and parses per type.
    init(borrowing message: UnsafeMutablePointer<GstMessage>) {
        let source = objectName(message.pointee.src.map { UnsafeMutableRawPointer($0) })
        let type = message.pointee.type
        switch type {
        case GST_MESSAGE_EOS:
            self = .eos(source: source)
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING, GST_MESSAGE_INFO:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            if type == GST_MESSAGE_ERROR {
                gst_message_parse_error(message, &error, &debug)
            } else if type == GST_MESSAGE_WARNING {
                gst_message_parse_warning(message, &error, &debug)
            } else {
                gst_message_parse_info(message, &error, &debug)
            }
            let reason = ErrorReason(error: error, message: message)
            let text = GLibError(consuming: &error).message
            let detail = String(adoptingGLibString: debug)
            switch type {
            case GST_MESSAGE_ERROR: self = .error(source: source, message: text, debug: detail, reason: reason)
            case GST_MESSAGE_WARNING: self = .warning(source: source, message: text, debug: detail)
            default: self = .info(source: source, message: text, debug: detail)
            }
        case GST_MESSAGE_STATE_CHANGED:
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            self = .stateChanged(source: source, old: State(old) ?? .null, new: State(new) ?? .null, pending: State(pending))
        case GST_MESSAGE_QOS:
            var live: gboolean = 0
            var runningTime: guint64 = 0, streamTime: guint64 = 0, timestamp: guint64 = 0, duration: guint64 = 0
            gst_message_parse_qos(message, &live, &runningTime, &streamTime, &timestamp, &duration)
            var format = GST_FORMAT_UNDEFINED
            var processed: guint64 = 0, dropped: guint64 = 0
            gst_message_parse_qos_stats(message, &format, &processed, &dropped)
            self = .qos(source: source, live: live != 0, processed: UInt64(processed), dropped: UInt64(dropped))
        case GST_MESSAGE_STREAM_START:
            self = .streamStart(source: source)
        case GST_MESSAGE_ELEMENT, GST_MESSAGE_APPLICATION:
            let structure = gst_message_get_structure(message).map { Structure(copying: $0) } ?? Structure(name: "empty")
            self =
                type == GST_MESSAGE_ELEMENT
                ? .element(source: source, structure: structure)
                : .application(source: source, structure: structure)
        default:
            self = .other(type: String(borrowingCString: gst_message_type_get_name(type)) ?? "unknown", source: source)
        }
    }

    /// The message in one line for logs, e.g. "eos from pipeline0" or "error from v4l2src0: …".
    public var description: String {
        switch self {
        case let .eos(source): "eos from \(source)"
        case let .error(source, message, _, _): "error from \(source): \(message)"
        case let .warning(source, message, _): "warning from \(source): \(message)"
        case let .info(source, message, _): "info from \(source): \(message)"
        case let .stateChanged(source, old, new, _): "\(source): \(old) -> \(new)"
        case let .qos(source, _, processed, dropped): "qos from \(source): processed \(processed), dropped \(dropped)"
        case let .streamStart(source): "stream-start from \(source)"
        case let .element(source, structure): "element message from \(source): \(structure)"
        case let .application(source, structure): "application message from \(source): \(structure)"
        case let .other(type, source): "\(type) from \(source)"
        }
    }
}

/// Kinds of bus messages to wait for.
public struct MessageTypes: OptionSet, Sendable {
    /// The `GstMessageType` bits, as `gst_bus_timed_pop_filtered` takes them.
    public let rawValue: Int32
    /// The types whose `GstMessageType` bits are set in `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// End of stream.
    public static let eos = MessageTypes(rawValue: GST_MESSAGE_EOS.rawValue)
    /// Errors.
    public static let error = MessageTypes(rawValue: GST_MESSAGE_ERROR.rawValue)
    /// Warnings.
    public static let warning = MessageTypes(rawValue: GST_MESSAGE_WARNING.rawValue)
    /// State changes.
    public static let stateChanged = MessageTypes(rawValue: GST_MESSAGE_STATE_CHANGED.rawValue)
    /// Element messages.
    public static let element = MessageTypes(rawValue: GST_MESSAGE_ELEMENT.rawValue)
    /// Application messages.
    public static let application = MessageTypes(rawValue: GST_MESSAGE_APPLICATION.rawValue)
    /// Quality of service.
    public static let qos = MessageTypes(rawValue: GST_MESSAGE_QOS.rawValue)
    /// Stream start.
    public static let streamStart = MessageTypes(rawValue: GST_MESSAGE_STREAM_START.rawValue)
    /// Every kind.
    public static let all = MessageTypes(rawValue: GST_MESSAGE_ANY.rawValue)
    /// What ends a run: end-of-stream or an error.
    public static let terminal: MessageTypes = [.eos, .error]
}
