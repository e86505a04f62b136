import Base
import Foundation
import GStreamer
import Glibc
import TestSupport
import Testing

/// A `gst-launch-1.0` reader in a process of its own that counts decoded frames from its `identity`'s
/// verbose output, with a condition tests wait on.
final class FrameCountingClient: @unchecked Sendable {
    private let child: ChildProcess
    let frames = Condition(0)
    /// Monotonic time of the first decoded frame.
    let firstFrame = Locked<Double?>(nil)
    let started = MonotonicClock.now
    /// Its ERROR lines and all of its stderr, as they come, so a client that is still running shows what it has said
    /// when a wait for frames gives up.
    let errors = Locked("")
    /// Its last lines on stdout that counted no frame (the state changes gst-launch prints, what rtspsrc negotiated), for
    /// a wait that gives up: a reader that decoded nothing shows how far it got.
    let lastOutput = Locked([String]())

    /// `source` is the launch text up to the decoder, e.g. `rtspsrc location=… protocols=tcp`.
    convenience init(source: [String]) throws {
        try self.init(
            command: "/usr/bin/gst-launch-1.0",
            arguments: ["-v"] + source + ["!", "decodebin", "!", "identity", "name=count", "silent=false", "!", "fakesink", "sync=false"],
            countingLinesWith: "count: last-message = chain")
    }

    /// Any command that prints one line per frame containing `marker` on stdout; with `totals`, lines that
    /// start with `marker` followed by the number of frames so far (`swiftcam publish-check`'s `frames N`).
    init(command: String, arguments: [String], countingLinesWith marker: String, totals: Bool = false) throws {
        let frames = frames, firstFrame = firstFrame, errors = errors, lastOutput = lastOutput
        child = try ChildProcess(
            [command] + arguments,
            onLine: { stream, line in
                guard stream == .output else {
                    errors.withLock { $0 += line + "\n" }
                    return
                }
                if totals, line.hasPrefix(marker), let total = line.dropFirst(marker.count).split(separator: " ").first.flatMap({ Int($0) })
                {
                    if total > 0 { firstFrame.withLock { $0 = $0 ?? MonotonicClock.now } }
                    frames.withLock { $0 = total }
                } else if !totals, line.contains(marker) {
                    firstFrame.withLock { $0 = $0 ?? MonotonicClock.now }
                    frames.withLock { $0 += 1 }
                } else if line.contains("ERROR") {
                    errors.withLock { $0 += line + "\n" }
                } else {
                    lastOutput.withLock { lines in
                        lines.append(String(line.prefix(300)))
                        if lines.count > 12 { lines.removeFirst() }
                    }
                }
            })
        child.closeInput()
    }

    var count: Int { frames.withLock { $0 } }

    /// Waits for the process to exit and for its output to be read to the end (`errors` and `count` are final then).
    func waitUntilExit() {
        child.waitForExit()
    }

    /// Waits until the client decoded `count` frames in all (a safety-net timeout, not a speed limit).
    @discardableResult
    func waitForFrames(_ count: Int, timeout: Double = 60) -> Bool {
        frames.wait(until: MonotonicClock.now + timeout) { $0 >= count ? true : nil } ?? false
    }

    /// Kills the reader and waits for it.
    func stop() {
        child.kill()
    }
}

/// The swiftcam built next to this test bundle (or `SWIFTCAM_BINARY`, e.g. a release build for figures).
let swiftcamBinary = Built.swiftcam

/// `swiftcam publish-check --listen URL`: the stand-in media server a push goes to, in a process of its own.
func listeningStandIn(_ url: String) throws -> FrameCountingClient {
    try FrameCountingClient(
        command: swiftcamBinary, arguments: ["publish-check", "--listen", url, "--seconds", "600"],
        countingLinesWith: "frames ", totals: true)
}

/// This process's CPU time in seconds (user + system), from /proc/self/stat.
func processCPUSeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
