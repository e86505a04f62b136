import CBase
import Glibc

/// A system call that failed: what was tried, in the user's words, and `errno`'s text.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed (`cannot start cam`).
    public let operation: String
    /// The `errno` value.
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// `operation` failed with the current `errno`.
    public init(_ operation: String) { self.init(operation, code: errno) }

    /// `strerror`'s text for `code` (`No such file or directory`).
    public static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    public var description: String { "\(operation): \(Self.message(code))" }
}

/// Starting programs without Foundation's `Process`: `posix_spawnp` with the streams the caller chose, an empty signal
/// mask and default signal dispositions (so the child's own handlers see SIGTERM whatever this process blocks), no
/// other descriptor of this process (every one from 3 up is closed in the child: a socket of a client this process
/// closes must not stay open in a child that outlives it), and pipes that are close-on-exec from the start, so a
/// child started beside another inherits none of its ends. By default the child leads a process group of its own, as
/// Foundation's did: Ctrl-C at a terminal reaches this process, which decides what its children get.
public enum Spawn {
    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The signal that ended it, if one did.
        public var signal: Int32? {
            if case let .signalled(signal) = self { return signal }
            return nil
        }

        /// `exited with status 1`, `killed by SIGSEGV`.
        public var description: String {
            switch self {
            case let .exited(code): "exited with status \(code)"
            case let .signalled(signal): "killed by \(Self.name(of: signal))"
            }
        }

        /// `SIGSEGV`, or `signal 40` for one without a common name.
        public static func name(of signal: Int32) -> String {
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
                SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGPIPE: "SIGPIPE"
            ]
            return names[signal] ?? "signal \(signal)"
        }
    }

    /// A pipe whose two ends are closed on exec.
    public static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard CBase_pipeCloseOnExec(&ends) == 0 else { throw SystemError("cannot make a pipe") }
        return (ends[0], ends[1])
    }

    /// Starts `arguments[0]` (looked up in PATH when it has no `/`) with the rest as its arguments, and returns its
    /// process id. A stream given as nil is `/dev/null`; the descriptors given stay open here (the caller closes its
    /// copies). `environment` nil is this process's; `directory` the child's working folder; `ownProcessGroup` false
    /// leaves the child in this process's group (a terminal's Ctrl-C then reaches both).
    public static func start(
        _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil, ownProcessGroup: Bool = true
    ) throws(SystemError) -> Int32 {
        guard let program = arguments.first else { throw SystemError("no program to start", code: EINVAL) }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw SystemError("cannot open /dev/null") }
        defer { close(null) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput ?? null, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput ?? null, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError ?? null, 2)
        CBase_addCloseFrom(&actions, 3)
        if let directory { CBase_addChdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        let group = ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | group))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        var pid: pid_t = 0
        let result =
            envp.map { posix_spawnp(&pid, program, &actions, &attributes, argv, $0) }
            ?? posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        guard result == 0 else { throw SystemError("cannot start \(program)", code: result) }
        return pid
    }

    /// Waits for the child `pid` to end without reaping it: its pid stays its own (a zombie) until `wait(for:)`, so a
    /// signal sent meanwhile cannot reach another process that reused the number.
    public static func waitUntilEnded(_ pid: Int32) {
        var info = siginfo_t()
        _ = SystemCall.retrying { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
    }

    /// Waits for the child `pid` to end and reaps it.
    public static func wait(for pid: Int32) -> Termination {
        var status: Int32 = 0
        // ECHILD (reaped elsewhere) has no status to give.
        guard SystemCall.retrying({ waitpid(pid, &status, 0) }) >= 0 else { return .exited(-1) }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Reads `fd` to its end on the calling thread, then closes it.
    public static func readAll(_ fd: Int32) -> [UInt8] {
        defer { close(fd) }
        // What came before a failed read is what there is.
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = SystemCall.retrying { Glibc.read(fd, &buffer, buffer.count) }
            guard count > 0 else { return bytes }
            bytes += buffer[0..<count]
        }
    }

    /// Reads `fd` to its end on a thread of its own, calling `body` with each chunk as it comes (an empty one at the
    /// end), then closes it. False, with `fd` closed and `body` never called, when the system gives no thread.
    @discardableResult
    public static func read(_ fd: Int32, name: String, _ body: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        let started = SystemThread.detached(name: name) {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = SystemCall.retrying { Glibc.read(fd, &buffer, buffer.count) }
                guard count > 0 else { break }
                body(Array(buffer[0..<count]))
            }
            close(fd)
            body([])
        }
        if !started { close(fd) }
        return started
    }

    /// Reads `fd` to its end as lines (the last one even without its newline), calling `body` with each on a thread
    /// of its own, then `ended`, then closes it. False, with `fd` closed and nothing called, when the system gives no
    /// thread.
    @discardableResult
    public static func readLines(
        _ fd: Int32, name: String, ended: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable (String) -> Void
    ) -> Bool {
        nonisolated(unsafe) var pending: [UInt8] = []  // touched only by the reading thread
        return read(fd, name: name) { chunk in
            if chunk.isEmpty {
                if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self)) }
                ended?()
                return
            }
            pending += chunk
            while let newline = pending.firstIndex(of: 10) {
                body(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }

    /// The folder of PATH (default `/usr/local/bin:/usr/bin:/bin`) where `program` is an executable file, or
    /// `program` itself when it names a path; nil when there is none.
    public static func resolve(_ program: String, path: String? = nil) -> String? {
        func executable(_ file: String) -> Bool {
            var status = stat()
            return stat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(file, X_OK) == 0
        }
        if program.contains("/") { return executable(program) ? program : nil }
        let folders = (path ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/\(program)" }.first(where: executable)
    }
}
