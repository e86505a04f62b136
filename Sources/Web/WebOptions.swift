public import Base
import Capture
import Filters
import FoundationEssentials

/// Where the browser screen listens, over which scheme, and the token it asks for: `--http [SCHEME://][ADDR:]PORT` /
/// config `"http"`, `--token`, `--tls-cert`/`--tls-key` / config `"https"`.
public struct WebOptions: Sendable, Equatable {
    /// What the address was written with: `https://` or `http://` ask by name; nil leaves it to the address.
    public enum Scheme: String, Sendable, Equatable {
        case http, https
    }

    /// The address to bind, e.g. "127.0.0.1", "::1", "0.0.0.0".
    public var host: String
    /// The TCP port; 0 picks a free one (tests).
    public var port: Int
    /// The token every request must carry; nil only on a loopback address.
    public var token: String?
    /// How many pages (WebSockets) may be open at once, and how long one may send nothing: `ConnectionLimits.page`.
    public var limits: ConnectionLimits = .page
    /// False for `--metrics ADDR`: the server answers `/metrics` only (no page, no commands, no WebSocket), so it needs
    /// no token on any address, and serves plain HTTP (it carries no secret) unless asked for `https://` by name.
    public var servesPage = true
    /// The scheme written before the address, if any.
    public var scheme: Scheme?
    /// The certificate HTTPS serves; set (by the caller) whenever `servesTLS`.
    public var tls: TLSIdentity?

    /// The default: loopback, port 8080, no token.
    public static let standard = WebOptions(host: "127.0.0.1", port: 8080, token: nil)

    public init(host: String, port: Int, token: String?) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// Parses `[SCHEME://][ADDR:]PORT` (`8080`, `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0`, `http://0.0.0.0:8080`,
    /// `https://127.0.0.1:8443`); an empty text is the default.
    public init(parsing written: String, token: String? = nil) throws(WebOptionsError) {
        var text = written
        var scheme: Scheme?
        for candidate in [Scheme.https, .http] where text.lowercased().hasPrefix(candidate.rawValue + "://") {
            scheme = candidate
            text = String(text.dropFirst(candidate.rawValue.count + 3))
            if text.hasSuffix("/") { text.removeLast() }
        }
        var host = Self.standard.host
        var portText = text
        if text.isEmpty, scheme == nil {
            portText = String(Self.standard.port)
        } else if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalid(text) }
            portText = String(rest.dropFirst())
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty,
            host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })
        else { throw .invalid(written) }
        self.init(host: host, port: port, token: token)
        self.scheme = scheme
    }

    /// Whether the page is served over HTTPS (and WSS): asked for by name, or by default beyond loopback. Plain HTTP
    /// beyond loopback only when `http://` asks for it.
    public var servesTLS: Bool {
        scheme.map { $0 == .https } ?? (servesPage && !isLoopback)
    }

    /// Whether the token would cross a network in clear text: plain HTTP asked for beyond loopback.
    public var sendsTokenInClear: Bool {
        !servesTLS && !isLoopback && servesPage
    }

    /// Whether the address is a loopback one (127.0.0.0/8, ::1): only then may the server run without a token.
    public var isLoopback: Bool {
        host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// Checks the rules: a token has at least 8 characters, a non-loopback bind needs one, and HTTPS a certificate.
    public func checked() throws(WebOptionsError) -> WebOptions {
        try checkedToken()
        if servesTLS, tls == nil { throw .certificateRequired }
        return self
    }

    /// The token's rules alone (before a certificate is read or made).
    public func checkedToken() throws(WebOptionsError) {
        if let token, token.isEmpty || token.count < 8 { throw .weakToken }
        if token == nil, !isLoopback, servesPage { throw .tokenRequired(host: host) }
    }

    /// 128 random bits as 32 hex digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// The URL people open (with the token once, when there is one): the first of `urls`.
    public func url(port actual: Int? = nil) -> String {
        urls(port: actual)[0]
    }

    /// The URLs people open, with the token when there is one: one for the bound address, or for every interface one
    /// for each of this machine's addresses (`URLHost.reachable`), so a printed line works from another machine.
    public func urls(port actual: Int? = nil) -> [String] {
        URLHost.reachable(forAddress: host).map { address in
            let base = "\(servesTLS ? "https" : "http")://\(address):\(actual ?? port)/"
            return token.map { "\(base)?token=\($0)" } ?? base
        }
    }
}

extension ConnectionLimits {
    /// The page's WebSocket: 16 open at once (each may hold a WebRTC viewer, a pipeline with threads of its own), 120 s
    /// idle (an open page says it is there every 40 s, see app.js); `SWIFTCAM_WEB_MAX_CONNECTIONS` and
    /// `SWIFTCAM_WEB_IDLE_SECONDS` change them.
    public static var page: ConnectionLimits {
        ConnectionLimits(environmentPrefix: "SWIFTCAM_WEB", default: ConnectionLimits(maxConnections: 16, idleSeconds: 120))
    }
}

/// Why the web options were refused.
public enum WebOptionsError: Error, Equatable, CustomStringConvertible {
    /// Not `[ADDR:]PORT`.
    case invalid(String)
    /// A non-loopback address with no token.
    case tokenRequired(host: String)
    /// A token shorter than 8 characters.
    case weakToken
    /// HTTPS with no certificate given or made.
    case certificateRequired

    public var description: String {
        switch self {
        case let .invalid(text):
            "--http takes [http://|https://][ADDR:]PORT with a numeric address and a port from 0 to 65535, e.g. 127.0.0.1:8080 or https://0.0.0.0:8443 (got '\(text.escapingControls)')"
        case let .tokenRequired(host):
            "binding \(host) (not loopback) needs a token: pass --token TOKEN, or --token generate to have one made, kept and printed"
        case .weakToken: "the token must be at least 8 characters"
        case .certificateRequired:
            "HTTPS needs a certificate: name one with --tls-cert FILE --tls-key FILE (config \"https\"), or let swiftcam run make and keep one"
        }
    }
}

/// Compares without stopping at the first difference, so the time taken says nothing about the token.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for index in 0..<max(x.count, y.count) {
        difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
    }
    return difference == 0
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
