import Dispatch
import Foundation
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
            if let signal { return "crashed (\(Self.name(of: signal)))" }
            return "exited with status \(status)"
        }

        static func name(of signal: Int32) -> String {
            let names: [Int32: String] = [
                SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
                SIGTERM: "SIGTERM", SIGINT: "SIGINT"
            ]
            return names[signal] ?? "signal \(signal)"
        }
    }

    private struct State {
        var playing = false
        var ending: Ending?
        var error: String?
        var debug: String?
        var expectDebug = false
    }

    /// Whose frames the child sends, as failures name it (`Sensor B (libcamera)`).
    let label: String
    /// The child's process id.
    let pid: Int32
    private let process: Process
    private let state = Condition(State())

    /// Spawns the child for the graph `arguments` describe (gst-launch words) and returns at once; `waitUntilPlaying`
    /// waits for its graph to play.
    init(label: String, arguments: [String]) throws {
        self.label = label
        guard let launcher = Self.launcher else { throw MissingLauncher() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--pdeathsig", "KILL", "--", launcher, "-f"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LIBCAMERA_LOG_LEVELS"] = environment["LIBCAMERA_LOG_LEVELS"] ?? "*:ERROR"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let state = state
        Self.readLines(output) { line in
            if line.hasPrefix("Setting pipeline to PLAYING") { state.withLock { $0.playing = true } }
        }
        Self.readLines(errors) { line in
            DebugLog.warning("camera \(label) (child process): \(line)")
            state.withLock { state in
                if line.hasPrefix("ERROR: from element") {
                    state.error = line.split(separator: ":", maxSplits: 3).last.map { $0.trimmingCharacters(in: .whitespaces) }
                    state.expectDebug = false
                } else if line.hasPrefix("Additional debug info:") {
                    state.expectDebug = true
                } else if state.expectDebug, !line.hasSuffix(":") || state.debug != nil {
                    state.debug = (state.debug.map { $0 + " " } ?? "") + line
                }
            }
        }
        process.terminationHandler = { process in
            let signal: Int32? = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
            state.withLock { state in
                state.ending = Ending(signal: signal, status: process.terminationStatus, error: state.error, debug: state.debug)
            }
        }
        pid = try Self.spawner.spawn(process)
        self.process = process
    }

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

    /// Calls `body` with each line `pipe` delivers, on a queue of the pipe's own, until the writer closes it.
    private static func readLines(_ pipe: Pipe, _ body: @escaping @Sendable (String) -> Void) {
        let pending = Locked(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            let lines = pending.withLock { buffer -> [String] in
                buffer.append(data)
                var lines: [String] = []
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                if data.isEmpty, !buffer.isEmpty {
                    lines.append(String(decoding: buffer, as: UTF8.self))
                    buffer.removeAll()
                }
                return lines
            }
            lines.forEach(body)
        }
    }

    /// The thread every child is spawned from. `setpriv --pdeathsig` arms the signal for when the *thread* that forked
    /// it ends, not the process: spawned from a dispatch worker that retires later, a child would be killed with it.
    /// This thread lives as long as the process.
    private static let spawner = Spawner()

    private final class Spawner: @unchecked Sendable {
        /// A process to start, a semaphore signalled once it started (or failed to), and the outcome.
        private struct Job: @unchecked Sendable {
            let process: Process
            let done: DispatchSemaphore
            let result: Locked<Result<Int32, any Error>?>
        }

        private let jobs = Condition([Job]())

        init() {
            let jobs = jobs
            let thread = Thread {
                while true {
                    guard let job = jobs.wait(for: { $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    do {
                        try job.process.run()
                        job.result.withLock { $0 = .success(job.process.processIdentifier) }
                    } catch {
                        job.result.withLock { $0 = .failure(error) }
                    }
                    job.done.signal()
                }
            }
            thread.name = "swiftcam.source-spawner"
            thread.start()
        }

        func spawn(_ process: Process) throws -> Int32 {
            let done = DispatchSemaphore(value: 0), result = Locked<Result<Int32, any Error>?>(nil)
            jobs.withLock { $0.append(Job(process: process, done: done, result: result)) }
            done.wait()
            return try result.withLock { $0 }?.get() ?? -1
        }
    }
}
