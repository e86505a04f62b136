import Base
import Control
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Capture
@testable import Host

/// A host run in this process: how it ends decides the outcome the executable turns into an exit code.
@Suite struct HostRunTests {
    private static let testSource = #""sources": [{"kind": "test"}], "preview": "none""#

    /// The config's duration ends the run: everything up first, then a clean stop with the final stats.
    @Test func aDurationEndsTheRunCleanly() async throws {
        let run = try HostRun("{\(Self.testSource), \"duration\": 0.3}")
        #expect(await run.ready())
        let outcome = await run.outcome()
        guard case let .stopped(summary) = outcome else { Issue.record("\(outcome.name)"); return }
        #expect(summary.recorded == nil)
        #expect(summary.stats.hasPrefix("configured"), "\(summary.stats)")
        let order = run.events.compactMap { event -> String? in
            switch event {
            case .running: "running"
            case .ready: "ready"
            default: nil
            }
        }
        #expect(order == ["running", "ready"])
    }

    /// A still that fails (its folder cannot be made: the parent is a file) is told when it happens and counted: the
    /// run ends as `outputsFailed`, not as a clean stop, and not as a permission problem.
    @Test func aFailedStillIsCounted() async throws {
        let run = try HostRun("{\(Self.testSource), \"still\": {\"directory\": \"DIR/blocker/sub\"}}")
        try Data("x".utf8).write(to: run.folder.appendingPathComponent("blocker"))
        #expect(await run.ready())
        #expect(!run.host.console.execute(Command.snap(directory: nil)).isOK)
        let told = await run.event { if case .session(.stillFailed) = $0 { true } else { false } }
        #expect(told != nil)
        run.host.requestStop()
        let outcome = await run.outcome()
        guard case let .outputsFailed(count, first, summary) = outcome else { Issue.record("\(outcome.name)"); return }
        #expect(count == 1, "\(summary.stats)")
        #expect(first != .permission)
    }

    /// A recording still running at the stop is finalized by it and named in the summary.
    @Test func aRecordingRunningAtTheStopIsNamed() async throws {
        let run = try HostRun("{\(Self.testSource), \"record\": {\"directory\": \"DIR\"}}")
        #expect(await run.ready())
        let reply = run.host.console.execute(Command.recordStart)
        guard case let .ok(detail) = reply else { Issue.record("\(reply)"); return }
        #expect(run.host.console.execute(Command.wait(frames: 5)).isOK)
        run.host.requestStop()
        let outcome = await run.outcome()
        guard case let .stopped(summary) = outcome else { Issue.record("\(outcome.name)"); return }
        let recorded = try #require(summary.recorded)
        #expect(detail == "recording \(recorded)")
        #expect(FileManager.default.fileExists(atPath: recorded))
    }

    /// A camera that is not there does not start: the session's error, nothing served.
    @Test func aMissingCameraDoesNotStart() async throws {
        let run = try HostRun(#"{"sources": [{"kind": "v4l2", "device": "/dev/video-swiftcam-missing"}], "preview": "none"}"#)
        let outcome = await run.outcome()
        guard case let .notStarted(error) = outcome else { Issue.record("\(outcome.name)"); return }
        #expect("\(error)".contains("/dev/video-swiftcam-missing"), "\(error)")
        #expect([.noInput, .unavailable].contains(FailureKind(of: error)), "\(error)")
        #expect(!run.events.contains { if case .running = $0 { true } else { false } })
    }

    /// A stream that fails for good while running (its caps changed to what the source cannot make) ends the run as
    /// `cameraFailed` with the session's status, whatever else happened.
    @Test func aFailureWhileRunningIsTheCamerasFailure() async throws {
        let run = try HostRun(
            #"{"launch": "videotestsrc name=source0 is-live=true ! capsfilter name=gate caps=video/x-raw,width=64,height=48 ! fakesink"}"#)
        #expect(await run.ready())
        let gate = try #require(run.host.session.graph?.pipeline.element(named: "gate"))
        try gate.set("caps", Caps(parsing: "image/jpeg"))
        let outcome = await run.outcome()
        guard case let .cameraFailed(status, _) = outcome else { Issue.record("\(outcome.name)"); return }
        #expect(status.kind == .software || status.kind == .badData, "\(status)")
        #expect(run.events.contains { if case .session(.failed) = $0 { true } else { false } })
    }

    /// `quit` on the control socket stops the host; the socket is there while it runs and gone after.
    @Test func theControlSocketLivesAndStopsWithTheHost() async throws {
        let run = try HostRun("{\(Self.testSource)}") { $0.controlSocket = true }
        #expect(await run.ready())
        let name = run.host.options.name
        let listening = await run.event { if case .controlSocket = $0 { true } else { false } }
        guard case let .controlSocket(path)? = listening else { Issue.record("no control socket"); return }
        #expect(try ControlSocket.send("stats", to: name, timeout: 10).isOK)
        #expect(try ControlSocket.send("quit", to: name, timeout: 10).isOK)
        let outcome = await run.outcome()
        guard case .stopped = outcome else { Issue.record("\(outcome.name)"); return }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: ControlError.self) { try ControlSocket.send("stats", to: name, timeout: 10) }
    }
}

/// SIGTERM is the process's: one test, alone, so no other host hears it.
@Suite(.serialized) struct HostSignalTests {
    /// SIGTERM asks the host to stop: a clean end, as Ctrl-C and a service manager's stop expect.
    @Test func aSignalStopsTheHost() async throws {
        let run = try HostRun(#"{"sources": [{"kind": "test"}], "preview": "none"}"#) { $0.handlesSignals = true }
        #expect(await run.ready())
        // To the process, as `kill` sends it: a test runs on a thread that blocks signals.
        kill(getpid(), SIGTERM)
        let outcome = await run.outcome()
        guard case .stopped = outcome else { Issue.record("\(outcome.name)"); return }
    }
}
