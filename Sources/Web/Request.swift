import Base
import CSoup
import FoundationEssentials

/// What the handlers read from a libsoup request (loop thread only, while the message is alive).
struct Request {
    let message: OpaquePointer

    init(_ message: OpaquePointer) { self.message = message }

    var method: String {
        soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
    }

    /// The path as sent (percent-encoded).
    var path: String {
        guard let uri = soup_server_message_get_uri(message), let path = g_uri_get_path(uri) else { return "/" }
        return String(cString: path)
    }

    /// The query's parameters (the last of repeated ones).
    var query: [String: String] {
        guard let uri = soup_server_message_get_uri(message), let text = g_uri_get_query(uri) else { return [:] }
        var components = URLComponents()
        components.percentEncodedQuery = String(cString: text)
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    func header(_ name: String) -> String? {
        soup_message_headers_get_one(soup_server_message_get_request_headers(message), name).map { String(cString: $0) }
    }

    /// The token of `Authorization: Bearer TOKEN`; the scheme's case does not matter (RFC 9110, 11.1).
    var bearerToken: String? {
        guard let parts = header("Authorization")?.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true),
            parts.count == 2, parts[0].lowercased() == "bearer"
        else { return nil }
        return parts[1].trimmed
    }

    func cookie(_ name: String) -> String? {
        guard let header = header("Cookie") else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmed
            if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
        }
        return nil
    }

    /// The request body as read (libsoup has it whole by the time the handler runs).
    var body: Data {
        guard let body = soup_server_message_get_request_body(message), let data = body.pointee.data, body.pointee.length > 0 else {
            return Data()
        }
        return Data(bytes: data, count: Int(body.pointee.length))
    }
}
