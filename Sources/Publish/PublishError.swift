public import Base

/// Why publishing could not start. Each description is one sentence a user can act on.
public enum PublishError: CategorizedError, Sendable, Equatable {
    /// The RTSP server could not listen (port in use, address not on this machine).
    case cannotListen(address: String, port: Int, reason: String)
    /// Serving beyond loopback without credentials.
    case credentialsRequired(address: String)
    /// Credentials from the environment that cannot work: `variable` and why.
    case badCredentials(variable: String, reason: String)
    /// A URL given to `publish-check` that it cannot read or listen at.
    case badURL(String)
    /// A GStreamer element or plugin the publisher needs is missing.
    case missing(element: String, package: String)
    /// The stream's codec cannot go over this protocol.
    case unsupported(codec: String, target: String, reason: String)
    /// Anything GStreamer refused while setting up.
    case setup(String)
    /// A stream that could not be read at all.
    case unreadable(url: String, reason: String)
    /// A `file://` URL naming a file that does not exist.
    case noSuchFile(path: String)
    /// An RTMP stream key that could not be had: where it was to come from, and why.
    case streamKey(source: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotListen(address, port, reason):
            "the RTSP server cannot listen on \(address):\(port) (\(reason)); pick another port with --rtsp PORT or publish.rtsp.port"
        case let .credentialsRequired(address):
            "serving RTSP on \(address) reaches beyond this machine: set publish.rtsp.user and publish.rtsp.password, or SWIFTCAM_RTSP_USER and SWIFTCAM_RTSP_PASSWORD"
        case let .badCredentials(variable, reason): "\(variable): \(reason)"
        case let .badURL(reason): reason
        case let .missing(element, package): "GStreamer element '\(element)' is missing; install \(package)"
        case let .unsupported(codec, target, reason): "cannot push \(codec) to \(target): \(reason)"
        case let .setup(reason): "cannot set up publishing: \(reason)"
        case let .unreadable(url, reason): "cannot read \(url): \(reason)"
        case let .noSuchFile(path): "cannot read \(path): no such file"
        case let .streamKey(source, reason): "no RTMP stream key from \(source): \(reason)"
        }
    }

    public var kind: FailureKind {
        switch self {
        case .cannotListen, .missing, .unreadable: .unavailable
        case .credentialsRequired, .badCredentials, .unsupported: .badData
        case .badURL: .usage
        case .noSuchFile, .streamKey: .noInput
        case .setup: .software
        }
    }
}
