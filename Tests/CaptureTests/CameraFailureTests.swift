import Base
import Camera
import Config
import Dispatch
import Foundation
import GStreamer
import Testing

@testable import Capture

/// GStreamer's words a user must never read in a failure line: its debug text (source files, internal states).
let gstreamerDebugText = [
    "poll error", "gstv4l2src.c", "gstv4l2bufferpool.c", "v4l2_calls.c", "gstbasesrc.c",
    "reason not-negotiated", "Internal data stream error", "streaming stopped", "/GstPipeline:"
]

/// The debug text in `line`, if any.
func debugText(in line: String) -> [String] {
    gstreamerDebugText.filter { line.contains($0) }
}

@Suite struct CameraFailureTests {
    /// One error as GStreamer 1.22's v4l2src posts it (gst-plugins-good `sys/v4l2/`): domain and code, the message,
    /// the debug text, whether the device node is still there, and the sentence a user reads while recovering.
    struct Row: Sendable, CustomStringConvertible {
        var what: String
        var reason: ErrorReason
        var message: String
        var debug: String
        var nodeExists = true
        var sentence: String

        var description: String { what }
    }

    static let device = "/dev/video0"
    static let part2 = "recordings/cam-20260101-120000-part2.mkv"
    static let rows: [Row] = [
        // gstv4l2bufferpool.c gst_v4l2_buffer_pool_poll: select_error. vivid's disconnect, a driver unbind, a fatal
        // streaming error (vb2 queue error) all end here.
        Row(
            what: "poll error, node still there", reason: .resource(.read), message: "Could not read from resource.",
            debug:
                "../sys/v4l2/gstv4l2bufferpool.c(1220): gst_v4l2_buffer_pool_poll (): /GstPipeline:pipeline0/GstV4l2Src:source0:\npoll error 1: No data available (61)",
            sentence:
                "camera /dev/video0 stopped sending frames (unplugged, or a driver error?); waiting for it to come back — recording continues in \(part2)"
        ),
        Row(
            what: "poll error, node gone", reason: .resource(.read), message: "Could not read from resource.",
            debug:
                "../sys/v4l2/gstv4l2bufferpool.c(1220): gst_v4l2_buffer_pool_poll (): /GstPipeline:pipeline0/GstV4l2Src:source0:\npoll error 1: No such device (19)",
            nodeExists: false,
            sentence:
                "camera /dev/video0 went away (unplugged, or its driver was unloaded); waiting for it to come back — recording continues in \(part2)"
        ),
        // gstbasesrc.c gst_base_src_loop: GST_ELEMENT_FLOW_ERROR after the camera could not take the caps asked.
        Row(
            what: "not-negotiated", reason: .stream(.failed, flow: .notNegotiated), message: "Internal data stream error.",
            debug:
                "../libs/gst/base/gstbasesrc.c(3132): gst_base_src_loop (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nstreaming stopped, reason not-negotiated (-4)",
            sentence:
                "camera /dev/video0 cannot deliver the format asked (YUY2 1280x720 at 30 fps); `swiftcam devices` lists the modes it has"),
        // gstv4l2object.c gst_v4l2_object_set_format_full: S_FMT → EBUSY (another process streams from it).
        Row(
            what: "S_FMT busy", reason: .resource(.busy), message: "Device '/dev/video0' is busy",
            debug:
                "../sys/v4l2/gstv4l2object.c(4030): gst_v4l2_object_set_format_full (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nCall to S_FMT failed for YUYV @ 1280x720: Device or resource busy",
            sentence: "camera /dev/video0 is in use by cheese (pid 4242); waiting for it to be free — recording continues in \(part2)"),
        // v4l2_calls.c gst_v4l2_open: not_open, errno EACCES.
        Row(
            what: "open: permission", reason: .resource(.openReadWrite),
            message: "Could not open device '/dev/video0' for reading and writing.",
            debug:
                "../sys/v4l2/v4l2_calls.c(622): gst_v4l2_open (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nsystem error: Permission denied",
            sentence:
                "camera /dev/video0 may not be opened by this user (permission denied); waiting for it to come back — recording continues in \(part2)"
        ),
        // v4l2_calls.c gst_v4l2_open: stat_failed (the node vanished between the preflight and the open).
        Row(
            what: "open: no such device", reason: .resource(.notFound), message: "Cannot identify device '/dev/video0'.",
            debug:
                "../sys/v4l2/v4l2_calls.c(608): gst_v4l2_open (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nsystem error: No such file or directory",
            nodeExists: false,
            sentence:
                "camera /dev/video0 went away (unplugged, or its driver was unloaded); waiting for it to come back — recording continues in \(part2)"
        ),
        // gstv4l2src.c gst_v4l2src_decide_allocation: activate_failed (vivid's inject_vidioc_streamon_error).
        Row(
            what: "buffer pool activation", reason: .resource(.settings), message: "Failed to allocate required memory.",
            debug:
                "../sys/v4l2/gstv4l2src.c(759): gst_v4l2src_decide_allocation (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nBuffer pool activation failed",
            sentence:
                "camera /dev/video0 would not start streaming (its driver refused the buffers); waiting for it to come back — recording continues in \(part2)"
        ),
        // gstv4l2object.c: invalid_dimensions.
        Row(
            what: "cannot capture at", reason: .resource(.settings), message: "Device '/dev/video0' cannot capture at 1280x720",
            debug:
                "../sys/v4l2/gstv4l2object.c(4052): gst_v4l2_object_set_format_full (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nTried to capture at 1280x720, but device returned size 640x480",
            sentence:
                "camera /dev/video0 cannot deliver the format asked (YUY2 1280x720 at 30 fps); `swiftcam devices` lists the modes it has"),
        // gstv4l2src.c gst_v4l2src_create: GST_V4L2_FLOW_LAST_BUFFER.
        Row(
            what: "empty buffer", reason: .resource(.failed),
            message: "Driver returned a buffer with no payload, this most likely indicate a bug in the driver.",
            debug: "../sys/v4l2/gstv4l2src.c(1155): gst_v4l2src_create (): /GstPipeline:pipeline0/GstV4l2Src:source0",
            sentence:
                "camera /dev/video0 failed while streaming (its driver reported an error); waiting for it to come back — recording continues in \(part2)"
        ),
        // gstbasesrc.c: a flow error after a dequeue failed (gstv4l2allocator.c logs why and returns GST_FLOW_ERROR).
        Row(
            what: "flow error", reason: .stream(.failed, flow: .error), message: "Internal data stream error.",
            debug:
                "../libs/gst/base/gstbasesrc.c(3132): gst_base_src_loop (): /GstPipeline:pipeline0/GstV4l2Src:source0:\nstreaming stopped, reason error (-5)",
            sentence:
                "camera /dev/video0 failed while streaming (its driver reported an error); waiting for it to come back — recording continues in \(part2)"
        )
    ]

    static let context = FailureContext(
        config: try! ConfigLoader.load(
            data: Data(
                """
                { "sources": [{ "kind": "v4l2", "device": "/dev/video0", "format": "YUY2" }],
                  "caps": { "width": 1280, "height": 720, "framerate": "30/1" }, "preview": "none" }
                """.utf8), file: "cam.json"))

    static func status(_ row: Row, next: CameraFailure.Next) -> CameraStatus {
        context.status(
            source: "source0", message: row.message, debug: row.debug, reason: row.reason, next: next,
            deviceExists: { _ in row.nodeExists }, holder: { _ in "cheese (pid 4242)" })
    }

    /// Each v4l2src error becomes the camera's sentence: the device, what happened, what SwiftCam does next.
    @Test(arguments: rows)
    func aV4L2ErrorReadsAsASentence(_ row: Row) {
        let failure = Self.status(row, next: .waiting(continuesIn: Self.part2)).failure
        // A camera that cannot deliver the format asked is not waited for: it says so and what to do.
        let sentence = failure?.isRecoverable == false ? Self.status(row, next: .stopping).failure?.description : failure?.description
        #expect(sentence == row.sentence)
    }

    /// No line a user reads about a failure carries GStreamer's debug text: the status (stderr's `status …`, the
    /// page's banner), a failed start, the `stats` line and JSON, and a command refused while the camera is down.
    @Test(arguments: rows)
    func noFailureLineCarriesGStreamerDebugText(_ row: Row) throws {
        for next in [CameraFailure.Next.waiting(continuesIn: Self.part2), .restarting(continuesIn: nil), .stopping] {
            let status = Self.status(row, next: next)
            var stats = SessionStats(
                status: status.name, reason: status.reason, uptime: 1, framesIn: 0, framesOut: 0, fpsIn: 0, fpsOut: 0,
                queueDrops: 0, qosDrops: 0, sourceDrops: 0, filterMeanMs: 0, filterMaxMs: 0, chain: "",
                activeSource: 0, stills: 0)
            stats.recording = nil
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            let json = String(decoding: try encoder.encode(stats), as: UTF8.self)
            for line in ["status \(status)", StartError(status: status).description, stats.line, json] {
                #expect(debugText(in: line).isEmpty, "\(line)")
                #expect(line.contains("camera /dev/video0"), "names the device: \(line)")
            }
        }
    }

    /// An element that is not a camera keeps its name, in words: a flow error says what the return means.
    @Test func otherElementsFailInWords() {
        let stopped = Self.context.status(
            source: "x264enc0", message: "Internal data stream error.",
            debug: "gstbasesrc.c: streaming stopped, reason not-negotiated (-4)",
            reason: .stream(.failed, flow: .notNegotiated), next: .stopping)
        #expect(stopped == .failed(element: "x264enc0", message: "could not agree on a video format with the elements next to it"))
        let encoder = Self.context.status(
            source: "x264enc0", message: "Could not initialize supporting library.", debug: nil,
            reason: ErrorReason(domain: .library, code: 2), next: .stopping)
        #expect(encoder.description == "failed: x264enc0: Could not initialize supporting library.")
    }

    /// A busy camera is its own status, naming the holder; at start it says what to do, and the start fails as
    /// "unavailable".
    @Test func aBusyCameraIsItsOwnStatus() {
        let status = CameraStatus(opening: "/dev/video0", error: .deviceBusy(path: "/dev/video0", holder: "cheese (pid 4242)"))
        #expect(status.name == "busy")
        #expect(status.description == "busy: camera /dev/video0 is in use by cheese (pid 4242); stop that program and start again")
        #expect(StartError(status: status).kind == .unavailable)
        let unnamed = CameraStatus(CameraFailure(device: "/dev/video0", cause: .busy(holder: nil), next: .waiting(continuesIn: nil)))
        #expect(unnamed.description == "busy: camera /dev/video0 is in use by another program; waiting for it to be free")
    }

    /// A stall restarts the camera; the sentence says for how long nothing came.
    @Test func aStallSaysHowLongNothingCame() {
        let failure = CameraFailure(device: "/dev/video0", cause: .stalled(seconds: 5), next: .restarting(continuesIn: "a-part2.mkv"))
        #expect(
            CameraStatus(failure).description
                == "failed: camera /dev/video0 sent no frame for 5 s; restarting it — recording continues in a-part2.mkv")
    }

    /// What a config asks of its camera, in words.
    @Test func theFormatAskedInWords() {
        var source = SourceConfig(kind: .v4l2, device: "/dev/video2")
        #expect(FailureContext.asked(source: source, caps: nil) == "the pipeline's format")
        source.format = "MJPG"
        #expect(FailureContext.rate("15/2") == "7.5" && FailureContext.rate("25/1") == "25" && FailureContext.rate("30000/1001") == "29.97")
        #expect(FailureContext.asked(source: source, caps: nil) == "MJPG")
    }
}

/// Real pipelines that fail: what the session reports carries no GStreamer debug text.
@Suite struct SessionFailureTests {
    /// A graph whose formats cannot agree (a colour JPEG decoded into grey: it links, then fails to negotiate) fails to
    /// start with the element and what happened in words, not "Internal data stream error. (streaming stopped, reason
    /// not-negotiated (-4))" as GStreamer posts it.
    @Test func aRefusedFormatAtStartIsOneSentence() throws {
        let (session, folder) = try scratchSession(
            """
            { "launch": "videotestsrc name=source0 ! video/x-raw,width=64,height=48 ! jpegenc ! jpegdec ! video/x-raw,format=GRAY8 ! fakesink" }
            """, name: "refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try session.start(timeout: 10)
            session.stop()
            Issue.record("a graph that cannot negotiate started")
        } catch let error as StartError {
            let line = "\(error)"
            #expect(debugText(in: line).isEmpty, "\(line)")
            #expect(line == "status failed: source0: could not agree on a video format with the elements next to it", "\(line)")
            #expect(session.stats.line.hasPrefix("failed: source0: could not agree"), "\(session.stats.line)")
        }
    }

    /// A stall is ten frame intervals at the rate the source negotiated, never less than the floor: 5 s at 30 fps,
    /// 10 s at 1 fps; the floor when nothing is negotiated yet.
    @Test(arguments: [("30/1", 5.0), ("1/1", 10.0), ("1/2", 20.0)])
    func theStallLimitFollowsTheFrameRate(rate: String, seconds: Double) throws {
        let pipeline = try Pipeline.parse("videotestsrc name=source0 ! video/x-raw,width=16,height=16,framerate=\(rate) ! fakesink")
        let pad = try #require(try pipeline.element(named: "source0")?.staticPad("src"))
        #expect(StallWatchdog.limit(of: pad, settings: .init()) == 5, "nothing negotiated yet: the floor")
        try pipeline.setState(.paused)
        defer { try? pipeline.setState(.null) }
        #expect(StallWatchdog.limit(of: pad, settings: .init()) == seconds)
    }

    /// The stall watchdog: a source that stops delivering without an error (a live test pattern paused on its own,
    /// as a hung driver) is reported in the camera's words, recovered like a failure, and the recording running
    /// across it continues in the part the sentence named.
    @Test func aSilentSourceIsRestarted() throws {
        let (session, folder) = try scratchSession(
            """
            { "sources": [{ "kind": "test", "pattern": "ball" }],
              "caps": { "width": 64, "height": 48, "framerate": "30/1", "format": "I420" },
              "preview": "none", "record": { "encoder": "mjpeg", "directory": "DIR" } }
            """, name: "stall")
        defer { try? FileManager.default.removeItem(at: folder) }
        session.stallSettings.withLock {
            $0.watchesEverySource = true
            $0.floor = 1
        }
        let failed = DispatchSemaphore(value: 0), recovered = DispatchSemaphore(value: 0)
        let failures = Locked([CameraStatus]())
        session.onEvent { event in
            switch event {
            case let .failed(status):
                failures.withLock { $0.append(status) }
                failed.signal()
            case let .notice(text) where text.hasPrefix("recovered"):
                recovered.signal()
            default: break
            }
        }
        try session.start()
        defer { session.stop() }
        let first = try session.startRecording()
        // Frames for longer than the limit (1 s at 30 fps): a source that delivers is never called stalled.
        #expect(session.waitForFrames(45) >= 45)
        #expect(failures.withLock { $0 }.isEmpty && session.status == .configured)

        let source = try #require(session.graph?.pipeline.element(named: "source0"))
        #expect(source.requestState(.paused))
        #expect(failed.wait(timeout: .now() + 60) == .success, "no stall reported")
        let status = try #require(failures.withLock { $0.first })
        let part2 = SessionRecordings.nextPart(after: first)
        #expect(
            status.description
                == "failed: camera source0 (test pattern) sent no frame for 1 s; restarting it — recording continues in \(part2)")
        #expect(recovered.wait(timeout: .now() + 60) == .success, "no recovery after the stall")
        #expect(session.waitForFrames(15) >= 15, "frames flow again")
        #expect(session.status == .configured && session.recoveries == 1)
        #expect(session.recordingPath == part2)
        // The metrics count the restart and the part the stall finished, and keep the replaced graph's filtered frames.
        let metrics = session.metrics
        #expect(metrics.restarts == 1 && metrics.storage.recordingsWritten == 1 && metrics.storage.recordingBytes > 0)
        #expect(metrics.filterFrames >= 45 + 15)
        #expect(failures.withLock { $0.count } == 1, "one stall, one report: \(failures.withLock { $0 })")
    }
}
