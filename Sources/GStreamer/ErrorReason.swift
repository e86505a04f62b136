import CGStreamer

/// What an element's error is beyond its words: GStreamer's error domain and code (`GST_RESOURCE_ERROR_BUSY`, …)
/// and, when a stream stopped on a flow return (`GST_ELEMENT_FLOW_ERROR`: "Internal data stream error."), that
/// return. Codes are what a program should map; the message text is translated and varies by version.
public struct ErrorReason: Sendable, Equatable, CustomStringConvertible {
    /// GStreamer's error domains (`GST_CORE_ERROR`, `GST_LIBRARY_ERROR`, `GST_RESOURCE_ERROR`, `GST_STREAM_ERROR`),
    /// or another GLib domain by its quark's name.
    public enum Domain: Sendable, Equatable {
        case core, library, resource, stream
        case other(String)
    }

    /// The error domain.
    public let domain: Domain
    /// The domain's code.
    public let code: Int
    /// The flow return that stopped the stream, when the element posted one (the `flow-return` detail).
    public let flow: FlowReturn?

    /// A reason made on this side (tests, errors not from a bus).
    public init(domain: Domain, code: Int, flow: FlowReturn? = nil) {
        self.domain = domain
        self.code = code
        self.flow = flow
    }

    /// A resource error's code (`GST_RESOURCE_ERROR_*`), when this is one.
    public var resource: ResourceError? {
        domain == .resource ? ResourceError(rawValue: code) : nil
    }

    /// A stream error's code (`GST_STREAM_ERROR_*`), when this is one.
    public var stream: StreamError? {
        domain == .stream ? StreamError(rawValue: code) : nil
    }

    /// A resource error reason.
    public static func resource(_ code: ResourceError) -> ErrorReason {
        ErrorReason(domain: .resource, code: code.rawValue)
    }

    /// A stream error reason, with the flow return that stopped the stream when there is one.
    public static func stream(_ code: StreamError, flow: FlowReturn? = nil) -> ErrorReason {
        ErrorReason(domain: .stream, code: code.rawValue, flow: flow)
    }

    /// An error whose domain and code say nothing (a message built without a `GError`).
    public static let unknown = ErrorReason(domain: .other("unknown"), code: 0)

    public var description: String {
        let name: String
        switch domain {
        case .core: name = "core error \(code)"
        case .library: name = "library error \(code)"
        case .resource: name = resource.map { "resource error \($0)" } ?? "resource error \(code)"
        case .stream: name = stream.map { "stream error \($0)" } ?? "stream error \(code)"
        case let .other(domain): name = "\(domain) \(code)"
        }
        return flow.map { "\(name), flow \($0)" } ?? name
    }

    /// Reads the domain and code of a `GError` and the `flow-return` detail of its message.
    /// Calls `gst_message_parse_error_details`.
    init(error: UnsafeMutablePointer<GError>?, message: UnsafeMutablePointer<GstMessage>) {
        guard let error else {
            self = .unknown
            return
        }
        let quark = error.pointee.domain
        if quark == gst_core_error_quark() {
            domain = .core
        } else if quark == gst_library_error_quark() {
            domain = .library
        } else if quark == gst_resource_error_quark() {
            domain = .resource
        } else if quark == gst_stream_error_quark() {
            domain = .stream
        } else {
            domain = .other(String(borrowingCString: g_quark_to_string(quark)) ?? "unknown")
        }
        code = Int(error.pointee.code)
        var details: UnsafePointer<GstStructure>?
        if message.pointee.type == GST_MESSAGE_ERROR { gst_message_parse_error_details(message, &details) }
        var value: gint = 0
        if let details, gst_structure_get_int(details, "flow-return", &value) != 0 {
            flow = FlowReturn(rawValue: Int(value))
        } else {
            flow = nil
        }
    }
}

/// `GstResourceError`: a resource (a device, a file) failed.
public enum ResourceError: Int, Sendable, CaseIterable {
    case failed = 1, tooLazy, notFound, busy, openRead, openWrite, openReadWrite, close, read, write, seek, sync, settings,
         noSpaceLeft, notAuthorized
}

/// `GstStreamError`: the data stream failed.
public enum StreamError: Int, Sendable, CaseIterable {
    case failed = 1, tooLazy, notImplemented, typeNotFound, wrongType, codecNotFound, decode, encode, demux, mux, format,
         decrypt, decryptNoKey
}

/// `GstFlowReturn`: why a pad stopped passing data (the non-success ones; custom returns keep their number).
public enum FlowReturn: Sendable, Equatable, CustomStringConvertible {
    case ok, notLinked, flushing, eos, notNegotiated, error, notSupported
    case other(Int)

    /// The return for `GST_FLOW_*`'s number.
    public init(rawValue: Int) {
        switch rawValue {
        case Int(GST_FLOW_OK.rawValue): self = .ok
        case Int(GST_FLOW_NOT_LINKED.rawValue): self = .notLinked
        case Int(GST_FLOW_FLUSHING.rawValue): self = .flushing
        case Int(GST_FLOW_EOS.rawValue): self = .eos
        case Int(GST_FLOW_NOT_NEGOTIATED.rawValue): self = .notNegotiated
        case Int(GST_FLOW_ERROR.rawValue): self = .error
        case Int(GST_FLOW_NOT_SUPPORTED.rawValue): self = .notSupported
        default: self = .other(rawValue)
        }
    }

    /// GStreamer's name (`gst_flow_get_name`), e.g. "not-negotiated".
    public var description: String {
        switch self {
        case .ok: "ok"
        case .notLinked: "not-linked"
        case .flushing: "flushing"
        case .eos: "eos"
        case .notNegotiated: "not-negotiated"
        case .error: "error"
        case .notSupported: "not-supported"
        case let .other(value): "flow \(value)"
        }
    }
}
