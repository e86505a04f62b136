import Base
import Foundation
import GStreamer
import Glibc
public import Testing

/// A program a test runs: started with its arguments, environment and folder, its stdout and stderr read line by line
/// as they come, its stdin open for commands, and always stopped and reaped — on `stop`, on `waitForExit`, and at the
/// latest when the test lets go of it, so a test that fails half-way leaves nothing running.
///
/// Spawned with `posix_spawnp`, not Foundation's `Process` (which needs a run-loop socket pair that hangs in the VM),
/// with an empty signal mask and default dispositions, so SIGTERM and SIGHUP reach the child's own handlers whatever
/// the test process blocks. Every wait blocks on what it waits for (a line, the end of a stream, the exit); its
/// timeout is a safety net that fails the test with what the program said, never a measurement.
public final class ChildProcess: @unchecked Sendable {
    /// One of the child's output streams.
    public enum Stream: Sendable {
        case output, errors
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit code, or 128 + the signal as a shell reports it.
        public var status: Int32 {
            switch self {
            case let .exited(code): code
            case let .signalled(signal): 128 + signal
            }
        }
    }

    /// The child's process id.
    public let pid: Int32
    /// What was run, for messages.
    public let command: [String]
    /// The write ends' device and inode (`fstat`), the numbers systemd puts in `JOURNAL_STREAM`.
    public typealias StreamIdentity = (device: UInt, inode: UInt)

    private struct Lines: Sendable {
        var output: [String] = []
        var errors: [String] = []
        var outputBytes: [UInt8] = []
        var errorsBytes: [UInt8] = []
        var outputEnded = false
        var errorsEnded = false
        var termination: Termination?

        func lines(_ stream: Stream) -> [String] { stream == .output ? output : errors }
        func ended(_ stream: Stream) -> Bool { stream == .output ? outputEnded : errorsEnded }
        func bytes(_ stream: Stream) -> [UInt8] { stream == .output ? outputBytes : errorsBytes }
    }

    private let state = Condition(Lines())
    /// The write end of the child's stdin, -1 once closed.
    private let input = Condition(Int32(-1))

    /// Starts `arguments[0]` (looked up in PATH) with the rest as its arguments.
    /// - `environment`: the whole environment (default: this process's, `environ` as it is now); `directory`: its
    ///   working folder.
    /// - `standardInput`: a descriptor the child reads as stdin instead of a pipe from `send` (not closed here).
    /// - `errorsToOutput`: stderr goes to the stdout pipe (one stream, in the order written).
    /// - `streamEnvironment`: variables computed from the stdout and stderr pipes the child will write to (e.g.
    ///   `JOURNAL_STREAM`), added to the environment.
    /// - `onLine`: each complete line as it comes, on the stream's reader thread (keep it short).
    public init(
        _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: Int32? = nil, errorsToOutput: Bool = false,
        streamEnvironment: ((_ output: StreamIdentity, _ errors: StreamIdentity) -> [String: String])? = nil,
        onLine: (@Sendable (Stream, String) -> Void)? = nil
    ) throws {
        guard let program = arguments.first else { throw ChildProcessError("no command to start") }
        command = arguments
        _ = Self.ignoreBrokenPipes
        var stdin: [Int32] = [-1, -1], stdout: [Int32] = [-1, -1], stderr: [Int32] = [-1, -1]
        // Close-on-exec from the start: a child started beside this one (suites run tests in parallel) inherits none
        // of these ends, so each stream ends when its own child (and what that started) closes it.
        do {
            for index in 0..<(errorsToOutput ? 2 : 3) {
                let ends = try Spawn.pipe()
                switch index {
                case 0: stdin = [ends.read, ends.write]
                case 1: stdout = [ends.read, ends.write]
                default: stderr = [ends.read, ends.write]
                }
            }
        } catch {
            for fd in stdin + stdout + stderr where fd >= 0 { close(fd) }
            throw ChildProcessError("cannot make pipes for \(program): \(SystemError.message(error.code))")
        }
        let errorsEnd = errorsToOutput ? stdout[1] : stderr[1]

        var variables = environment
        if let streamEnvironment {
            variables = (variables ?? ProcessInfo.processInfo.environment)
                .merging(streamEnvironment(Self.identity(of: stdout[1]), Self.identity(of: errorsEnd))) { $1 }
        }

        let spawned = Result { () throws(SystemError) in
            try Spawn.start(
                arguments, environment: variables, directory: directory, standardInput: standardInput ?? stdin[0],
                standardOutput: stdout[1], standardError: errorsEnd, ownProcessGroup: false)
        }
        close(stdin[0])
        close(stdout[1])
        if !errorsToOutput { close(stderr[1]) }
        guard case let .success(pid) = spawned else {
            close(stdin[1])
            close(stdout[0])
            if !errorsToOutput { close(stderr[0]) }
            let code = if case let .failure(error) = spawned { error.code } else { Int32(0) }
            throw ChildProcessError("cannot start \(program): \(SystemError.message(code))")
        }
        self.pid = pid
        if standardInput == nil { input.withLock { $0 = stdin[1] } } else { close(stdin[1]) }

        let state = state
        Self.read(stdout[0], into: state, as: .output, onLine: onLine)
        if errorsToOutput {
            state.withLock { $0.errorsEnded = true }
        } else {
            Self.read(stderr[0], into: state, as: .errors, onLine: onLine)
        }
        // The reaper: the exit is an event waiters wake on, and the child is never left a zombie.
        let child = pid
        SystemThread.detached(name: "reap \(pid)") {
            let termination: Termination =
                switch Spawn.wait(for: child) {
                case let .exited(code): .exited(code)
                case let .signalled(signal): .signalled(signal)
                }
            state.withLock { $0.termination = termination }
        }
    }

    /// Kills and reaps a child still running: nothing a test started outlives it.
    deinit {
        closeInput()
        if state.withLock({ $0.termination == nil }) {
            Glibc.kill(pid, SIGKILL)
            _ = state.wait { $0.termination }
        }
    }

    // MARK: What it said

    /// The complete lines of a stream so far.
    public func lines(_ stream: Stream = .output) -> [String] { state.withLock { $0.lines(stream) } }

    /// Everything a stream has carried so far, as written.
    public func text(_ stream: Stream = .output) -> String { String(decoding: bytes(stream), as: UTF8.self) }

    /// Everything a stream has carried so far, byte for byte (for output that is not text).
    public func bytes(_ stream: Stream = .output) -> [UInt8] { state.withLock { $0.bytes(stream) } }

    /// Both streams, for a failure message.
    public var transcript: String {
        "stdout: \(text(.output).suffix(2000))\nstderr: \(text(.errors).suffix(2000))"
    }

    /// The first line of `stream` (from the `skipping`th on) that `matches`, already printed or coming; nil when the
    /// stream ends without one. A safety net of `timeout` seconds records a failure with what was printed.
    public func line(
        _ stream: Stream = .output, skipping: Int = 0, timeout: Double = 60,
        sourceLocation: SourceLocation = #_sourceLocation, where matches: (String) -> Bool
    ) -> String? {
        let found: String?? = state.wait(until: MonotonicClock.now + timeout) { state in
            if let line = state.lines(stream).dropFirst(skipping).first(where: matches) { return .some(line) }
            return state.ended(stream) ? .some(nil) : nil
        }
        guard let found else {
            Issue.record("\(name) printed no awaited line in \(timeout) s (a safety net)\n\(transcript)", sourceLocation: sourceLocation)
            return nil
        }
        return found
    }

    /// The first line of `stream` that contains `text` (see `line(_:skipping:timeout:where:)`).
    public func line(
        _ stream: Stream = .output, containing text: String, timeout: Double = 60,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        line(stream, timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// The text of `stream` so far once it `matches` (for output that is not lines, e.g. a mark per frame); nil when
    /// the stream ends first. A safety net of `timeout` seconds records a failure with what was printed.
    public func text(
        _ stream: Stream = .output, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
        where matches: (String) -> Bool
    ) -> String? {
        let found: String?? = state.wait(until: MonotonicClock.now + timeout) { state in
            let text = String(decoding: state.bytes(stream), as: UTF8.self)
            if matches(text) { return .some(text) }
            return state.ended(stream) ? .some(nil) : nil
        }
        guard let found else {
            Issue.record("\(name) printed nothing awaited in \(timeout) s (a safety net)\n\(transcript)", sourceLocation: sourceLocation)
            return nil
        }
        return found
    }

    /// A stream's whole text once it has ended (the child and whatever it started closed it). A safety net of
    /// `timeout` seconds records a failure and returns what came.
    public func allText(_ stream: Stream = .output, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let ended = state.wait(until: MonotonicClock.now + timeout) { $0.ended(stream) ? true : nil }
        if ended == nil {
            Issue.record("\(name): its \(stream) did not end in \(timeout) s (a safety net)\n\(transcript)", sourceLocation: sourceLocation)
        }
        return text(stream)
    }

    // MARK: Driving it

    /// Writes `line` and a newline to the child's stdin; false when stdin is closed or the child has stopped reading.
    @discardableResult
    public func send(_ line: String) -> Bool {
        write(line.hasSuffix("\n") ? line : line + "\n")
    }

    /// Writes `text` as it is to the child's stdin.
    @discardableResult
    public func write(_ text: String) -> Bool {
        input.withLock { fd in
            guard fd >= 0 else { return false }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                bytes = bytes.dropFirst(written)
            }
            return true
        }
    }

    /// Closes the child's stdin (it reads the end of its input).
    public func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Sends `signal` to the child, if it has not been reaped.
    public func signal(_ signal: Int32) {
        state.withLock { if $0.termination == nil { Glibc.kill(pid, signal) } }
    }

    // MARK: Its end

    /// Whether the child has not ended yet.
    public var isRunning: Bool { state.withLock { $0.termination == nil } }

    /// How it ended, if it has.
    public var termination: Termination? { state.withLock { $0.termination } }

    /// Waits for the child to end by itself and for both streams to close; returns how it ended. A safety net of
    /// `timeout` seconds records a failure with what it printed, then kills it.
    @discardableResult
    public func waitForExit(timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) -> Termination {
        let done = state.wait(until: MonotonicClock.now + timeout) { state in
            state.outputEnded && state.errorsEnded ? state.termination : nil
        }
        if let done { return done }
        Issue.record("\(name) still ran \(timeout) s on (a safety net); killed\n\(transcript)", sourceLocation: sourceLocation)
        return kill()
    }

    /// How it ended, waiting at most `timeout` seconds for that; nil when it still runs then (no failure recorded:
    /// for a test that asks whether it ends).
    public func termination(within timeout: Double) -> Termination? {
        state.wait(until: MonotonicClock.now + timeout) { $0.termination }
    }

    /// SIGTERM, then waits for the exit (the streams' end included); a child still running `timeout` seconds later
    /// is killed and the test fails with what it printed. Returns the exit status (128 + signal when signalled).
    @discardableResult
    public func stop(timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        closeInput()
        signal(SIGTERM)
        let done = state.wait(until: MonotonicClock.now + timeout) { state in
            state.outputEnded && state.errorsEnded ? state.termination : nil
        }
        if let done { return done.status }
        Issue.record(
            "\(name) did not stop within \(timeout) s of SIGTERM (a safety net); killed\n\(transcript)",
            sourceLocation: sourceLocation)
        return kill().status
    }

    /// SIGKILL and reap.
    @discardableResult
    public func kill() -> Termination {
        closeInput()
        signal(SIGKILL)
        return state.wait { $0.termination }!
    }

    /// Runs a program to its end with `input` on its stdin (then closed); returns its exit status and both outputs.
    /// A safety net of `timeout` seconds fails the test with what it printed and kills it.
    public static func run(
        _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: String = "", timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> (status: Int32, out: String, err: String)
    {
        let child = try ChildProcess(arguments, environment: environment, directory: directory)
        child.write(input)
        child.closeInput()
        let status = child.waitForExit(timeout: timeout, sourceLocation: sourceLocation).status
        return (status, child.text(.output), child.text(.errors))
    }

    // MARK: Plumbing

    private var name: String { command.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ") }

    private static func identity(of fd: Int32) -> StreamIdentity {
        var info = stat()
        fstat(fd, &info)
        return (UInt(info.st_dev), UInt(info.st_ino))
    }

    /// A write to a child that has gone fails with EPIPE instead of ending the test run.
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    /// A thread that reads `fd` to its end, splitting lines as they come.
    private static func read(_ fd: Int32, into state: Condition<Lines>, as stream: Stream, onLine: (@Sendable (Stream, String) -> Void)?) {
        SystemThread.detached(name: "read \(stream)") {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = Glibc.read(fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                let ended = count <= 0
                if !ended { pending += buffer[0..<count] }
                var complete: [String] = []
                while let newline = pending.firstIndex(of: 10) {
                    complete.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
                if ended && !pending.isEmpty {
                    complete.append(String(decoding: pending, as: UTF8.self))
                    pending = []
                }
                let chunk = ended ? [] : buffer[0..<count]
                if let onLine { for line in complete { onLine(stream, line) } }
                state.withLock { state in
                    switch stream {
                    case .output:
                        state.outputBytes += chunk
                        state.output += complete
                        if ended { state.outputEnded = true }
                    case .errors:
                        state.errorsBytes += chunk
                        state.errors += complete
                        if ended { state.errorsEnded = true }
                    }
                }
                if ended { break }
            }
            close(fd)
        }
    }
}

/// A child process that could not be started or driven, in one line.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
