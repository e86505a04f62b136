public import Base
import Filters

/// A config that cannot be used: names the file, the JSON path and the reason.
public struct ConfigError: CategorizedError, Sendable, Equatable {
    /// The config file (or the name asked for).
    public var file: String
    /// Where in the JSON, e.g. "sources[0].kind"; empty for the whole file.
    public var path: String
    /// What is wrong, in words a user can act on.
    public var reason: String
    /// Bad data, unless the file is missing (`noInput`) or unreadable (`permission`).
    public var kind: FailureKind

    public init(file: String, path: String, reason: String, kind: FailureKind = .badData) {
        (self.file, self.path, self.reason, self.kind) = (file, path, reason, kind)
    }

    /// `FILE: PATH: REASON` on one line; line breaks and control characters that came from the input or
    /// from GStreamer's messages are written as `\u{A}`.
    public var description: String {
        (path.isEmpty ? "\(file): \(reason)" : "\(file): \(path): \(reason)").escapingControls
    }
}

/// Formats a Codable path the way JSON paths read: `sources[0].kind`.
func jsonPath(_ codingPath: [CodingKey]) -> String {
    var text = ""
    for key in codingPath {
        if let index = key.intValue {
            text += "[\(index)]"
        } else if key.stringValue.hasPrefix("Index "), let index = Int(key.stringValue.dropFirst(6)) {
            text += "[\(index)]"
        } else {
            text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
    }
    return text
}
