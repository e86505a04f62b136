import Foundation
import Glibc
import GStreamer

/// Where a session's control socket lives: `$XDG_RUNTIME_DIR/swiftcam/NAME.sock`, else `/tmp/swiftcam-UID/NAME.sock`.
public enum ControlSocket {
    /// The socket path for a session name.
    public static func path(for name: String) -> String {
        "\(directory)/\(name).sock"
    }

    /// The directory holding the sockets (created 0700 by the server).
    public static var directory: String {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? ""
        return runtime.isEmpty ? "/tmp/swiftcam-\(getuid())" : "\(runtime)/swiftcam"
    }

    /// Fills a `sockaddr_un` for `path`; nil when the path is too long for one.
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Sends one command line to a running session and returns its reply line.
    public static func send(_ command: String, to name: String, timeout: Double = 30) throws -> Reply {
        try send(command, socket: path(for: name), name: name, timeout: timeout)
    }

    /// Sends one command line to the session listening on `path`.
    public static func send(_ command: String, socket path: String, name: String? = nil, timeout: Double = 30) throws -> Reply {
        let name = name ?? ConfigStore.sessionName(for: path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ControlError.notRunning(name: name, path: path, reason: errnoText()) }
        defer { close(descriptor) }
        guard var address = address(path) else { throw ControlError.notRunning(name: name, path: path, reason: "path too long") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            if errno == ENOENT { throw ControlError.unknownSession(name: name, running: runningSessions()) }
            throw ControlError.notRunning(name: name, path: path, reason: errnoText())
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let line = Array((command.replacingOccurrences(of: "\n", with: " ") + "\n").utf8)
        guard line.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count else {
            throw ControlError.notRunning(name: name, path: path, reason: errnoText())
        }
        // Replies may quote the command back, so they get more room than commands do.
        var reader = LineReader(descriptor: descriptor, limit: 16 * LineReader.limit)
        guard case let .text(reply) = reader.next() else { throw ControlError.noReply(name: name) }
        if reply.hasPrefix("ok") { return .ok(String(reply.dropFirst(2)).trimmingCharacters(in: .whitespaces)) }
        return .error(reply.hasPrefix("error ") ? String(reply.dropFirst(6)) : reply)
    }
}

extension ControlSocket {
    /// The names of the sessions with a socket in the control directory (a crashed one may linger).
    public static func runningSessions() -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return entries.filter { $0.hasSuffix(".sock") }.map { String($0.dropLast(5)) }.sorted()
    }
}

/// Why a control command could not be delivered.
public enum ControlError: CategorizedError, Sendable {
    /// No session of that name has a socket.
    case unknownSession(name: String, running: [String])
    /// No session listens under that name.
    case notRunning(name: String, path: String, reason: String)
    /// The session closed the connection without answering.
    case noReply(name: String)
    /// The server could not listen.
    case cannotListen(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownSession(name, running):
            "no session named '\(name)' is running; running: \(running.isEmpty ? "none" : running.joined(separator: ", "))"
        case let .notRunning(name, path, reason):
            "no running session '\(name)' (\(path): \(reason)); start it with 'swiftcam run \(name)'"
        case let .noReply(name):
            "session '\(name)' closed the connection without a reply"
        case let .cannotListen(path, reason):
            "cannot listen on \(path): \(reason)"
        }
    }

    /// A session that is not there is unavailable; a socket that cannot be made cannot be created.
    public var kind: FailureKind {
        switch self {
        case .unknownSession, .notRunning, .noReply: .unavailable
        case .cannotListen: .cannotCreate
        }
    }
}

/// Reads newline-terminated lines from a descriptor, at most `limit` bytes each.
struct LineReader {
    /// The longest command line a transport accepts.
    static let limit = Command.lineLimit

    let descriptor: Int32
    let limit: Int
    private var pending: [UInt8] = []

    init(descriptor: Int32, limit: Int = LineReader.limit) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// A line, or a line over the limit (the connection is then closed: what follows is not a command).
    enum Line {
        case text(String)
        case tooLong
    }

    /// The next line without its newline; nil at end of input or on error.
    mutating func next() -> Line? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                guard newline <= limit else { return .tooLong }
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return .text(line)
            }
            if pending.count > limit { return .tooLong }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                guard !pending.isEmpty else { return nil }
                defer { pending = [] }
                return pending.count > limit ? .tooLong : .text(String(decoding: pending, as: UTF8.self))
            }
            pending += chunk[..<count]
        }
    }
}

/// Listens on the session's socket (mode 0600) and answers each line with the interpreter, one thread per client.
public final class ControlServer: @unchecked Sendable {
    /// The socket path.
    public let path: String
    private let listener: Int32
    private let interpreter: CommandInterpreter
    private let stopped = Locked(false)

    /// Binds and listens; a stale socket of a dead session is replaced, a live one is an error.
    public init(name: String, interpreter: CommandInterpreter) throws {
        path = ControlSocket.path(for: name)
        self.interpreter = interpreter
        let directory = ControlSocket.directory
        mkdir(directory, 0o700)
        if (try? ControlSocket.send("help", to: name, timeout: 1))?.isOK == true {
            throw ControlError.cannotListen(path: path, reason: "another 'swiftcam run \(name)' is already running")
        }
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ControlError.cannotListen(path: path, reason: errnoText()) }
        guard var address = ControlSocket.address(path) else {
            Glibc.close(listener)
            throw ControlError.cannotListen(path: path, reason: "path too long")
        }
        // Created 0600 from the start: no window in which another user could connect.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, listen(listener, 64) == 0 else {
            let reason = errnoText()
            Glibc.close(listener)
            throw ControlError.cannotListen(path: path, reason: reason)
        }
        chmod(path, 0o600)
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.name = "swiftcam-control"
        thread.start()
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let interpreter = interpreter
            let thread = Thread {
                var reader = LineReader(descriptor: client)
                func answer(_ reply: Reply) {
                    let bytes = Array((reply.description + "\n").utf8)
                    _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                reading: while let line = reader.next() {
                    switch line {
                    case let .text(command): answer(interpreter.execute(command))
                    case .tooLong:
                        answer(.error("line too long (the limit is \(LineReader.limit) bytes)"))
                        break reading
                    }
                }
                Glibc.close(client)
            }
            thread.start()
        }
    }

    /// Stops accepting and removes the socket file.
    public func shutdown() {
        let wasStopped = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !wasStopped else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        unlink(path)
    }

    deinit {
        shutdown()
    }
}
