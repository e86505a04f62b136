import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// What the server refuses, and that it keeps serving after each refusal. Plain HTTP on 127.0.0.1 only.
@Suite(.serialized) struct SecurityTests {
    @Test func aNonLoopbackBindWithoutATokenIsRefusedAtStart() throws {
        let host = try WebHost(config: "switch", arguments: ["--http", "0.0.0.0:0"], expectServing: false)
        #expect(host.exitStatus() == 64)
        #expect(host.errorText.contains("needs a token"), "\(host.errorText)")
        #expect(!host.outputText.contains("camera screen"))
    }

    @Test func everyRequestCarriesTheToken() async throws {
        let token = "test-token-0123456789"
        let host = try WebHost(config: "switch", arguments: ["--token", token])
        for path in ["", "app.js", "gestures.js", "api/status", "api/gallery", "stream.mjpg"] {
            let bare = try await http("GET", host.base.appendingPathComponent(path))
            #expect(bare.status == 401, "\(path) without the token")
        }
        #expect(try await http("POST", host.base.appendingPathComponent("api/snap")).status == 401)
        #expect(
            try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["X-SwiftCam-Token": "wrong-token-0000"]).status
                == 401)
        #expect(try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["X-SwiftCam-Token": token]).status == 200)
        #expect(
            try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["Authorization": "Bearer \(token)"]).status
                == 200)
        // The URL printed once sets a cookie, then the page and its API work with the cookie alone.
        let first = try await http("GET", URL(string: "\(host.base.absoluteString)?token=\(token)")!)
        #expect(first.status == 303)
        let cookie = try #require(first.headers["set-cookie"])
        #expect(cookie.contains("swiftcam-token=\(token)") && cookie.contains("HttpOnly"))
        let page = try await http("GET", host.base, headers: ["Cookie": "swiftcam-token=\(token)"])
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<video id=\"preview\""))
        // The WebSocket handshake is screened too.
        let upgrade = try rawHTTP(
            port: host.port,
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(upgrade.status == 401)
    }

    /// A browser that opens a token host without the token gets a page saying what to do; an API client keeps the JSON.
    @Test func withoutTheTokenABrowserIsToldWhatToDoAndAnAPIClientGetsJSON() async throws {
        let token = "test-token-0123456789"
        let host = try WebHost(config: "switch", arguments: ["--token", token])
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
        for path in ["", "api/status"] {
            let page = try await http("GET", host.base.appendingPathComponent(path), headers: ["Accept": browser])
            let text = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 401)
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true, "\(page.headers)")
            #expect(
                text.contains("<title>") && text.contains("?token=") && text.contains("swiftcam run") && text.contains("Ask them"),
                "\(text)")
            #expect(!text.contains("\"ok\""))
        }
        for accept in [nil, "*/*", "application/json", "text/html;q=0"] {
            let answer = try await http(
                "GET", host.base.appendingPathComponent("api/status"), headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(answer.status == 401)
            #expect(answer.headers["content-type"] == "application/json", "\(accept ?? "no Accept"): \(answer.headers)")
            #expect((json(answer.body)["error"] as? String)?.contains("needs its token") == true)
        }
        // The token still opens the page.
        #expect(try await http("GET", host.base, headers: ["Accept": browser, "X-SwiftCam-Token": token]).status == 200)
    }

    @Test func namesNeverBecomePaths() async throws {
        let host = try WebHost(config: "switch")
        #expect(try host.ctl("snap").isOK)
        let still = try #require(host.files(in: "captures").first)
        #expect(try await http("GET", host.base.appendingPathComponent("captures/\(still)")).status == 200)
        // Secrets beside the captures folder, as a traversal would look for them.
        try "secret".write(to: host.directory.appendingPathComponent("secret.png"), atomically: true, encoding: .utf8)
        for path in [
            "/captures/../secret.png", "/captures/..%2fsecret.png", "/captures/%2e%2e%2fsecret.png", "/captures/%2e%2e/secret.png",
            "/captures/%2E%2E%2Fsecret.png", "/captures/.%2e/secret.png", "/captures/..%5csecret.png",
            "/captures/%252e%252e%252fsecret.png",
            "/captures/..", "/captures/%2e%2e", "/captures//etc/passwd", "/captures/%2fetc%2fpasswd",
            "/captures/\(host.directory.path)/secret.png",
            "/captures/%2f\(host.directory.path.dropFirst())%2fsecret.png", "/captures/captures%2f\(still)", "/captures/secret.png",
            "/captures/",
            "/../secret.png", "/%2e%2e/secret.png", "/captures/../api/status", "/./captures/..", "http://127.0.0.1/captures/../index.html"
        ] {
            let answer = try rawHTTP(port: host.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 404, "\(path): \(answer.status)")
            #expect(!answer.body.contains("secret") && !answer.body.contains("root:"), "\(path)")
            #expect(try await http("GET", host.base.appendingPathComponent("api/status")).status == 200, "after \(path)")
        }
        // One request per connection: a traversal sent after a good request on the same connection is never answered
        // (GLib would have removed its dot segments: the page).
        let pipelined = try exchange(
            port: host.port,
            Data(
                "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\n\r\nGET /captures/.. HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\n\r\n"
                    .utf8),
            timeout: 10, untilClosed: true)
        let rest = String(decoding: pipelined.body, as: UTF8.self)
        #expect(pipelined.status == 200 && pipelined.headers["connection"] == "close" && !rest.contains("HTTP/1.1"), "\(rest)")
        // A name that needs percent-encoding still reaches its capture.
        let spaced = "a still #2.png"
        try FileManager.default.copyItem(
            at: host.directory.appendingPathComponent("captures/\(still)"),
            to: host.directory.appendingPathComponent("captures/\(spaced)"))
        let encoded = spaced.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? spaced
        #expect(
            try rawHTTP(port: host.port, "GET /captures/\(encoded) HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nConnection: close\r\n\r\n")
                .status == 200)
    }

    /// `lut file=` from the browser had the host open any file it named, and the error quoted its first line.
    @Test func lutFilesAreNotChosenFromTheBrowser() async throws {
        let host = try WebHost(config: "switch")
        let secret = host.directory.appendingPathComponent("shadow")
        try "root:secret-hash:19000:0:99999:7:::\n".write(to: secret, atomically: true, encoding: .utf8)
        for (path, body) in [
            ("api/filter", ["chain": "lut file=\(secret.path)"]), ("api/command", ["line": "filter sepia | lut file=\(secret.path)"])
        ] {
            let answer = try await http(
                "POST", host.base.appendingPathComponent(path), body: try JSONSerialization.data(withJSONObject: body))
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(answer.status == 403, "\(path): \(text)")
            #expect(
                text.contains("LUT files are chosen in the config or on the command line") && !text.contains("secret-hash"),
                "\(path): \(text)")
        }
        // The host's own console may name a file; its error still quotes none of it.
        let console = try host.ctl("filter lut file=\(secret.path)")
        #expect(!console.isOK && !"\(console)".contains("secret-hash"), "\(console)")
        #expect(try await http("GET", host.base.appendingPathComponent("api/status")).status == 200)
    }

    @Test func oversizedAndMalformedBodiesAreRefusedWithAReason() async throws {
        let host = try WebHost(config: "switch")
        let big = Data(repeating: 0x20, count: 100 * 1024)
        let tooBig = try await http("POST", host.base.appendingPathComponent("api/zoom"), body: big)
        #expect(tooBig.status == 413)
        #expect(try await http("GET", host.base.appendingPathComponent("api/status")).status == 200)
        // Chunked, so no Content-Length warns the early check: refused when read.
        let chunk = String(repeating: "a", count: 70 * 1024)
        let chunked = try rawHTTP(
            port: host.port,
            "POST /api/zoom HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n0\r\n\r\n")
        #expect(chunked.status == 413)
        let malformed = try await http("POST", host.base.appendingPathComponent("api/zoom"), body: Data(#"{"factor": "#.utf8))
        #expect(malformed.status == 400)
        #expect((json(malformed.body)["error"] as? String)?.contains("malformed JSON") == true)
        let wrongType = try await http("POST", host.base.appendingPathComponent("api/zoom"), body: Data(#"{"factor": "big"}"#.utf8))
        #expect(wrongType.status == 400)
        let unknown = try await http("POST", host.base.appendingPathComponent("api/format-disk"), body: Data("{}".utf8))
        #expect(unknown.status == 404)
        let quit = try await http("POST", host.base.appendingPathComponent("api/command"), body: Data(#"{"line": "quit"}"#.utf8))
        #expect(quit.status == 400)
        let zoom = try await http("POST", host.base.appendingPathComponent("api/zoom"), body: Data(#"{"factor": 40}"#.utf8))
        #expect(zoom.status == 200)
        #expect((json(zoom.body)["reply"] as? String)?.contains("clamped from 40") == true)
        #expect(host.child.isRunning)
        #expect(try await http("GET", host.base.appendingPathComponent("api/status")).status == 200)
    }

    /// Without `Expect: 100-continue` libsoup read (and held) a whole declared body before the early refusal went out:
    /// 150 MB of RSS for one request, and no answer at all to a client that declared a body and sent none.
    @Test func oversizedBodiesAreRefusedBeforeTheyAreSent() async throws {
        let token = "test-token-0123456789"
        for (arguments, headers, status) in [
            ([String](), "", 413), (["--token", token], "", 401), (["--token", token], "X-SwiftCam-Token: \(token)\r\n", 413)
        ] {
            let host = try WebHost(config: "switch", arguments: arguments)
            let before = try residentBytes(host.child.pid)
            let size = 150 << 20
            let connection = try RawConnection(port: host.port)
            try connection.send(
                Data(
                    ("POST /api/command HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(size)\r\n\(headers)\r\n").utf8))
            // The answer comes before a byte of the body is sent.
            let answer = try connection.readAnswer()
            #expect(answer.status == status, "\(arguments): \(answer.text)")
            #expect(answer.headers["connection"] == "close")
            // A client that sends the body anyway is read to nothing (or cut off), never buffered.
            let chunk = Data(repeating: 0x20, count: 1 << 20)
            for _ in 0..<(size >> 20) where connection.sendSome(chunk) {}
            connection.close()
            #expect(
                try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["X-SwiftCam-Token": token]).status == 200)
            let after = try residentBytes(host.child.pid)
            #expect(after - before < 40 << 20, "RSS grew from \(before >> 20) MB to \(after >> 20) MB")
            // A declared body that never comes is answered at once too.
            let silent = try exchange(
                port: host.port,
                Data(
                    ("POST /api/snap HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nContent-Length: 99999999\r\n"
                        + "\(headers)\r\n").utf8), timeout: 60)
            #expect(silent.status == status)
            #expect(host.files(in: "captures").isEmpty)
        }
    }

    /// Any web page could POST here (a `text/plain` fetch took a still) and open the WebSocket, and a page whose name
    /// was re-pointed at 127.0.0.1 (DNS rebinding) could read the answers: `Host` and `Origin` are checked now.
    @Test func otherSitesCannotCommandTheCamera() async throws {
        let host = try WebHost(config: "switch")
        let port = host.port
        func request(_ method: String, _ path: String, _ headers: String, body: String = "") throws -> (status: Int, body: String) {
            let length = method == "POST" ? "Content-Length: \(body.utf8.count)\r\n" : ""
            return try rawHTTP(port: port, "\(method) \(path) HTTP/1.1\r\n\(headers)\(length)Connection: close\r\n\r\n\(body)")
        }
        let ours = "Host: 127.0.0.1:\(port)\r\n"
        let evil = "Origin: http://evil.example\r\n"
        #expect(try request("POST", "/api/snap", ours + evil).status == 403)
        #expect(try request("POST", "/api/snap", ours + evil + "Content-Type: text/plain\r\n", body: "{}").status == 403)
        #expect(try request("POST", "/api/snap", ours + "Origin: null\r\n").status == 403)
        #expect(try request("POST", "/api/snap", ours + "Origin: http://127.0.0.1:\(port + 1)\r\n").status == 403)
        #expect(host.files(in: "captures").isEmpty)
        let upgrade =
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        #expect(try exchange(port: port, Data("GET /ws HTTP/1.1\r\n\(ours)\(evil)\(upgrade)\r\n".utf8), timeout: 30).status == 403)
        // A rebound name, a wrong port, no Host at all.
        for name in [
            "evil.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1", "localhost.evil.example:\(port)", "127.0.0.1:\(port)@evil.example"
        ] {
            let answer = try request("GET", "/api/status", "Host: \(name)\r\n")
            #expect(answer.status == 403, "\(name)")
            #expect(answer.body.contains("answers only to its own address"), "\(name): \(answer.body)")
        }
        #expect(try rawHTTP(port: port, "GET /api/status HTTP/1.0\r\n\r\n").status == 403)
        // The camera's own page: its names, its origin.
        for name in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)"] {
            #expect(try request("GET", "/api/status", "Host: \(name)\r\n").status == 200, "\(name)")
        }
        #expect(try request("POST", "/api/zoom", ours + "Origin: http://127.0.0.1:\(port)\r\n", body: #"{"factor": 2}"#).status == 200)
        #expect(
            try request("POST", "/api/zoom", "Host: localhost:\(port)\r\nOrigin: http://localhost:\(port)\r\n", body: #"{"factor": 2}"#)
                .status == 200)
        let socket = try RawConnection(port: port)  // stays open: a WebSocket
        try socket.send(Data("GET /ws HTTP/1.1\r\n\(ours)Origin: http://127.0.0.1:\(port)\r\n\(upgrade)\r\n".utf8))
        #expect(try socket.readAnswer().status == 101)
        socket.close()
        // With a token the token decides the host name (any name of the machine may reach it); the origin still counts.
        let token = "test-token-0123456789"
        let guarded = try WebHost(config: "switch", arguments: ["--token", token])
        let tokenHeader = "X-SwiftCam-Token: \(token)\r\n"
        #expect(
            try rawHTTP(
                port: guarded.port,
                "GET /api/status HTTP/1.1\r\nHost: camera.lan:\(guarded.port)\r\n\(tokenHeader)Connection: close\r\n\r\n"
            ).status == 200)
        #expect(
            try rawHTTP(
                port: guarded.port,
                "POST /api/snap HTTP/1.1\r\nHost: camera.lan:\(guarded.port)\r\n\(tokenHeader)\(evil)Content-Length: 0\r\nConnection: close\r\n\r\n"
            ).status == 403)
        #expect(guarded.files(in: "captures").isEmpty)
    }

    /// What a new user tried: HEAD on a capture (was 404), a lowercase `bearer` (was 401), command lines of any length
    /// (a 5 KB line, a 56 KB chain; the control socket's limit is 4 KiB).
    @Test func headBearerAndLineLength() async throws {
        let token = "test-token-0123456789"
        let host = try WebHost(config: "switch", arguments: ["--token", token])
        let auth = ["Authorization": "bearer \(token)"]
        #expect(try await http("GET", host.base.appendingPathComponent("api/status"), headers: auth).status == 200)
        #expect(
            try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["Authorization": "BEARER \(token)"]).status
                == 200)
        #expect(
            try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["Authorization": "Basic \(token)"]).status
                == 401)
        #expect(try host.ctl("snap").isOK)
        let still = try #require(host.files(in: "captures").first)
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: host.directory.appendingPathComponent("captures/\(still)").path)[.size] as? Int
        )
        let head = try await http("HEAD", host.base.appendingPathComponent("captures/\(still)"), headers: auth)
        #expect(head.status == 200 && head.body.isEmpty)
        let get = try await http("GET", host.base.appendingPathComponent("captures/\(still)"), headers: auth)
        #expect(
            head.headers["content-length"] == String(size) && head.headers["content-type"] == get.headers["content-type"], "\(head.headers)"
        )
        #expect(try await http("HEAD", host.base.appendingPathComponent("app.js"), headers: auth).status == 200)
        #expect(try await http("HEAD", host.base.appendingPathComponent("captures/none.jpg"), headers: auth).status == 404)
        let long = String(repeating: "sepia | ", count: 640) + "mono"
        for (path, body) in [
            ("api/command", ["line": "filter \(long)"]), ("api/filter", ["chain": long]),
            ("api/command", ["line": "zoom " + String(repeating: "1", count: 5000)])
        ] {
            let answer = try await http(
                "POST", host.base.appendingPathComponent(path), body: try JSONSerialization.data(withJSONObject: body), headers: auth)
            #expect(answer.status == 413, "\(path)")
            #expect((json(answer.body)["error"] as? String)?.contains("the limit is 4096") == true, "\(path)")
        }
        let fits = String(repeating: "sepia | ", count: 100) + "mono"
        #expect(
            try await http(
                "POST", host.base.appendingPathComponent("api/filter"), body: try JSONSerialization.data(withJSONObject: ["chain": fits]),
                headers: auth
            ).status == 200)
    }

    @Test func theAPIAnswersListingsAndCommands() async throws {
        let host = try WebHost(config: "switch")
        let status = json(try await http("GET", host.base.appendingPathComponent("api/status")).body)
        #expect(status["status"] as? String == "configured")
        #expect(status["sources"] as? Int == 2)
        let filters = json(try await http("GET", host.base.appendingPathComponent("api/filters")).body)
        #expect(((filters["filters"] as? [[String: Any]])?.count ?? 0) >= 10)
        #expect(json(try await http("GET", host.base.appendingPathComponent("api/gallery")).body)["items"] as? [Any] != nil)
        let snap = json(try await http("POST", host.base.appendingPathComponent("api/snap")).body)
        #expect(snap["ok"] as? Bool == true)
        let items = json(try await http("GET", host.base.appendingPathComponent("api/gallery")).body)["items"] as? [[String: Any]]
        #expect(items?.count == 1)
        #expect((items?.first?["url"] as? String)?.hasPrefix("/captures/") == true)
        let stats = json(try await http("GET", host.base.appendingPathComponent("api/stats")).body)
        #expect((stats["stats"] as? [String: Any])?["framesOut"] != nil)
        #expect(stats["viewers"] != nil)
        #expect(((stats["live"] as? [String: Any])?["video"] as? [String: Any])?["codec"] as? String == "h264")
        let focus = json(
            try await http("POST", host.base.appendingPathComponent("api/focus"), body: Data(#"{"x": 0.5, "y": 0.5}"#.utf8)).body)
        #expect(focus["ok"] as? Bool == false)  // a test pattern has no focus: the reason, not a crash
        #expect((focus["error"] as? String)?.contains("not supported") == true)
    }
}

/// The resident set of a process (VmRSS in /proc/PID/status), in bytes.
func residentBytes(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { throw WebTestError("no VmRSS for \(pid)") }
    return kilobytes * 1024
}

/// A blocking TCP connection to 127.0.0.1 for requests sent in parts: headers first, the answer read, then (maybe) more.
final class RawConnection {
    private let fd: Int32
    private var closed = false

    init(port: Int) throws {
        fd = try connectLoopback(port: port, timeout: 60)
    }

    deinit { close() }

    func send(_ data: Data) throws {
        guard sendSome(data) else { throw WebTestError("the server closed the connection") }
    }

    /// Sends all of `data`; false once the server has closed (or reset) the connection.
    func sendSome(_ data: Data) -> Bool {
        var sent = 0
        while sent < data.count {
            let written = data[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Reads one answer: its head and as much body as Content-Length says.
    func readAnswer() throws -> (status: Int, headers: [String: String], text: String) {
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = response.range(of: Data("\r\n\r\n".utf8)) {
                let lines = String(decoding: response[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap(Int.init) ?? 0
                if response.count - end.upperBound >= length {
                    let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                    return (status, headers, String(decoding: response[end.upperBound...], as: UTF8.self))
                }
            }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw WebTestError("no answer before the body (read \(response.count) bytes)") }
            response.append(contentsOf: buffer[0..<count])
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

/// The token's life: `--token generate` keeps the token it makes, so a restart asks no page for a new cookie;
/// `swiftcam token NAME --renew` replaces it, and the URL with the new token replaces the old cookie.
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct TokenLifeTests {
    /// The token in the host's printed URL.
    static func printedToken(_ host: WebHost) throws -> String {
        let line = try #require(host.outputText.split(separator: "\n").first { $0.contains("camera screen http://") })
        return try #require(line.split(separator: "?token=").last.map(String.init), "\(line)")
    }

    @Test func aKeptTokenOutlivesRestartsAndTheNewURLReplacesAnOldCookie() async throws {
        let first = try WebHost(config: "switch", arguments: ["--http", "http://0.0.0.0:0", "--token", "generate"])
        let token = try Self.printedToken(first)
        #expect(
            first.outputText.contains("token made and kept in \(first.stateHome.path)/swiftcam/web/switch.token"), "\(first.outputText)")
        // On a wildcard bind the URL names an address that opens it (here, with only lo, 127.0.0.1), not the machine's name.
        #expect(first.outputText.contains("camera screen http://127.0.0.1:\(first.port)/?token=\(token)"), "\(first.outputText)")
        let opened = try await http(
            "GET", first.base.appendingPathComponent("").appending(queryItems: [URLQueryItem(name: "token", value: token)]))
        #expect(opened.status == 303 && opened.headers["set-cookie"]?.hasPrefix("swiftcam-token=\(token);") == true, "\(opened.headers)")
        let cookie = ["Cookie": "swiftcam-token=\(token)"]
        let port = first.port
        first.stop()

        // The same port again, the same token: the cookie the browser kept opens the page.
        let second = try WebHost(
            config: "switch", arguments: ["--http", "http://0.0.0.0:\(port)", "--token", "generate"], directory: first.directory)
        #expect(try Self.printedToken(second) == token)
        #expect(second.outputText.contains("token kept in"), "\(second.outputText)")
        #expect(try await http("GET", second.base.appendingPathComponent("api/status"), headers: cookie).status == 200)
        second.stop()

        // Renewed: the old cookie is refused, and the new URL opened with it still there replaces it.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = first.stateHome.path
        environment.removeValue(forKey: "STATE_DIRECTORY")
        let renew = try ChildProcess([Built.swiftcam, "token", "switch", "--renew"], environment: environment)
        renew.closeInput()
        #expect(renew.waitForExit().status == 0)
        let renewed = renew.text(.output).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(renewed.count == 32 && renewed != token, "\(renewed) \(renew.text(.errors))")
        // Without --token, a non-loopback bind takes the kept token (a service's, made with `swiftcam token`).
        let third = try WebHost(config: "switch", arguments: ["--http", "http://0.0.0.0:\(port)"], directory: first.directory)
        defer { third.stop() }
        #expect(try Self.printedToken(third) == renewed)
        #expect(try await http("GET", third.base.appendingPathComponent("api/status"), headers: cookie).status == 401)
        let reopened = try await http(
            "GET", third.base.appendingPathComponent("").appending(queryItems: [URLQueryItem(name: "token", value: renewed)]),
            headers: cookie)
        #expect(reopened.status == 303 && reopened.headers["set-cookie"]?.hasPrefix("swiftcam-token=\(renewed);") == true, "\(reopened)")
        #expect(
            try await http("GET", third.base.appendingPathComponent("api/status"), headers: ["Cookie": "swiftcam-token=\(renewed)"]).status
                == 200)
    }

    /// `--token generate` on loopback makes (and keeps) a token too, and says so: the page then asks for it.
    @Test func generateOnLoopbackSaysWhatItDoes() async throws {
        let host = try WebHost(config: "switch", arguments: ["--token", "generate"])
        defer { host.stop() }
        let token = try Self.printedToken(host)
        #expect(host.outputText.contains("token made and kept in"), "\(host.outputText)")
        #expect(try await http("GET", host.base.appendingPathComponent("api/status")).status == 401)
        #expect(try await http("GET", host.base.appendingPathComponent("api/status"), headers: ["X-SwiftCam-Token": token]).status == 200)
    }
}
