public import Base
public import Capture
import GStreamer
import Glibc

/// Listens on the session's socket (mode 0600) and answers each line with the interpreter, one thread per client, at
/// most `limits.maxConnections` of them: one more is answered `error …` and closed, and a client silent for
/// `limits.idleSeconds` is told so and closed, which ends its thread.
/// Unchecked Sendable: every field is immutable after `init`, and the stop flag and connection count are behind
/// `Locked`.
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
            throw ControlError.cannotListen(path: path, reason: "cannot create \(directory): \(SystemError.message(errno))")
        }
        // Any answer is a live session, a refusal (its connections full) included.
        if (try? ControlSocket.send("help", to: name, timeout: 1)) != nil {
            throw ControlError.cannotListen(path: path, reason: "another 'swiftcam run \(name)' is already running")
        }
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ControlError.cannotListen(path: path, reason: SystemError.message(errno)) }
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
            let reason = SystemError.message(errno)
            Glibc.close(listener)
            throw ControlError.cannotListen(path: path, reason: reason)
        }
        chmod(path, 0o600)
        SystemThread.detached(name: "swiftcam-control") { [weak self] in self?.acceptLoop() }
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = SystemCall.retrying { accept(listener, nil, nil) }
            if client < 0 { return }
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
            let started = SystemThread.detached(name: "swiftcam-ctl") {
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
