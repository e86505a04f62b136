import FoundationEssentials

/// Which requests come from this camera's own page: the rules against other web pages that a browser on this machine
/// has open (cross-site requests, DNS rebinding). Pure functions of header values.
///
/// A page on another site can make the browser send a request here (a form POST, a `text/plain` fetch, a WebSocket),
/// and one whose name is re-pointed at 127.0.0.1 (DNS rebinding) can even read the answers. The browser, though,
/// always says where the request is going (`Host`, from the URL it was given) and, for commands and WebSockets, where
/// it comes from (`Origin`). Only `Host` names this server, and only `Origin` this server's own page, pass.
enum OriginPolicy {
    /// Whether `host` (the `Host` header) names a server on this machine at `port`: `localhost`, `127.0.0.1`, `[::1]`
    /// or the bound address. The check for a server without a token, on loopback: a rebound name (`evil.example:8080`)
    /// fails it. With a token the server may be reached by any name of the machine, and the token is the check: a
    /// rebinding page has neither the token nor the cookie, which belongs to the real name.
    static func isLocal(host: String?, bound: String, port: Int) -> Bool {
        guard let host, let (name, hostPort) = split(host) else { return false }
        let boundName = bound.contains(":") ? "[\(bound)]" : bound
        return hostPort == port && ["localhost", "127.0.0.1", "[::1]", boundName.lowercased()].contains(name.lowercased())
    }

    /// Whether `origin` (the `Origin` header) is this server's own page: the server's scheme (`https://` when `secure`,
    /// else `http://`) and the same host and port the request was sent to. `null` (a sandboxed frame, a file) is not.
    static func isSameOrigin(_ origin: String, host: String?, secure: Bool = false) -> Bool {
        let scheme = secure ? "https://" : "http://"
        guard let host, let ours = split(host, defaultPort: secure ? 443 : 80), origin.lowercased().hasPrefix(scheme),
            let theirs = split(String(origin.dropFirst(scheme.count)), defaultPort: secure ? 443 : 80)
        else { return false }
        return ours.name.lowercased() == theirs.name.lowercased() && ours.port == theirs.port
    }

    /// `name[:port]` → the name (an IPv6 address keeps its brackets) and the port (`defaultPort` when none is written);
    /// nil when it is not that shape.
    private static func split(_ authority: String, defaultPort: Int = 80) -> (name: String, port: Int)? {
        var name = Substring(authority)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            name = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            name = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !name.isEmpty, !name.contains("/"), !name.contains("@") else { return nil }
        guard let portText else { return (String(name), defaultPort) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(name), port)
    }
}
