public import Base
public import Capture
import Config
import FoundationEssentials
import Glibc

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

    /// Sends one command line to a running session and returns its reply line; `timeout` seconds without one (by default
    /// `replySeconds(for:)`) is an error.
    public static func send(_ command: String, to name: String, timeout: Double? = nil) throws -> Reply {
        try send(command, socket: path(for: name), name: name, timeout: timeout ?? replySeconds(for: command))
    }

    /// Sends one command line to the session listening on `path`.
    public static func send(_ command: String, socket path: String, name: String? = nil, timeout: Double? = nil) throws -> Reply {
        try send(command, socket: path, name: name, timeout: timeout ?? replySeconds(for: command), then: nil)
    }

    /// How long a client waits for the reply to `command`: 30 s, and for `wait N` the session's own limit on waiting
    /// for frames (it answers with the frames it saw by then) and 30 s more.
    public static func replySeconds(for command: String) -> Double {
        command.split(separator: " ").first == "wait" ? Command.frameWaitSeconds + 30 : 30
    }

    /// `events`: the reply, then every analysis event as a line (`event motion start area=…`) to `onLine` until it
    /// returns false or the session closes the connection. Waits for events without a timeout.
    public static func streamEvents(from name: String, onLine: @escaping (String) -> Bool) throws -> Reply {
        try send(EventStream.command, socket: path(for: name), name: name, timeout: 30, then: onLine)
    }

    private static func send(
        _ command: String, socket path: String, name: String?, timeout: Double, then onLine: ((String) -> Bool)?
    ) throws -> Reply {
        let name = name ?? ConfigStore.sessionName(for: path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ControlError.notRunning(name: name, path: path, reason: SystemError.message(errno)) }
        defer { close(descriptor) }
        guard var address = address(path) else { throw ControlError.notRunning(name: name, path: path, reason: "path too long") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            if errno == ENOENT { throw ControlError.unknownSession(name: name, running: runningSessions()) }
            throw ControlError.notRunning(name: name, path: path, reason: SystemError.message(errno))
        }
        let line = Array((command.replacing(scalar: "\n", with: " ").replacing(scalar: "\r", with: " ") + "\n").utf8)
        let sent = line.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count
        let sendFailure = sent ? nil : SystemError.message(errno)
        // Replies may quote the command back, so they get more room than commands do.
        var reader = LineReader(descriptor: descriptor, limit: 16 * LineReader.limit)
        reader.idleMilliseconds = Int32(min(max(timeout, 0.001), 86_400) * 1000)
        let reply: String
        switch reader.next() {
        // A session that refused the connection (all its connections in use) answered and closed before the command
        // went out: its answer is still there to read, and says more than the broken pipe.
        case let .text(text)?: reply = text
        case _ where sendFailure != nil: throw ControlError.notRunning(name: name, path: path, reason: sendFailure ?? "")
        case .idle?: throw ControlError.noReplyWithin(name: name, seconds: timeout)
        case .tooLong?, nil: throw ControlError.noReply(name: name)
        }
        guard reply.hasPrefix("ok") else { return .error(reply.hasPrefix("error ") ? String(reply.dropFirst(6)) : reply) }
        if let onLine {
            // Events come when they come: no time limit from here on.
            reader.idleMilliseconds = nil
            while case let .text(line) = reader.next(), onLine(line) {}
        }
        return .ok(String(reply.dropFirst(2)).trimmed)
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
    /// The session did not answer within the client's time.
    case noReplyWithin(name: String, seconds: Double)
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
        case let .noReplyWithin(name, seconds):
            "session '\(name)' did not reply within \(seconds.shortText) s"
        case let .cannotListen(path, reason):
            "cannot listen on \(path): \(reason)"
        }
    }

    /// A session that is not there is unavailable; a socket that cannot be made cannot be created.
    public var kind: FailureKind {
        switch self {
        case .unknownSession, .notRunning, .noReply, .noReplyWithin: .unavailable
        case .cannotListen: .cannotCreate
        }
    }
}
