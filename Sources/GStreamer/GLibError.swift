public import CGStreamer

/// A copied GLib `GError`: an open set of domain/code/message, freed from C at once.
public struct GLibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error domain, e.g. "gst-parse-error-quark".
    public let domain: String
    /// The domain-specific code.
    public let code: Int
    /// GLib's message text.
    public let message: String

    /// An error GStreamer would have reported, made on this side (see `parseLaunch`).
    init(domain: String, code: Int, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies and frees a `GError`, clearing the caller's pointer.
    public init(consuming error: inout UnsafeMutablePointer<GError>?) {
        if let error {
            domain = String(borrowingCString: g_quark_to_string(error.pointee.domain)) ?? "unknown"
            code = Int(error.pointee.code)
            message = String(borrowingCString: error.pointee.message) ?? "unknown error"
            g_error_free(error)
        } else {
            domain = "unknown"
            code = 0
            message = "unknown error"
        }
        error = nil
    }

    /// GLib's message text, as it came.
    public var description: String { message }
}
