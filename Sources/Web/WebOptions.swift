public import Capture
import Filters
import FoundationEssentials

/// Where the browser screen listens and the token it asks for: `--http [ADDR:]PORT` / config `"http"`,
/// `--token`.
public struct WebOptions: Sendable, Equatable {
    /// The address to bind, e.g. "127.0.0.1", "::1", "0.0.0.0".
    public var host: String
    /// The TCP port; 0 picks a free one (tests).
    public var port: Int
    /// The token every request must carry; nil only on a loopback address.
    public var token: String?
    /// How many pages (WebSockets) may be open at once, and how long one may send nothing: `ConnectionLimits.page`.
    public var limits: ConnectionLimits = .page
    /// False for `--metrics ADDR`: the server answers `/metrics` only (no page, no commands, no WebSocket), so it needs
    /// no token on any address.
    public var servesPage = true

    /// The default: loopback, port 8080, no token.
    public static let standard = WebOptions(host: "127.0.0.1", port: 8080, token: nil)

    public init(host: String, port: Int, token: String?) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// Parses `[ADDR:]PORT` (`8080`, `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:0`); an empty text is the default.
    public init(parsing text: String, token: String? = nil) throws(WebOptionsError) {
        var host = Self.standard.host
        var portText = text
        if text.isEmpty {
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
        else { throw .invalid(text) }
        self.init(host: host, port: port, token: token)
    }

    /// Whether the address is a loopback one (127.0.0.0/8, ::1): only then may the server run without a token.
    public var isLoopback: Bool {
        host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// Checks the rules: a token has at least 8 characters, and a non-loopback bind needs one.
    public func checked() throws(WebOptionsError) -> WebOptions {
        if let token, token.isEmpty || token.count < 8 { throw .weakToken }
        if token == nil, !isLoopback, servesPage { throw .tokenRequired(host: host) }
        return self
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
            let base = "http://\(address):\(actual ?? port)/"
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

    public var description: String {
        switch self {
        case let .invalid(text):
            "--http takes [ADDR:]PORT with a numeric address and a port from 0 to 65535, e.g. 127.0.0.1:8080 (got '\(text.escapingControls)')"
        case let .tokenRequired(host):
            "binding \(host) (not loopback) needs a token: pass --token TOKEN, or --token generate to have one made, kept and printed"
        case .weakToken: "the token must be at least 8 characters"
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
