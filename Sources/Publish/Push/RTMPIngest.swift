import Base
import Capture
public import Config
import FoundationEssentials
import Glibc

/// An RTMP ingest from a config's `publish.rtmp` entry: its URL with the stream key, read from the URL, a file or the
/// environment when the push starts. The key is a secret: only `PublishTarget.redacted` is ever shown.
public enum RTMPIngest {
    /// The push target of `config`, its key read now. Throws naming where the key was to come from (never the key).
    public static func target(_ config: RTMPPushConfig, environment: [String: String]) throws(PublishError) -> PublishTarget {
        let key: String?
        if let file = config.keyFile {
            key = try keyInFile(file)
        } else if let variable = config.keyEnvironment {
            guard let value = environment[variable]?.trimmed, !value.isEmpty else {
                throw .streamKey(source: "the environment variable \(variable)", reason: "it is not set, or empty")
            }
            key = try checked(value, source: "the environment variable \(variable)")
        } else {
            key = nil
        }
        guard let target = PublishTarget(rtmp: config.url, key: key) else {
            throw .setup(
                PublishTarget.rtmpProblem(with: config.url, keyGiven: key != nil)
                    ?? "\(PublishTarget.redacted(config.url)) is not an RTMP URL")
        }
        return target
    }

    /// The first line of `path`, the key.
    private static func keyInFile(_ path: String) throws(PublishError) -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = access(path, R_OK) != 0 ? SystemError.message(errno) : "not UTF-8 text"
            throw .streamKey(source: path, reason: reason)
        }
        let line = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmed } ?? ""
        guard !line.isEmpty else { throw .streamKey(source: path, reason: "its first line is empty") }
        return try checked(line, source: path)
    }

    /// A key that can be a URL's last segment: no spaces, slashes or control characters.
    private static func checked(_ key: String, source: String) throws(PublishError) -> String {
        guard !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " || $0 == "/" }) else {
            throw .streamKey(source: source, reason: "a stream key has no spaces, slashes or control characters")
        }
        return key
    }
}
