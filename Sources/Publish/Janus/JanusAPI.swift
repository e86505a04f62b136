public import Base
import Capture
import Config
import FoundationEssentials
import Glibc

/// Janus's HTTP API (the `janus.transport.http` plugin, `http://HOST:8088/janus`), as far as a camera needs it: a
/// session, a handle on the streaming plugin, requests to it, keepalives. Plain HTTP/1.1 over a socket of its own, one
/// request per connection, blocking with a timeout: Janus runs on the camera's network, and its API carries no media.
public struct JanusAPI: Sendable {
    /// Where the API is: host, port and base path (`/janus`).
    public let host: String
    public let port: Int
    public let path: String
    /// Seconds a request may take, connecting included.
    public var timeout = 5

    /// Parses `http://HOST[:PORT]/PATH`; nil with `problem(with:)` saying why.
    public init?(_ url: String) {
        guard Self.problem(with: url) == nil, let components = URLComponents(string: url), let host = components.host else { return nil }
        self.host = host
        port = components.port ?? 8088
        path = components.path.isEmpty ? "/janus" : components.path
    }

    /// Why `url` is not a Janus HTTP API address, or nil.
    public static func problem(with url: String) -> String? { JanusAddress.problem(with: url) }

    /// The URL, for messages.
    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)" }

    // MARK: - Requests

    /// Makes a session; its id.
    public func createSession() throws(JanusError) -> UInt64 {
        try id(in: post("", ["janus": "create"]), what: "a session")
    }

    /// Attaches to the streaming plugin in `session`; the handle's id.
    public func attachStreaming(session: UInt64) throws(JanusError) -> UInt64 {
        try id(in: post("/\(session)", ["janus": "attach", "plugin": "janus.plugin.streaming"]), what: "a streaming handle")
    }

    /// Keeps `session` alive (Janus ends a session silent for `session_timeout`, 60 s by default).
    public func keepalive(session: UInt64) throws(JanusError) {
        _ = try post("/\(session)", ["janus": "keepalive"])
    }

    /// Sends `body` to the streaming plugin through `handle`; the plugin's answer (`plugindata.data`), or its error.
    public func streaming(_ body: JSONValue, session: UInt64, handle: UInt64) throws(JanusError) -> JSONValue {
        let answer = try post("/\(session)/\(handle)", ["janus": "message", "body": body])
        guard let data = answer["plugindata"]?["data"] else { throw .unexpected("no plugin data in \(answer.text.prefix(200))") }
        if let code = data["error_code"]?.int {
            throw .plugin(code: code, reason: data["error"]?.string ?? "no reason given")
        }
        return data
    }

    /// Sends `body` to the streaming plugin through `handle` for an answer that comes later, as an event (`watch`,
    /// `start`): returns once Janus acknowledged it. `jsep` goes with it (the browser's answer to `start`).
    public func streamingLater(_ body: JSONValue, jsep: JSONValue? = nil, session: UInt64, handle: UInt64) throws(JanusError) {
        var request: [String: JSONValue] = ["janus": "message", "body": body]
        if let jsep { request["jsep"] = jsep }
        _ = try post("/\(session)/\(handle)", .object(request))
    }

    /// Hands Janus one of the browser's ICE candidates for the peer connection of `handle` (`candidate` nil: the last).
    public func trickle(_ candidate: String?, mline: UInt32, session: UInt64, handle: UInt64) throws(JanusError) {
        let body: JSONValue =
            candidate.map { ["candidate": .string($0), "sdpMLineIndex": .number(mline)] } ?? ["completed": true]
        _ = try post("/\(session)/\(handle)", ["janus": "trickle", "candidate": body])
    }

    /// Detaches `handle` from its plugin (its peer connection ends).
    public func detach(session: UInt64, handle: UInt64) {
        _ = try? post("/\(session)/\(handle)", ["janus": "detach"])
    }

    /// Waits for the events of `session` (Janus's long poll: at most 30 s, then a keepalive); also keeps the session
    /// alive. Each is an object with `janus` (`event`, `hangup`, `webrtcup`, …) and `sender` (the handle).
    public func events(session: UInt64) throws(JanusError) -> [JSONValue] {
        var polling = self
        polling.timeout = Self.longPoll + timeout
        let head = "GET \(path)/\(session)?maxev=8 HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n"
        let answer = try polling.parsed(polling.exchange(Array(head.utf8)))
        return answer.array ?? [answer]
    }

    /// How long Janus holds a long poll open, in seconds.
    static let longPoll = 30

    /// Ends `session` (its handles and any mountpoint it made that is not permanent stay: mountpoints are the plugin's).
    public func destroy(session: UInt64) {
        _ = try? post("/\(session)", ["janus": "destroy"])
    }

    private func id(in answer: JSONValue, what: String) throws(JanusError) -> UInt64 {
        guard let text = answer["data"]?["id"], case let .number(digits) = text, let id = UInt64(digits) else {
            throw .unexpected("no id for \(what) in \(answer.text.prefix(200))")
        }
        return id
    }

    /// POSTs `body` (with a transaction of its own) to the base path + `suffix`; the answer, or Janus's error.
    private func post(_ suffix: String, _ body: JSONValue) throws(JanusError) -> JSONValue {
        guard case var .object(members) = body else { throw .unexpected("a request is an object") }
        members["transaction"] = .string(String(UInt64.random(in: 1...UInt64.max), radix: 36))
        let payload = Array(JSONValue.object(members).text.utf8)
        let head =
            "POST \(path)\(suffix) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        return try parsed(exchange(Array(head.utf8) + payload))
    }

    /// An answer's JSON, or Janus's error in it.
    private func parsed(_ response: [UInt8]) throws(JanusError) -> JSONValue {
        let answer: JSONValue
        do {
            answer = try JSONValue.parse(response)
        } catch {
            throw .unexpected("an answer that is not JSON (\(error))")
        }
        if answer["janus"]?.string == "error" {
            throw .janus(code: answer["error"]?["code"]?.int ?? 0, reason: answer["error"]?["reason"]?.string ?? "no reason given")
        }
        return answer
    }

    /// One request on a connection of its own; the body of a 200 answer.
    private func exchange(_ request: [UInt8]) throws(JanusError) -> [UInt8] {
        let fd = try connect()
        defer { close(fd) }
        if let code = SystemCall.writeAll(fd, request, sendFlags: Int32(MSG_NOSIGNAL)) {
            throw .unreachable(code == 0 ? "the connection closed" : SystemError.message(code))
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = SystemCall.retrying { recv(fd, &buffer, buffer.count, 0) }
            if count < 0 { throw .unreachable(errno == EAGAIN ? "no answer within \(timeout) s" : SystemError.message(errno)) }
            if count == 0 { break }
            response += buffer[..<count]
            guard response.count < 4 << 20 else { throw .unexpected("an answer over 4 MiB") }
        }
        return try Self.body(of: response)
    }

    /// The body of an HTTP/1.1 answer read to its end (chunked or not); throws for a status other than 200.
    static func body(of response: [UInt8]) throws(JanusError) -> [UInt8] {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = response.firstRange(of: separator) else { throw .unexpected("an answer that is not HTTP") }
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        guard status == 200 else { throw .http(status: status) }
        let body = Array(response[end.upperBound...])
        let chunked = lines.contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
        return chunked ? dechunked(body) : body
    }

    /// A chunked body's data.
    private static func dechunked(_ body: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        var index = 0
        while let lineEnd = body[index...].firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: body[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmed, radix: 16), size > 0, lineEnd.upperBound + size <= body.count else { break }
            data += body[lineEnd.upperBound..<(lineEnd.upperBound + size)]
            index = lineEnd.upperBound + size + 2
            guard index < body.count else { break }
        }
        return data
    }

    /// A connected socket to the API's host, with `timeout` on every wait.
    private func connect() throws(JanusError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else { throw .unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(first) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            entry = candidate.pointee.ai_next
            let fd = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 { return fd }
            reason = SystemError.message(errno)
            close(fd)
        }
        throw .unreachable(reason)
    }
}

/// Why a request to Janus failed, in words for `stats`.
public enum JanusError: Error, Equatable, CustomStringConvertible {
    /// No connection, or no answer in time.
    case unreachable(String)
    /// An HTTP status other than 200.
    case http(status: Int)
    /// Janus's own error (458: no such session, after a restart).
    case janus(code: Int, reason: String)
    /// The streaming plugin's error (455: no such mountpoint, 456: it exists already).
    case plugin(code: Int, reason: String)
    /// An answer the API does not give.
    case unexpected(String)

    public var description: String {
        switch self {
        case let .unreachable(reason): "Janus is unreachable: \(reason)"
        case let .http(status): "Janus answered HTTP \(status)"
        case let .janus(code, reason): "Janus: \(reason) (\(code))"
        case let .plugin(code, reason): "Janus's streaming plugin: \(reason) (\(code))"
        case let .unexpected(what): "Janus sent \(what)"
        }
    }
}
