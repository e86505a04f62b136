import FoundationEssentials
import Glibc

/// Where a push sends the stream: an RTSP server that takes RECORD or an SRT listener (`"publish": {"to": …}`), or an
/// RTMP ingest (`"publish": {"rtmp": …}`).
public struct PublishTarget: Sendable, Equatable {
    /// The protocol spoken.
    public enum Scheme: String, Sendable { case rtsp, srt, rtmp, rtmps }

    /// RTSP, SRT or RTMP (over TLS: `rtmps`).
    public let scheme: Scheme
    /// The URL as written (credentials included, when given).
    public let url: String
    /// The host and port, for messages (never the credentials).
    public let endpoint: String

    /// Parses a push URL for `"to"` (RTSP or SRT); nil with `problem(with:)` saying why.
    public init?(_ url: String) {
        guard Self.problem(with: url) == nil else { return nil }
        self.init(checked: url)
    }

    /// Parses a URL its rules passed.
    private init?(checked url: String) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme.flatMap({ Scheme(rawValue: $0.lowercased()) }), let host = components.host
        else { return nil }
        self.scheme = scheme
        self.url = url
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let defaultPort = [.rtmp: 1935, .rtmps: 443][scheme] ?? 554
        endpoint = "\(shownHost):\(components.port ?? defaultPort)"
    }

    /// An RTMP push: `url` with the stream `key` appended as its last path segment (nil: the URL holds it).
    public init?(rtmp url: String, key: String?) {
        var full = url
        if let key {
            if full.hasSuffix("/") { full.removeLast() }
            full += "/" + key
        }
        guard Self.rtmpProblem(with: url, keyGiven: key != nil) == nil else { return nil }
        self.init(checked: full)
    }

    /// The URL with any password replaced by `***`, for messages and stats.
    public var redacted: String { Self.redacted(url) }

    /// `url` with its secrets replaced by `***`: the password of `user:password@`, an SRT `passphrase`, the
    /// password of a `streamid` of the form `ACTION:PATH:USER:PASSWORD` (MediaMTX's), and an RTMP stream key (the
    /// path's segments after the application's).
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        var changed = false
        if components.scheme.flatMap({ Scheme(rawValue: $0.lowercased()) })?.isRTMP == true {
            let segments = components.path.split(separator: "/", omittingEmptySubsequences: false)
            if segments.count > 2 {
                components.path = segments[0...1].joined(separator: "/") + "/***"
                changed = true
            }
            if components.query != nil {
                components.query = "***"
                changed = true
            }
        }
        if components.password != nil {
            components.password = "***"
            changed = true
        }
        if let items = components.queryItems {
            components.queryItems = items.map { item in
                guard let value = item.value else { return item }
                switch item.name.lowercased() {
                case "passphrase":
                    changed = true
                    return URLQueryItem(name: item.name, value: "***")
                case "streamid":
                    let parts = value.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                    guard parts.count == 4 else { return item }
                    changed = true
                    return URLQueryItem(name: item.name, value: parts[0...2].joined(separator: ":") + ":***")
                default:
                    return item
                }
            }
        }
        return changed ? components.string ?? url : url
    }

    /// Why `url` cannot be pushed to, in one sentence, or nil when it can.
    public static func problem(with url: String) -> String? {
        let example = "e.g. \"rtsp://server:8554/cam\" or \"srt://server:8890?streamid=publish:cam\""
        guard !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
            return "a URL has no spaces or control characters; \(example)"
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            return "\"\(url)\" is not a URL; \(example)"
        }
        guard let kind = Scheme(rawValue: scheme), !kind.isRTMP else {
            if Scheme(rawValue: scheme)?.isRTMP == true { return "an RTMP ingest goes under \"rtmp\": {\"url\": \"\(redacted(url))\"}" }
            return "\"\(scheme)://\" cannot be pushed to; use rtsp:// or srt://, \(example)"
        }
        guard let host = components.host, !host.isEmpty else { return "\"\(url)\" names no host; \(example)" }
        if let port = components.port, !(1...65535).contains(port) { return "port \(port) is outside 1…65535" }
        switch kind {
        case .rtmp, .rtmps:
            break
        case .rtsp:
            guard components.path.count > 1 else { return "an RTSP push needs a path, e.g. rtsp://\(host):8554/cam" }
        case .srt:
            guard components.port != nil else { return "an SRT push needs a port, e.g. srt://\(host):8890?streamid=publish:cam" }
            let modes = components.queryItems?.filter { $0.name == "mode" }.compactMap(\.value) ?? []
            if let mode = modes.first(where: { $0 != "caller" }) {
                return "mode=\(mode): SwiftCam pushes as an SRT caller; remove \"mode\" or use mode=caller"
            }
        }
        return nil
    }
}

extension PublishTarget.Scheme {
    /// RTMP, plain or over TLS.
    public var isRTMP: Bool { self == .rtmp || self == .rtmps }
}

extension PublishTarget {
    /// Why `url` cannot be an RTMP ingest, in one sentence, or nil when it can; `keyGiven` when the key comes from a
    /// file or the environment (then the URL ends at the application).
    public static func rtmpProblem(with url: String, keyGiven: Bool) -> String? {
        let example = "e.g. \"rtmp://a.rtmp.youtube.com/live2/KEY\" or \"rtmp://nginx.local/live/cam\""
        guard !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
            return "a URL has no spaces or control characters; \(example)"
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            return "\"\(redacted(url))\" is not a URL; \(example)"
        }
        guard Scheme(rawValue: scheme)?.isRTMP == true else { return "\"\(scheme)://\" is not RTMP; use rtmp:// or rtmps://, \(example)" }
        guard let host = components.host, !host.isEmpty else { return "\"\(redacted(url))\" names no host; \(example)" }
        if let port = components.port, !(1...65535).contains(port) { return "port \(port) is outside 1…65535" }
        let segments = components.path.split(separator: "/")
        if keyGiven {
            guard segments.count == 1 else {
                return "with the key in a file or the environment the URL ends at the application, e.g. rtmp://\(host)/live"
            }
        } else {
            guard segments.count >= 2 else {
                return
                    "an RTMP URL names the application and the stream key, e.g. rtmp://\(host)/live/KEY (or give \"keyFile\" or \"keyEnvironment\")"
            }
        }
        return nil
    }
}

/// Where Janus's HTTP API is (`"publish": {"janus": {"api": …}}`).
public enum JanusAddress {
    /// Why `url` is not a Janus HTTP API address (`http://HOST[:PORT]/PATH`), or nil.
    public static func problem(with url: String) -> String? {
        let example = "e.g. \"http://127.0.0.1:8088/janus\""
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http" else {
            return "\"\(url)\" is not an http:// URL of Janus's HTTP API; \(example)"
        }
        guard let host = components.host, !host.isEmpty else { return "\"\(url)\" names no host; \(example)" }
        if let port = components.port, !(1...65535).contains(port) { return "port \(port) is outside 1…65535" }
        if components.user != nil || components.query != nil { return "the API URL takes no user or query; \(example)" }
        return nil
    }
}

/// The rules for an RTSP server's user and password, from the config or the environment alike.
public enum RTSPCredentials {
    /// Why `user` cannot be a user name, or nil.
    public static func userProblem(_ user: String) -> String? {
        let control = user.unicodeScalars.contains { $0.properties.generalCategory == .control }
        return user.isEmpty || user.contains(":") || control ? "a user name is not empty and has no ':' or control characters" : nil
    }

    /// Why `password` cannot be a password, or nil.
    public static func passwordProblem(_ password: String) -> String? {
        password.isEmpty ? "an empty password protects nothing" : nil
    }
}

/// The address an RTSP server listens on.
public enum PublishAddress {
    /// The address in canonical form, or nil when it is not an IPv4 or IPv6 address ("localhost" is 127.0.0.1).
    public static func parse(_ text: String) -> String? {
        if text == "localhost" { return "127.0.0.1" }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return text }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return text }
        return nil
    }

    /// Whether only this machine can reach the address (127.0.0.0/8, ::1).
    public static func isLoopback(_ text: String) -> Bool {
        guard let address = parse(text) else { return false }
        if address == "::1" { return true }
        var v4 = in_addr()
        guard inet_pton(AF_INET, address, &v4) == 1 else { return false }
        return UInt32(bigEndian: v4.s_addr) >> 24 == 127
    }
}
