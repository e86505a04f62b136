import Base
import Capture
import Control
import Foundation
import Glibc
import TestSupport
import Testing

/// A `swiftcam run CONFIG --http 127.0.0.1:0` in a scratch folder (captures/, recordings/, its own socket
/// folder), with the URL it printed. Stopped (SIGTERM, then waited for) by `stop`, killed at the latest on deinit.
final class WebHost: @unchecked Sendable {
    static let repository = Built.repository

    let directory: URL
    private let ownsDirectory: Bool
    let runtime: URL
    let name: String
    /// The host's process.
    let child: ChildProcess
    /// The page's base URL, e.g. http://127.0.0.1:40123/
    private(set) var base = URL(string: "http://127.0.0.1/")!
    private(set) var port = 0

    /// Starts `swiftcam run CONFIG --http 127.0.0.1:0 ARGS`; `config` is a name in pipelines/ or a JSON text
    /// written to the scratch folder as NAME.json. Waits for the "camera screen" line (or the process's end).
    /// `unprivileged` runs it as nobody without groups (`setpriv`; needs root), in a scratch folder anyone may write.
    /// `environment` adds variables to the host's (e.g. `SWIFTCAM_WEB_MAX_CONNECTIONS`).
    /// `directory`: the scratch folder of an earlier host, for a restart (that host removes it).
    init(
        config: String, name: String? = nil, json: String? = nil, arguments: [String] = [], expectServing: Bool = true,
        unprivileged: Bool = false, environment extra: [String: String] = [:], directory earlier: URL? = nil
    ) throws {
        directory = earlier ?? FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-web-\(UUID().uuidString)")
        ownsDirectory = earlier == nil
        runtime = directory.appendingPathComponent("run")
        let open = unprivileged ? [FileAttributeKey.posixPermissions: 0o777] : nil
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: open)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: open)
        var target = config
        if let json {
            let file = directory.appendingPathComponent("\(config).json")
            try json.write(to: file, atomically: true, encoding: .utf8)
            target = file.path
        }
        self.name = name ?? config
        let command =
            [Built.swiftcam, "run", target, "--quiet"] + (arguments.contains("--http") ? [] : ["--http", "127.0.0.1:0"]) + arguments
        let launcher = unprivileged ? ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command : command
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        // Kept tokens in the scratch folder, never in the machine's own state.
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        environment.removeValue(forKey: "STATE_DIRECTORY")
        environment["SWIFTCAM_PIPELINES"] = Built.pipelines
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment.merge(extra) { $1 }
        child = try ChildProcess(launcher, environment: environment, directory: directory.path)
        guard expectServing else { return }
        guard let line = child.line(containing: "camera screen http", timeout: 30),
            let url = line.split(separator: " ").last.map(String.init),
            let parsed = URL(string: url.split(separator: "?").first.map(String.init) ?? url),
            let port = parsed.port
        else {
            throw WebTestError("swiftcam did not serve: \(errorText)")
        }
        self.port = port
        base = URL(string: "http://127.0.0.1:\(port)/")!
        if !arguments.contains("--no-control") {
            guard child.line(containing: "control socket", timeout: 30) != nil else {
                throw WebTestError("no control socket: \(errorText)")
            }
        }
    }

    deinit {
        stop()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    var outputText: String { child.text(.output) }
    /// Where the host keeps its state (`XDG_STATE_HOME`): its token under swiftcam/web/.
    var stateHome: URL { directory.appendingPathComponent("state") }
    var errorText: String { child.text(.errors) }

    /// Sends a command over the control socket.
    func ctl(_ command: String) throws -> Reply {
        try ControlSocket.send(command, socket: runtime.appendingPathComponent("swiftcam/\(name).sock").path)
    }

    /// Files in a folder of the scratch directory.
    func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
    }

    /// SIGTERM and wait for the exit (a safety net of 60 s kills it and fails the test); returns the status.
    @discardableResult
    func stop() -> Int32 {
        child.stop(timeout: 60)
    }

    /// Waits for the process to exit by itself (a refused start) and for both pipes to reach their end, so
    /// `outputText` and `errorText` hold all it wrote; returns its status.
    func exitStatus() -> Int32 {
        child.waitForExit().status
    }
}

struct WebTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A small pthread-mutex box for test state shared with handler threads.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private var mutex = pthread_mutex_t()
    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }
}

/// Whether this process runs in a network namespace whose only interface is `lo` (`unshare --net`): then no
/// packet a test causes, WebRTC's ICE checks included, can leave through another address.
enum NetworkIsolation {
    static var isolated: Bool {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return false }
        defer { freeifaddrs(list) }
        var names = Set<String>()
        var current = list
        while let entry = current {
            names.insert(String(cString: entry.pointee.ifa_name))
            current = entry.pointee.ifa_next
        }
        return names == ["lo"]
    }
}

/// One HTTP/1.1 exchange over a plain blocking socket to 127.0.0.1, the request byte for byte as given
/// (URLSession would normalise `..`, and on Linux it fails on some of chromedriver's replies with "Failed writing
/// header"). Reads the answer to its Content-Length (or to the close; `untilClosed`: to the close, past the first
/// answer). Returns status, headers (lower-case names) and body.
func exchange(
    port: Int, _ request: Data, timeout: Int = 120, untilClosed: Bool = false
) throws -> (status: Int, headers: [String: String], body: Data) {
    let fd = try connectLoopback(port: port, timeout: timeout)
    defer { close(fd) }
    var sent = 0
    while sent < request.count {
        let written = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written > 0 else { break }  // the server may answer (413) and close before reading it all
        sent += written
    }
    var response = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var headerLength: Int?
    var contentLength: Int?
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        response.append(contentsOf: buffer[0..<count])
        if headerLength == nil, let end = response.range(of: Data("\r\n\r\n".utf8)) {
            headerLength = end.upperBound
            let head = String(decoding: response[..<end.lowerBound], as: UTF8.self).lowercased()
            contentLength = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
        }
        if !untilClosed, let headerLength, let contentLength, response.count - headerLength >= contentLength { break }
    }
    guard let end = response.range(of: Data("\r\n\r\n".utf8)) else { throw WebTestError("no HTTP response") }
    let lines = String(decoding: response[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
    guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."), statusLine.split(separator: " ").count >= 2 else {
        throw WebTestError("no HTTP status line")
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (Int(statusLine.split(separator: " ")[1]) ?? 0, headers, Data(response[end.upperBound...]))
}

/// A blocking TCP socket connected to 127.0.0.1:`port`; a read waits at most `timeout` seconds (a safety net, not a
/// measurement: an answer that never comes fails the test instead of hanging it).
func connectLoopback(port: Int, timeout: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw WebTestError("no socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw WebTestError("cannot connect to 127.0.0.1:\(port)")
    }
    var limit = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

/// A request written out in full, e.g. `GET /captures/../x HTTP/1.1…`; returns status and body text.
func rawHTTP(port: Int, _ request: String) throws -> (status: Int, body: String) {
    let answer = try exchange(port: port, Data(request.utf8), timeout: 30)
    return (answer.status, String(decoding: answer.body, as: UTF8.self))
}

/// HTTP from the test to 127.0.0.1 (a method, a URL, a body, headers); the connection closes after it.
func http(
    _ method: String, _ url: URL, body: Data? = nil, headers: [String: String] = [:], timeout: Int = 120
) async throws
    -> (status: Int, headers: [String: String], body: Data)
{
    guard let port = url.port else { throw WebTestError("no port in \(url)") }
    var target = url.path.isEmpty ? "/" : url.path
    if let query = url.query { target += "?" + query }
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if let body {
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
    } else if method == "POST" || method == "DELETE" {
        head += "Content-Length: 0\r\n"
    }
    return try exchange(port: port, Data((head + "\r\n").utf8) + (body ?? Data()), timeout: timeout)
}
