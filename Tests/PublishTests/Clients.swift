import Foundation
import GStreamer
import Glibc

/// A `gst-launch-1.0` reader in a process of its own that counts decoded frames from its `identity`'s
/// verbose output, with a condition tests wait on.
final class FrameCountingClient: @unchecked Sendable {
    let process = Process()
    let frames = Condition(0)
    /// Monotonic time of the first decoded frame.
    let firstFrame = Locked<Double?>(nil)
    let started = MonotonicClock.now
    let errors = Locked("")
    /// Reader threads (stdout, stderr) that have seen their pipe close.
    private let readersDone = Condition(0)

    /// `source` is the launch text up to the decoder, e.g. `rtspsrc location=… protocols=tcp`.
    convenience init(source: [String]) throws {
        try self.init(command: "/usr/bin/gst-launch-1.0",
                      arguments: ["-v"] + source + ["!", "decodebin", "!", "identity", "name=count", "silent=false", "!", "fakesink", "sync=false"],
                      countingLinesWith: "count: last-message = chain")
    }

    /// Any command that prints one line per frame containing `marker` on stdout; with `totals`, lines that
    /// start with `marker` followed by the number of frames so far (`swiftcam publish-check`'s `frames N`).
    init(command: String, arguments: [String], countingLinesWith marker: String, totals: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        let output = Pipe(), errorPipe = Pipe()
        process.standardOutput = output
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        let frames = frames, firstFrame = firstFrame, errors = errors, readersDone = readersDone
        let reader = Thread {
            var pending = Data()
            let handle = output.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    if totals, line.hasPrefix(marker), let total = line.dropFirst(marker.count).split(separator: " ").first.flatMap({ Int($0) }) {
                        if total > 0 { firstFrame.withLock { $0 = $0 ?? MonotonicClock.now } }
                        frames.withLock { $0 = total }
                    } else if !totals, line.contains(marker) {
                        firstFrame.withLock { $0 = $0 ?? MonotonicClock.now }
                        frames.withLock { $0 += 1 }
                    } else if line.contains("ERROR") {
                        errors.withLock { $0 += line + "\n" }
                    }
                }
            }
            frames.withLock { _ in }
            readersDone.withLock { $0 += 1 }
        }
        reader.start()
        // As it comes, so a client that is still running shows what it has said when a wait for frames gives up.
        let errorReader = Thread {
            let handle = errorPipe.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                errors.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            readersDone.withLock { $0 += 1 }
        }
        errorReader.start()
        try process.run()
    }

    var count: Int { frames.withLock { $0 } }

    /// Waits for the process to exit and for its output to be read to the end (`errors` and `count` are final then;
    /// right after `process.waitUntilExit()` the reader threads may still hold the last lines).
    func waitUntilExit() {
        process.waitUntilExit()
        _ = readersDone.wait(until: MonotonicClock.now + 60) { $0 >= 2 ? true : nil }
    }

    /// Waits until the client decoded `count` frames in all (a safety-net timeout, not a speed limit).
    @discardableResult
    func waitForFrames(_ count: Int, timeout: Double = 60) -> Bool {
        frames.wait(until: MonotonicClock.now + timeout) { $0 >= count ? true : nil } ?? false
    }

    /// Kills the reader (SIGKILL: a child of this process inherits a mask that blocks SIGTERM) and waits for it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// The swiftcam built next to this test bundle (or `SWIFTCAM_BINARY`, e.g. a release build for figures).
let swiftcamBinary: String = {
    if let chosen = ProcessInfo.processInfo.environment["SWIFTCAM_BINARY"], !chosen.isEmpty { return chosen }
    let products = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
    let beside = products.appendingPathComponent("swiftcam").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repository.appendingPathComponent(".build/debug/swiftcam").path
}()

/// `swiftcam publish-check --listen URL`: the stand-in media server a push goes to, in a process of its own.
func listeningStandIn(_ url: String) throws -> FrameCountingClient {
    try FrameCountingClient(command: swiftcamBinary, arguments: ["publish-check", "--listen", url, "--seconds", "600"],
                            countingLinesWith: "frames ", totals: true)
}

/// This process's CPU time in seconds (user + system), from /proc/self/stat.
func processCPUSeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
