@testable import Capture
import Foundation
import Glibc
import GStreamer
import Testing

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
        let camera = try Pipeline.parse("videotestsrc is-live=true ! video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! tee name=t ! fakesink sync=false")
        try camera.setState(.playing)
        defer { try? camera.setState(.null) }
        let tee = try #require(camera.element(named: "t"))
        // The session's recording graph with an encoder that takes 200 ms a frame: 5 fps against the camera's 30.
        var graph = GraphDescription()
        graph.chain(graph.add("appsrc", name: "record-src", ["format": "time", "is-live": true, "max-buffers": 30, "max-bytes": 0,
                                                              "leaky-type": "downstream"]),
                    graph.add("identity", ["sleep-time": 200_000]),
                    graph.add("jpegenc"),
                    graph.add("matroskamux"),
                    graph.add("filesink", name: "record-file", ["location": .string(path), "sync": false, "async": false]))
        let slow = graph
        let recorder = try Recorder(pipeline: camera, tee: tee, choice: .record(.mjpeg), path: path, graph: { _ in slow },
                                    onWarning: { Issue.record("an encoder fell back: \($0)") }) { reason in
            Issue.record("the recording failed: \(reason)")
        }
        // Until 20 frames wait for the encoder (4 s of work, twice the window below), polled per camera frame.
        var queued = 0
        while queued < 20, recorder.framesIn < 600 {
            usleep(33_000)
            queued = recorder.framesOut.value - recorder.framesEncoded.value
        }
        #expect(queued >= 20, "the encoder kept up: \(recorder.framesEncoded.value) of \(recorder.framesOut.value)")
        #expect(recorder.finish(timeout: 2), "\(recorder.failureReason ?? "its end was not written")")
        // Every frame handed over was encoded: the file decodes to as many.
        let (frames, endedCleanly) = try decodeRecording(path, decoder: "jpegdec")
        #expect(endedCleanly, "the file ends cleanly")
        #expect(frames == recorder.framesEncoded.value, "\(frames) frames decode, \(recorder.framesEncoded.value) were encoded")
    }

    /// A `record start` that fails for a reason other than the disk (an encoder the muxer refuses) left `run` at
    /// exit 0, while a failed still gave 74: every failed start counts and is told as it happens.
    @Test func aFailedRecordStartCountsAndIsTold() throws {
        // Decoded without the validator, which now refuses this pair when the config is read.
        let config = try JSONDecoder().decode(PipelineConfig.self, from: Data("""
            { "sources": [{ "kind": "test" }], "caps": { "width": 64, "height": 48, "framerate": "30/1" }, "preview": "none",
              "record": { "container": "mp4", "encoder": "mjpeg", "directory": "\(FileManager.default.temporaryDirectory.path)/refused-\(UUID().uuidString)" } }
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
