import CGStreamer

/// What an element's error is beyond its words: GStreamer's error domain and code (`GST_RESOURCE_ERROR_BUSY`, …)
/// and, when a stream stopped on a flow return (`GST_ELEMENT_FLOW_ERROR`: "Internal data stream error."), that
/// return. Codes are what a program should map; the message text is translated and varies by version.
public struct ErrorReason: Sendable, Equatable, CustomStringConvertible {
    /// GStreamer's error domains (`GST_CORE_ERROR`, `GST_LIBRARY_ERROR`, `GST_RESOURCE_ERROR`, `GST_STREAM_ERROR`),
    /// or another GLib domain by its quark's name.
    public enum Domain: Sendable, Equatable {
        /// `GST_CORE_ERROR`: a core GStreamer failure (a state change, negotiation, a missing plugin).
        case core
        /// `GST_LIBRARY_ERROR`: a library an element uses failed (initializing, encoding, settings).
        case library
        /// `GST_RESOURCE_ERROR`: a device or file failed; the code is a ``ResourceError``.
        case resource
        /// `GST_STREAM_ERROR`: the data stream failed; the code is a ``StreamError``.
        case stream
        /// Any other GLib error domain, by its quark's name (e.g. "g-io-error-quark").
        case other(String)
    }

    /// The error domain.
    public let domain: Domain
    /// The domain's code.
    public let code: Int
    /// The flow return that stopped the stream, when the element posted one (the `flow-return` detail).
    public let flow: FlowReturn?
    /// The names of the bins that hold the element that posted it, outermost first (the pipeline's own name left out):
    /// a failure inside a source bin (`source0`'s decodebin) belongs to that source.
    public var containers: [String] = []

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

    /// The domain and code in words, e.g. "resource error notFound, flow not-negotiated", for logs.
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
        // "/GstPipeline:pipeline0/GstURIDecodeBin:source0/GstDecodeBin:decodebin0/GstTypeFindElement:typefind": the
        // path's middle names the bins around the poster, each after its type.
        let path = message.pointee.src.flatMap { String(adoptingGLibString: gst_object_get_path_string($0)) } ?? ""
        let names = path.split(separator: "/").map { part in
            part.firstIndex(of: ":").map { String(part[part.index(after: $0)...]) } ?? String(part)
        }
        let containers = names.count > 2 ? Array(names[1..<(names.count - 1)]) : []
        guard let error else {
            self = .unknown
            self.containers = containers
            return
        }
        self.containers = containers
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
    /// `GST_RESOURCE_ERROR_FAILED`: a failure that fits no other code; the message says more.
    case failed = 1
    /// `GST_RESOURCE_ERROR_TOO_LAZY`: a placeholder an element's author left unresolved.
    case tooLazy
    /// `GST_RESOURCE_ERROR_NOT_FOUND`: the resource was not found.
    case notFound
    /// `GST_RESOURCE_ERROR_BUSY`: the resource is busy (e.g. a camera another process holds).
    case busy
    /// `GST_RESOURCE_ERROR_OPEN_READ`: the resource could not be opened for reading.
    case openRead
    /// `GST_RESOURCE_ERROR_OPEN_WRITE`: the resource could not be opened for writing.
    case openWrite
    /// `GST_RESOURCE_ERROR_OPEN_READ_WRITE`: the resource could not be opened for reading, writing or both.
    case openReadWrite
    /// `GST_RESOURCE_ERROR_CLOSE`: the resource could not be closed.
    case close
    /// `GST_RESOURCE_ERROR_READ`: reading from the resource failed.
    case read
    /// `GST_RESOURCE_ERROR_WRITE`: writing to the resource failed.
    case write
    /// `GST_RESOURCE_ERROR_SEEK`: seeking in the resource failed.
    case seek
    /// `GST_RESOURCE_ERROR_SYNC`: synchronizing the resource failed.
    case sync
    /// `GST_RESOURCE_ERROR_SETTINGS`: changing the resource's settings or state failed.
    case settings
    /// `GST_RESOURCE_ERROR_NO_SPACE_LEFT`: the resource has no space left (a full disk).
    case noSpaceLeft
    /// `GST_RESOURCE_ERROR_NOT_AUTHORIZED`: opening the resource was not authorized (permissions).
    case notAuthorized
}

/// `GstStreamError`: the data stream failed.
public enum StreamError: Int, Sendable, CaseIterable {
    /// `GST_STREAM_ERROR_FAILED`: a failure that fits no other code; the message says more.
    case failed = 1
    /// `GST_STREAM_ERROR_TOO_LAZY`: a placeholder an element's author left unresolved.
    case tooLazy
    /// `GST_STREAM_ERROR_NOT_IMPLEMENTED`: the element does not implement what the stream needs.
    case notImplemented
    /// `GST_STREAM_ERROR_TYPE_NOT_FOUND`: the element could not tell the stream's type.
    case typeNotFound
    /// `GST_STREAM_ERROR_WRONG_TYPE`: the element does not handle this type of stream.
    case wrongType
    /// `GST_STREAM_ERROR_CODEC_NOT_FOUND`: no installed codec handles the stream's type.
    case codecNotFound
    /// `GST_STREAM_ERROR_DECODE`: decoding failed.
    case decode
    /// `GST_STREAM_ERROR_ENCODE`: encoding failed.
    case encode
    /// `GST_STREAM_ERROR_DEMUX`: demuxing failed.
    case demux
    /// `GST_STREAM_ERROR_MUX`: muxing failed.
    case mux
    /// `GST_STREAM_ERROR_FORMAT`: the stream has the wrong format (e.g. caps no element downstream accepts).
    case format
    /// `GST_STREAM_ERROR_DECRYPT`: the stream is encrypted and the element cannot decrypt it.
    case decrypt
    /// `GST_STREAM_ERROR_DECRYPT_NOKEY`: the stream is encrypted and no key for it is available.
    case decryptNoKey
}

/// `GstFlowReturn`: why a pad stopped passing data (the non-success ones; custom returns keep their number).
public enum FlowReturn: Sendable, Equatable, CustomStringConvertible {
    /// `GST_FLOW_OK`: data passed.
    case ok
    /// `GST_FLOW_NOT_LINKED`: the pad is not linked.
    case notLinked
    /// `GST_FLOW_FLUSHING`: the pad is flushing (stopping or seeking).
    case flushing
    /// `GST_FLOW_EOS`: the pad is at end of stream.
    case eos
    /// `GST_FLOW_NOT_NEGOTIATED`: the pad has no caps both sides agree on.
    case notNegotiated
    /// `GST_FLOW_ERROR`: a fatal error; the element posts an error message with the details.
    case error
    /// `GST_FLOW_NOT_SUPPORTED`: the operation is not supported.
    case notSupported
    /// A return GStreamer has no name for (an element's custom return), by its number.
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
