import Foundation
import Glibc
import TestSupport
import Testing

/// The harness every suite runs its programs with: lines as they come, stdin, signals, and a child that is always
/// reaped. Small shell commands only; no sockets.
@Suite struct ChildProcessTests {
    /// A line waited for comes as the child prints it, before the child ends; a line sent reaches its stdin.
    @Test func linesComeAsPrintedAndStdinReachesTheChild() throws {
        let child = try ChildProcess(["/bin/sh", "-c", "echo ready; read reply; echo \"got $reply\"; read wait || echo closed"])
        #expect(child.line(containing: "ready") == "ready")
        #expect(child.isRunning, "still reading its stdin")
        child.send("hello")
        #expect(child.line(where: { $0.hasPrefix("got ") }) == "got hello")
        child.closeInput()
        #expect(child.line(containing: "closed") == "closed", "the end of its input")
        #expect(child.waitForExit() == .exited(0))
    }

    /// Arguments, environment and folder are the ones given; stderr is its own stream unless merged.
    @Test func argumentsEnvironmentAndFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try ChildProcess.run(
            ["/bin/sh", "-c", "pwd; echo \"$GREETING\"; echo oops >&2; exit 3"],
            environment: ["GREETING": "hi there", "PATH": "/usr/bin:/bin"], directory: folder.path)
        #expect(result.status == 3)
        #expect(result.out == "\(folder.resolvingSymlinksInPath().path)\nhi there\n", "\(result.out)")
        #expect(result.err == "oops\n")
        let merged = try ChildProcess(["/bin/sh", "-c", "echo out; echo err >&2"], errorsToOutput: true)
        merged.waitForExit()
        #expect(merged.lines() == ["out", "err"] && merged.lines(.errors).isEmpty)
    }

    /// A stream that ends without the line ends the wait with nil (the child is over), not with the safety net.
    @Test func aStreamThatEndsWithoutTheLineEndsTheWait() throws {
        let child = try ChildProcess(["/bin/sh", "-c", "echo only"])
        #expect(child.line(containing: "never printed", timeout: 600) == nil)
        #expect(child.lines() == ["only"])
    }

    /// A line that never comes while the child runs on fails the test when the safety net runs out, with what the
    /// child printed.
    @Test func theSafetyNetFailsTheTestWithWhatWasPrinted() throws {
        let child = try ChildProcess(["/bin/sh", "-c", "echo something else; exec sleep 600"])
        withKnownIssue {
            _ = child.line(containing: "never printed", timeout: 1)
        } matching: { issue in
            "\(issue)".contains("something else")
        }
        #expect(child.stop() == 128 + SIGTERM)
    }

    /// SIGTERM reaches the child's default handler even from a thread that blocks it (Foundation's Process left the
    /// child that mask, so a stopped child ran on).
    @Test func stopTerminatesAChildWhateverThisThreadBlocks() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let child = try ChildProcess(["sleep", "600"])
        #expect(child.stop() == 128 + SIGTERM)
        #expect(child.termination == .signalled(SIGTERM))
    }

    /// A child the test lets go of is killed and reaped: nothing outlives the test, not even a zombie.
    @Test func aChildLetGoOfIsKilledAndReaped() throws {
        var pid: Int32 = 0
        do {
            let child = try ChildProcess(["sleep", "600"])
            pid = child.pid
            withExtendedLifetime(child) { #expect(kill(pid, 0) == 0) }
        }
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "process \(pid) is gone")
    }

    /// A program that cannot start is an error naming it, not a child that never says anything.
    @Test func aMissingProgramIsAnError() {
        #expect { try ChildProcess(["/no/such/program"]) } throws: { "\($0)".contains("/no/such/program") }
    }
}
