import Foundation
import Glibc
import TestSupport
import Testing

/// Headless Chromium driven through chromedriver's WebDriver API (JSON over HTTP on 127.0.0.1). Launched
/// with the flags that let WebRTC offer loopback candidates and autoplay, and nothing that reaches out
/// (no sync, no component updates, no background networking).
final class Browser: @unchecked Sendable {
    private var driver: ChildProcess?
    private let profile: URL
    private let endpoint: URL
    private var session = ""

    /// Starts chromedriver on a free port, waits for its "started" line, and opens a browser session.
    init(width: Int = 800, height: Int = 600, touch: Bool = false) async throws {
        let port = try freePort()
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-chromium-\(UUID().uuidString)")
        endpoint = URL(string: "http://127.0.0.1:\(port)")!
        let driver = try ChildProcess(["/usr/bin/chromedriver", "--port=\(port)", "--allowed-ips=127.0.0.1"])
        self.driver = driver
        // chromedriver prints one line when it listens.
        guard driver.line(containing: "started successfully", timeout: 60) != nil else {
            throw WebTestError("chromedriver ended: \(driver.transcript)")
        }
        let arguments =
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
                "--autoplay-policy=no-user-gesture-required", "--window-size=\(width),\(height)",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--metrics-recording-only", "--user-data-dir=\(profile.path)"
            ] + (touch ? ["--touch-events=enabled"] : [])
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": "/usr/bin/chromium", "args": arguments]
                ]
            ]
        ]
        let reply = try await call("POST", "/session", capabilities)
        guard let value = reply as? [String: Any], let id = value["sessionId"] as? String else {
            throw WebTestError("chromedriver opened no session: \(reply)")
        }
        session = id
    }

    deinit {
        shutdown()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Ends the browser session and chromedriver.
    func quit() async {
        shutdown()
    }

    /// Closes the session (chromedriver then ends Chromium), asks chromedriver to exit (it ignores SIGTERM),
    /// and waits for it; SIGKILL to the one process we started if it has not gone 10 s later.
    private func shutdown() {
        guard let driver else { return }
        self.driver = nil
        if !session.isEmpty, let port = endpoint.port {
            _ = try? exchange(
                port: port,
                Data("DELETE /session/\(session) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8),
                timeout: 30)
            _ = try? exchange(port: port, Data("GET /shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), timeout: 10)
        }
        if session.isEmpty || driver.termination(within: 10) == nil { driver.kill() }
    }

    /// Runs before any script of every page from now on (DevTools `Page.addScriptToEvaluateOnNewDocument`).
    func beforeEachPage(_ script: String) async throws {
        _ = try await call(
            "POST", "/session/\(session)/goog/cdp/execute",
            ["cmd": "Page.addScriptToEvaluateOnNewDocument", "params": ["source": script]])
    }

    func open(_ url: URL) async throws {
        _ = try await call("POST", "/session/\(session)/url", ["url": url.absoluteString])
    }

    /// Runs a script and returns its result.
    @discardableResult
    func run(_ script: String, _ arguments: [Any] = []) async throws -> Any {
        try await call("POST", "/session/\(session)/execute/sync", ["script": script, "args": arguments])
    }

    /// Runs an async script: it calls `done(value)` (the last argument) when what it waits for has happened.
    /// The browser's own events and frames drive it; WebDriver's script timeout is the only limit.
    @discardableResult
    func wait(_ script: String, _ arguments: [Any] = [], timeout seconds: Int = 30) async throws -> Any {
        _ = try await call("POST", "/session/\(session)/timeouts", ["script": seconds * 1000])
        return try await call(
            "POST", "/session/\(session)/execute/async",
            ["script": "const done = arguments[arguments.length - 1];\n" + script, "args": arguments])
    }

    /// The element matching a CSS selector (its WebDriver reference).
    func element(_ css: String) async throws -> String {
        let value = try await call("POST", "/session/\(session)/element", ["using": "css selector", "value": css])
        guard let object = value as? [String: Any], let id = object.values.first as? String else {
            throw WebTestError("no element \(css)")
        }
        return id
    }

    func click(_ css: String) async throws {
        let id = try await element(css)
        _ = try await call("POST", "/session/\(session)/element/\(id)/click", [:])
    }

    /// A tap (or click) at a page point: pointer down and up without moving.
    func tap(x: Double, y: Double, pointer: String = "mouse", holdMilliseconds: Int = 0) async throws {
        var actions: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "x": Int(x.rounded()), "y": Int(y.rounded()), "origin": "viewport"],
            ["type": "pointerDown", "button": 0]
        ]
        if holdMilliseconds > 0 { actions.append(["type": "pause", "duration": holdMilliseconds]) }
        actions.append(["type": "pointerUp", "button": 0])
        _ = try await call(
            "POST", "/session/\(session)/actions",
            [
                "actions": [
                    ["type": "pointer", "id": "finger", "parameters": ["pointerType": pointer], "actions": actions]
                ]
            ])
        _ = try await call("DELETE", "/session/\(session)/actions")
    }

    /// A two-finger pinch around (x, y): the fingers start `from` pixels apart (horizontally) and end `to` apart.
    func pinch(x: Double, y: Double, from: Double, to: Double) async throws {
        func finger(_ id: String, _ sign: Double) -> [String: Any] {
            [
                "type": "pointer", "id": id, "parameters": ["pointerType": "touch"],
                "actions": [
                    ["type": "pointerMove", "duration": 0, "x": Int(x + sign * from / 2), "y": Int(y), "origin": "viewport"],
                    ["type": "pointerDown", "button": 0],
                    ["type": "pointerMove", "duration": 300, "x": Int(x + sign * to / 2), "y": Int(y), "origin": "viewport"],
                    ["type": "pointerUp", "button": 0]
                ] as [[String: Any]]
            ]
        }
        _ = try await call("POST", "/session/\(session)/actions", ["actions": [finger("one", -1), finger("two", 1)]])
        _ = try await call("DELETE", "/session/\(session)/actions")
    }

    /// A PNG of the whole viewport.
    func screenshot() async throws -> Data {
        guard let text = try await call("GET", "/session/\(session)/screenshot") as? String, let data = Data(base64Encoded: text) else {
            throw WebTestError("no screenshot")
        }
        return data
    }

    /// A PNG of one element.
    func screenshot(of css: String) async throws -> Data {
        let id = try await element(css)
        guard let text = try await call("GET", "/session/\(session)/element/\(id)/screenshot") as? String,
            let data = Data(base64Encoded: text)
        else {
            throw WebTestError("no screenshot of \(css)")
        }
        return data
    }

    /// One WebDriver command; returns its `value`, throws its error.
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let data = try await http(method, endpoint.appendingPathComponent(path), body: payload, timeout: 180).body
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        guard let reply = object as? [String: Any] else { throw WebTestError("chromedriver said \(object)") }
        let value = reply["value"] ?? NSNull()
        if let error = value as? [String: Any], let kind = error["error"] as? String {
            throw WebTestError("WebDriver \(path): \(kind): \(error["message"] as? String ?? "")")
        }
        return value
    }
}

/// A TCP port nothing listens on now (bound to 0 on 127.0.0.1, read back, released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw WebTestError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A JSON body's object.
func json(_ data: Data) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
}
