import Analysis
import Base
import FoundationEssentials
import GStreamer
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
        let line = Array((command.replacing(scalar: "\n", with: " ").replacing(scalar: "\r", with: " ") + "\n").utf8)
        let sent = line.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count
        let sendFailure = sent ? nil : errnoText()
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

/// How many connections a transport keeps open at once and how long one may stay silent: the control socket's and the
/// page's WebSocket's. A connection over `maxConnections` is refused with a one-line reason and closed; one that sends
/// nothing for `idleSeconds` is closed. Every open connection holds a thread (control) or a WebRTC viewer (page), so
/// both bound what clients can make the host hold.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections open at once (1...4096).
    public var maxConnections: Int
    /// Seconds a connection may send nothing before it is closed (1...86400).
    public var idleSeconds: Int

    /// Clamps both to their ranges.
    public init(maxConnections: Int, idleSeconds: Int) {
        self.maxConnections = min(max(maxConnections, 1), 4096)
        self.idleSeconds = min(max(idleSeconds, 1), 86400)
    }

    /// The control socket's: 16 connections, 300 s idle (`swiftcam ctl` connects for one command; an interactive
    /// client has five minutes between lines); `SWIFTCAM_CONTROL_MAX_CONNECTIONS` and `SWIFTCAM_CONTROL_IDLE_SECONDS`
    /// change them.
    public static var control: ConnectionLimits {
        ConnectionLimits(environmentPrefix: "SWIFTCAM_CONTROL", default: ConnectionLimits(maxConnections: 16, idleSeconds: 300))
    }

    /// `default`, less what `PREFIX_MAX_CONNECTIONS` and `PREFIX_IDLE_SECONDS` set (whole numbers, clamped to the ranges;
    /// anything else is ignored).
    public init(environmentPrefix prefix: String, default standard: ConnectionLimits, environment: [String: String]? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        self.init(
            maxConnections: environment["\(prefix)_MAX_CONNECTIONS"].flatMap { Int($0) } ?? standard.maxConnections,
            idleSeconds: environment["\(prefix)_IDLE_SECONDS"].flatMap { Int($0) } ?? standard.idleSeconds)
    }
}

/// Reads newline-terminated lines from a descriptor, at most `limit` bytes each.
struct LineReader {
    /// The longest command line a transport accepts.
    static let limit = Command.lineLimit

    let descriptor: Int32
    let limit: Int
    private var pending: [UInt8] = []

    /// Milliseconds to wait for more bytes before `next` gives `.idle`; nil waits as long as it takes.
    var idleMilliseconds: Int32?

    init(descriptor: Int32, limit: Int = LineReader.limit, idleSeconds: Int? = nil) {
        self.descriptor = descriptor
        self.limit = limit
        idleMilliseconds = idleSeconds.map { Int32(clamping: $0 * 1000) }
    }

    /// A line, a line over the limit (the connection is then closed: what follows is not a command), or nothing within
    /// the idle time.
    enum Line {
        case text(String)
        case tooLong
        case idle
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
            if let idleMilliseconds {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, idleMilliseconds)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 { return .idle }
            }
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

/// Listens on the session's socket (mode 0600) and answers each line with the interpreter, one thread per client, at
/// most `limits.maxConnections` of them: one more is answered `error …` and closed, and a client silent for
/// `limits.idleSeconds` is told so and closed, which ends its thread.
public final class ControlServer: @unchecked Sendable {
    /// The socket path.
    public let path: String
    /// The connection cap and idle timeout.
    public let limits: ConnectionLimits
    private let listener: Int32
    private let interpreter: CommandInterpreter
    private let stopped = Locked(false)
    /// Connections being served (each by a thread of its own).
    private let connections = Locked(0)

    /// Binds and listens; a stale socket of a dead session is replaced, a live one is an error.
    public init(name: String, interpreter: CommandInterpreter, limits: ConnectionLimits = .control) throws {
        path = ControlSocket.path(for: name)
        self.interpreter = interpreter
        self.limits = limits
        let directory = ControlSocket.directory
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw ControlError.cannotListen(path: path, reason: "cannot create \(directory): \(errnoText())")
        }
        // Any answer is a live session, a refusal (its connections full) included.
        if (try? ControlSocket.send("help", to: name, timeout: 1)) != nil {
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
        DetachedThread.start(name: "swiftcam-control") { [weak self] in self?.acceptLoop() }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let most = limits.maxConnections
            let admitted = connections.withLock { open in
                guard open < most else { return false }
                open += 1
                return true
            }
            guard admitted else {
                refuse(client)
                continue
            }
            let interpreter = interpreter, limits = limits, connections = connections
            let started = DetachedThread.start(name: "swiftcam-ctl") {
                var reader = LineReader(descriptor: client, idleSeconds: limits.idleSeconds)
                let requester = Requester(socket: client)
                reading: while let line = reader.next() {
                    switch line {
                    case let .text(command) where command.trimmed == EventStream.command:
                        EventStream.serve(client, session: interpreter.session, reader: &reader)
                        break reading
                    case let .text(command): Self.answer(client, interpreter.execute(command, from: requester))
                    case .tooLong:
                        Self.answer(client, .error("line too long (the limit is \(LineReader.limit) bytes)"))
                        break reading
                    case .idle:
                        Self.answer(
                            client,
                            .error(
                                "closed after \(limits.idleSeconds) s without a command (the control socket's idle timeout); connect again to go on"
                            ))
                        break reading
                    }
                }
                // Counted out before the close: a client that sees the end may connect again at once.
                connections.withLock { $0 -= 1 }
                Glibc.close(client)
            }
            if !started {
                connections.withLock { $0 -= 1 }
                Self.answer(client, .error("the host has no thread to spare for this connection (its limit is reached); try again"))
                Glibc.close(client)
            }
        }
    }

    static func answer(_ client: Int32, _ reply: Reply) {
        let bytes = Array((reply.description + "\n").utf8)
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Answers a connection over the cap and closes it, on the accept thread without waiting: what the client already
    /// sent is read and dropped first (closing with unread bytes would reset the connection and could destroy the
    /// answer), and the answer goes out without blocking (one line fits an empty send buffer).
    private func refuse(_ client: Int32) {
        var sink = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<4 {  // bounded: a client that keeps sending must not hold the accept thread
            guard recv(client, &sink, sink.count, Int32(MSG_DONTWAIT)) > 0 else { break }
        }
        let reason =
            "error the control socket has \(limits.maxConnections) connections open, its limit; close one (an idle one closes after \(limits.idleSeconds) s) and try again\n"
        _ = Array(reason.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.shutdown(client, Int32(SHUT_WR))
        Glibc.close(client)
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

/// `events` on the control socket: the connection becomes a stream of the session's analysis events, one line each,
/// until the client closes it.
enum EventStream {
    static let command = "events"
    /// The answer when nothing in the session makes events: a stream of them would stay silent for ever.
    static let noAnalyzers =
        "this session has no analysers, so no events will come; add one to the config (\"analyze\": [{\"motion\": {}}]) or from a plugin"

    /// Answers `ok`, then sends each event as it comes; a client that does not read loses events rather than holding up
    /// the analyser (each line is sent without waiting). Returns when the client closes its end.
    static func serve(_ client: Int32, session: CaptureSession, reader: inout LineReader) {
        // Nothing running and nothing the config will start (its analysers are made at the first start).
        guard !session.analyzerStats.isEmpty || !(session.config.analyze ?? []).isEmpty else {
            ControlServer.answer(client, .error(noAnalyzers))
            return
        }
        ControlServer.answer(client, .ok("streaming events until the connection closes"))
        let subscription = session.subscribeEvents { event in
            let bytes = Array("event \(event.line)\n".utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        defer { subscription.cancel() }
        // The client sends nothing more: wait for its end (idle spells are expected here, not a reason to close).
        while true {
            switch reader.next() {
            case .idle?, .text?: continue
            case .tooLong?, nil: return
            }
        }
    }
}
