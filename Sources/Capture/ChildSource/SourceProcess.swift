import Base
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// A source's graph running in a child process, so that a crash in a camera library (libcamera 0.0.3's vimc handler
/// segfaults now and then on its own thread) ends the child, never the host. The child is `gst-launch-1.0 -f` (no fault
/// handler: a crash ends it instead of spinning for a debugger) given the graph's words as arguments, under
/// `setpriv --pdeathsig KILL`, so it dies with the host. Its frames cross in shared memory (`shmsink` → `shmsrc`).
///
/// `start` returns once the child's graph plays; the child's stdout and stderr are read as they come, its GStreamer
/// text kept for the debug log. `ending` says how it ended (a signal, an exit status, the error it printed). `stop`
/// kills it and waits for it, so the camera is free for the next child.
/// Unchecked Sendable: `label` and `pid` are immutable, and everything the reader and reaper threads change is
/// behind the `state` condition.
final class SourceProcess: @unchecked Sendable {
    /// How a child ended.
    struct Ending: Sendable, Equatable, CustomStringConvertible {
        /// The signal that ended it (`SIGSEGV`), or nil when it exited.
        var signal: Int32?
        /// Its exit status when it exited.
        var status: Int32
        /// The last error gst-launch printed (`ERROR: from element …: MESSAGE`) and its debug line.
        var error: String?
        var debug: String?

        /// `crashed (SIGSEGV)`, `exited with status 1`.
        var description: String {
            if let signal { return "crashed (\(Spawn.Termination.name(of: signal)))" }
            return "exited with status \(status)"
        }
    }

    private struct State {
        var playing = false
        var ending: Ending?
        var error: String?
        var debug: String?
        var expectDebug = false
        /// How the process ended, and whether its stderr reached its end: `ending` waits for both, so the error the
        /// child printed last is in it, but no longer than `stderrGrace` after the exit (`force`).
        var termination: Spawn.Termination?
        var errorsEnded = false

        mutating func endIfComplete(force: Bool = false) {
            guard ending == nil, errorsEnded || force, let termination else { return }
            let status = if case let .exited(code) = termination { code } else { Int32(0) }
            ending = Ending(signal: termination.signal, status: status, error: error, debug: debug)
        }
    }

    /// Whose frames the child sends, as failures name it (`Sensor B (libcamera)`).
    let label: String
    /// The child's process id.
    let pid: Int32
    private let state = Condition(State())

    /// Spawns the child for the graph `arguments` describe (gst-launch words) and returns at once; `waitUntilPlaying`
    /// waits for its graph to play.
    init(label: String, arguments: [String]) throws {
        self.label = label
        guard let launcher = Self.launcher else { throw MissingLauncher() }
        var environment = ProcessInfo.processInfo.environment
        environment["LIBCAMERA_LOG_LEVELS"] = environment["LIBCAMERA_LOG_LEVELS"] ?? "*:ERROR"
        let output = try Spawn.pipe()
        let errors: (read: Int32, write: Int32)
        do {
            errors = try Spawn.pipe()
        } catch {
            close(output.read)
            close(output.write)
            throw error
        }
        let command = ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", launcher, "-f"] + arguments
        // The child has its own copies of the write ends; the reads end when it (and what it started) closes them.
        defer {
            close(output.write)
            close(errors.write)
        }
        let pid: Int32
        do {
            pid = try Self.spawner.spawn(command, environment: environment, output: output.write, errors: errors.write)
        } catch {
            close(output.read)
            close(errors.read)
            throw error
        }
        self.pid = pid
        let state = state
        let reading = Spawn.readLines(output.read, name: "swiftcam-src-out") { line in
            if line.hasPrefix("Setting pipeline to PLAYING") { state.withLock { $0.playing = true } }
        }
        let readingErrors = Spawn.readLines(
            errors.read, name: "swiftcam-src-err",
            ended: {
                state.withLock { state in
                    state.errorsEnded = true
                    state.endIfComplete()
                }
            }
        ) { line in
            DebugLog.warning("camera \(label) (child process): \(line)")
            state.withLock { state in
                if line.hasPrefix("ERROR: from element") {
                    state.error = line.split(separator: ":", maxSplits: 3).last.map { $0.trimmed }
                    state.expectDebug = false
                } else if line.hasPrefix("Additional debug info:") {
                    state.expectDebug = true
                } else if state.expectDebug, !line.hasSuffix(":") || state.debug != nil {
                    state.debug = (state.debug.map { $0 + " " } ?? "") + line
                }
            }
        }
        // The reaper: the end is an event waiters wake on, and the child is never left a zombie.
        let reaping = SystemThread.detached(name: "swiftcam-src-reap") {
            let termination = Spawn.wait(for: pid)
            state.withLock { state in
                state.termination = termination
                state.endIfComplete()
            }
            // Its stderr ends with it unless a process it started still holds it (libcamera's IPA proxy outlives a
            // crashed gst-launch a while): the ending is told then without waiting for that one.
            if state.wait(until: MonotonicClock.now + Self.stderrGrace, for: { $0.ending }) == nil {
                state.withLock { $0.endIfComplete(force: true) }
            }
        }
        guard reading, readingErrors, reaping else {
            // No thread to read or reap with: the child goes now, reaped here unless the reaper runs.
            kill(pid, SIGKILL)
            if !reaping { _ = Spawn.wait(for: pid) }
            throw SystemError("cannot watch the child process of camera \(label)", code: EAGAIN)
        }
    }

    /// Seconds the ending waits, after the exit, for the last of the child's stderr.
    static let stderrGrace = 0.5

    /// A program to run instead of `gst-launch-1.0` (tests set a stand-in).
    static let standInLauncher = Locked<String?>(nil)

    /// `gst-launch-1.0` on PATH, or the stand-in; nil when neither is there.
    private static var launcher: String? {
        if let path = standInLauncher.withLock({ $0 }) { return path }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"]
        return folders.map { "\($0)/gst-launch-1.0" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// No `gst-launch-1.0` to run the child in.
    struct MissingLauncher: Error, CustomStringConvertible {
        var description: String {
            "gst-launch-1.0 is not installed: libcamera and launch sources run in it (Debian package gstreamer1.0-tools)"
        }
    }

    /// Waits until the child's graph plays (true) or the child ends or `timeout` seconds pass (false).
    func waitUntilPlaying(timeout: Double) -> Bool {
        state.wait(until: MonotonicClock.now + timeout) { state in
            if state.playing && state.ending == nil { return true }
            return state.ending != nil ? false : nil
        } ?? false
    }

    /// How the child ended, waiting at most `timeout` seconds for it to end; nil while it runs.
    func ending(timeout: Double) -> Ending? {
        state.wait(until: MonotonicClock.now + timeout) { $0.ending }
    }

    /// Kills the child (SIGKILL: it writes no file, and libcamera 0.0.3 may crash on a gentler stop) and waits for it
    /// to be gone, so its camera is free.
    func stop() {
        if state.withLock({ $0.ending == nil }) { kill(pid, SIGKILL) }
        _ = ending(timeout: 10)
    }

    /// The thread every child is spawned from. `setpriv --pdeathsig` arms the signal for when the *thread* that forked
    /// it ends, not the process: spawned from a dispatch worker that retires later, a child would be killed with it.
    /// This thread lives as long as the process.
    private static let spawner = Spawner()

    private final class Spawner: Sendable {
        /// A child to start, and where its outcome goes once it started (or failed to).
        private struct Job: Sendable {
            let command: [String]
            let environment: [String: String]
            let output: Int32
            let errors: Int32
            let result: Condition<Result<Int32, SystemError>?>
        }

        private let jobs = Condition([Job]())
        /// Whether its thread runs; without it every spawn is refused.
        private let running: Bool

        init() {
            let jobs = jobs
            running = SystemThread.detached(name: "swiftcam-src-spawn") {
                while true {
                    guard let job = jobs.wait(for: { $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    let outcome = Result { () throws(SystemError) in
                        try Spawn.start(job.command, environment: job.environment, standardOutput: job.output, standardError: job.errors)
                    }
                    job.result.withLock { $0 = outcome }
                }
            }
        }

        func spawn(_ command: [String], environment: [String: String], output: Int32, errors: Int32) throws(SystemError) -> Int32 {
            guard running else { throw SystemError("no thread to start camera processes from", code: EAGAIN) }
            let result = Condition<Result<Int32, SystemError>?>(nil)
            jobs.withLock { $0.append(Job(command: command, environment: environment, output: output, errors: errors, result: result)) }
            return try result.wait { $0 }!.get()
        }
    }
}
