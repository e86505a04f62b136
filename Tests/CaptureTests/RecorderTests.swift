import Base
import Config
import Dispatch
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Capture

@Suite("Recorder")
struct RecorderTests {
    /// An encoder slower than the camera has up to 30 frames queued when the recording stops. `record stop` gave
    /// up after 5 s without looking whether they were still being encoded (the soak on loaded cores: "its end was
    /// not written in time"); it now waits as long as the encoder makes progress, and the file gets its end.
    @Test func finishWaitsForAnEncoderThatIsStillWorking() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("slow.mkv").path
        let camera = try Pipeline.parse(
            "videotestsrc is-live=true ! video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! tee name=t ! fakesink sync=false")
        try camera.setState(.playing)
        defer { try? camera.setState(.null) }
        let tee = try #require(camera.element(named: "t"))
        // The session's recording graph with an encoder that takes 200 ms a frame: 5 fps against the camera's 30.
        var graph = GraphDescription()
        graph.chain(
            graph.add(
                "appsrc", name: "record-src",
                [
                    "format": "time", "is-live": true, "max-buffers": 30, "max-bytes": 0,
                    "leaky-type": "downstream"
                ]),
            graph.add("identity", ["sleep-time": 200_000]),
            graph.add("jpegenc"),
            graph.add("matroskamux"),
            graph.add("filesink", name: "record-file", ["location": .string(path), "sync": false, "async": false]))
        let slow = graph
        let recorder = try Recorder(
            pipeline: camera, tee: tee, choice: .record(.mjpeg), path: path, graph: { _ in slow },
            onWarning: { Issue.record("an encoder fell back: \($0)") }
        ) { reason in
            Issue.record("the recording failed: \(reason)")
        }
        // Until 20 frames wait for the encoder (4 s of work, twice the window below), looked at per camera frame: each
        // frame through the tee wakes the wait.
        let cameraFrames = Condition(0)
        let tap = try tee.staticPad("sink")
        let probe = tap.onBuffer { _ in cameraFrames.withLock { $0 += 1 } }
        var queued = 0
        while queued < 20, recorder.framesIn < 600 {
            let seen = cameraFrames.withLock { $0 }
            // A camera that stopped ends the wait (a safety net of 10 s); the expectation below says what it saw.
            guard cameraFrames.wait(until: MonotonicClock.now + 10, for: { $0 > seen ? true : nil }) != nil else { break }
            queued = recorder.framesOut.value - recorder.framesEncoded.value
        }
        tap.removeProbe(probe)
        #expect(queued >= 20, "the encoder kept up: \(recorder.framesEncoded.value) of \(recorder.framesOut.value)")
        #expect(recorder.finish(timeout: 2), "\(recorder.failureReason ?? "its end was not written")")
        // Every frame handed over was encoded: the file decodes to as many.
        let (frames, endedCleanly) = try decodeRecording(path, decoder: "jpegdec")
        #expect(endedCleanly, "the file ends cleanly")
        #expect(frames == recorder.framesEncoded.value, "\(frames) frames decode, \(recorder.framesEncoded.value) were encoded")
    }

    /// Two hosts on one config and folder, `record start` at once: both answered the same file name in the same
    /// second and one file held the frames of both. Names are now created exclusively, so the second gets `-2`.
    @Test func twoSessionsOnOneFolderRecordIntoTwoFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("two-hosts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try ConfigLoader.load(
            data: Data(
                """
                { "sources": [{ "kind": "test" }], "caps": { "width": 64, "height": 48, "framerate": "30/1" }, "preview": "none",
                  "record": { "encoder": "mjpeg", "directory": "\(folder.path)" } }
                """.utf8), file: "two.json")
        let sessions = [CaptureSession(name: "shared", config: config), CaptureSession(name: "shared", config: config)]
        for session in sessions { try session.start() }
        defer { for session in sessions { session.stop() } }
        // Both start together: each waits at the gate until the other is there too.
        let gate = DispatchGroup(), paths = Locked<[String]>([])
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        for session in sessions {
            DispatchQueue.global().async(group: gate) {
                ready.signal()
                go.wait()
                let path = (try? session.startRecording()) ?? "failed"
                paths.withLock { $0.append(path) }
            }
        }
        ready.wait()
        ready.wait()
        go.signal()
        go.signal()
        #expect(gate.wait(timeout: .now() + 60) == .success)
        let started = paths.withLock { $0 }
        #expect(started.count == 2 && !started.contains("failed"), "\(started)")
        #expect(Set(started).count == 2, "both hosts record into \(started)")
        for session in sessions { try session.stopRecording() }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mkv") }
        #expect(files.count == 2, "\(files)")
    }

    /// The name is claimed with O_EXCL, which no existing entry passes, rather than looked up and opened later: a
    /// name held by a dangling link (where another host's file would appear) was chosen, and the recording went
    /// through the link; now the next name is taken. Deterministic, unlike the race above.
    @Test func aNameHeldByAnythingIsNotReused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let elsewhere = folder.appendingPathComponent("elsewhere.mkv").path
        // This second and the next few: the recording starts within them.
        for offset in 0..<5 {
            var now = time(nil) + offset
            var parts = tm()
            localtime_r(&now, &parts)
            let stamp = String(
                format: "%04d%02d%02d-%02d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec)
            symlink(elsewhere, folder.appendingPathComponent("held-\(stamp).mkv").path)
        }
        let config = try ConfigLoader.load(
            data: Data(
                """
                { "sources": [{ "kind": "test" }], "caps": { "width": 64, "height": 48, "framerate": "30/1" }, "preview": "none",
                  "record": { "encoder": "mjpeg", "directory": "\(folder.path)" } }
                """.utf8), file: "held.json")
        let session = CaptureSession(name: "held", config: config)
        try session.start()
        defer { session.stop() }
        let path = try session.startRecording()
        _ = session.waitForFrames(5, timeout: 30)
        try session.stopRecording()
        #expect(path.hasSuffix("-2.mkv"), "\(path)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "the recording went through another entry's name")
    }

    /// A `record start` that fails for a reason other than the disk (an encoder the muxer refuses) left `run` at
    /// exit 0, while a failed still gave 74: every failed start counts and is told as it happens.
    @Test(arguments: ["mjpeg", "vp8"])
    func aFailedRecordStartCountsAndIsTold(encoder: String) throws {
        // Decoded without the validator, which now refuses this pair when the config is read.
        let config = try JSONDecoder().decode(
            PipelineConfig.self,
            from: Data(
                """
                { "sources": [{ "kind": "test" }], "caps": { "width": 64, "height": 48, "framerate": "30/1" }, "preview": "none",
                  "record": { "container": "mp4", "encoder": "\(encoder)", "directory": "\(FileManager.default.temporaryDirectory.path)/refused-\(UUID().uuidString)" } }
                """.utf8))
        let session = CaptureSession(name: "refused", config: config)
        let told = Locked<[String]>([])
        session.onEvent { event in if case let .recordingFailed(reason) = event { told.withLock { $0.append(reason) } } }
        try session.start()
        defer { session.stop() }
        #expect(throws: (any Error).self) { try session.startRecording() }
        #expect(session.failedOutputs == 1)
        #expect(told.withLock { $0.count } == 1, "\(told.withLock { $0 })")
        if let directory = config.record?.directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
