import Config
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Camera
@testable import Capture

/// libcamera sources without a camera: what `cam` prints read into cameras, the mode chosen on vimc's steps, the
/// child's and the host's graphs, validation's one-line errors, and what a child's end means. (Run on vimc in the VM by
/// `HardwareLibcameraTests`.)
@Suite struct LibcameraTests {
    /// `cam -l` and `cam -c 1 -I` on vimc in the VM (Debian's libcamera 0.0.3), log lines included, sizes shortened.
    static let list = """
        [0:00:21.357452115] [150] \u{1B}[1;32m INFO \u{1B}[1;37mCamera \u{1B}[1;34mcamera_manager.cpp:299 \u{1B}[0mlibcamera v0.0.3
        Available cameras:
        1: 'Sensor B' (platform/vimc.0 Sensor B)
        """
    static let info = """
        Using camera platform/vimc.0 Sensor B as cam0
        0: 1920x1080-BGR888
         * Pixelformat: BGR888 (48x48)-(4096x2160)/(+1,+1)
          - 160x120
          - 640x360
          - 640x480
          - 1920x1080
         * Pixelformat: RGB888 (48x48)-(4096x2160)/(+1,+1)
          - 160x120
          - 1920x1080
        """
    static var vimc: LibcameraCamera {
        let stream = LibcameraListing.stream(fromInfo: info)
        return LibcameraCamera(
            id: "platform/vimc.0 Sensor B", name: "Sensor B", defaultSize: stream.defaultSize, defaultFormat: stream.defaultFormat,
            formats: stream.formats)
    }

    static func plan(_ caps: CapsConfig?, format: String? = nil, camera: LibcameraCamera = vimc) throws -> LibcameraPlan {
        var source = SourceConfig(kind: .libcamera)
        source.format = format
        return try LibcameraPlan.make(source: source, caps: caps, camera: camera, socketPath: "/tmp/test.sock")
    }

    @Test func camListsTheCamerasAndSkipsTheLog() {
        let cameras = LibcameraListing.cameras(fromList: Self.list)
        #expect(cameras.map(\.id) == ["platform/vimc.0 Sensor B"] && cameras.map(\.name) == ["Sensor B"])
        let pi = LibcameraListing.cameras(fromList: "Available cameras:\n1: 'imx219' (/base/soc/i2c0mux/i2c@1/imx219@10)\n2: x\n")
        #expect(pi.map(\.id) == ["/base/soc/i2c0mux/i2c@1/imx219@10"] && pi.map(\.name) == ["imx219"])
        #expect(LibcameraListing.cameras(fromList: "Available cameras:\n").isEmpty)
    }

    @Test func camInfoGivesTheStreamsFormatsAndSizes() {
        let camera = Self.vimc
        #expect(camera.defaultSize == .init(width: 1920, height: 1080) && camera.defaultFormat == "BGR888")
        #expect(camera.formats.map(\.pixelFormat) == ["BGR888", "RGB888"])
        #expect(camera.formats.first?.minimum == .init(width: 48, height: 48))
        #expect(camera.formats.first?.maximum == .init(width: 4096, height: 2160))
        #expect(camera.formats.first?.sizes.count == 4 && camera.formats.last?.sizes.count == 2)
        #expect(camera.sizeStep == 6, "vimc takes multiples of 6")
        let empty = LibcameraListing.stream(fromInfo: "")
        #expect(empty.defaultSize == nil && empty.formats.isEmpty)
    }

    @Test func vimcGetsTheAskedSizeOnItsStepsThenCropped() throws {
        // 640 is no multiple of 6, and 24-bit rows must be whole 4-byte words: 648 (a multiple of 12), cut to 640.
        let plan = try Self.plan(CapsConfig(width: 640, height: 360, framerate: "25/1", format: "NV12"))
        #expect(plan.mode == .init(width: 648, height: 360) && plan.streamFormat == "BGR888" && plan.streamCaps == "RGB")
        #expect(plan.crop == CameraPlan.Crop(left: 4, right: 4, top: 0, bottom: 0) && !plan.scales)
        #expect(
            plan.summary
                == "camera Sensor B (libcamera): BGR888 648x360 → crop to 640x360 → NV12 640x360@25, in a child process (a crash in libcamera restarts it)"
        )
        let fourThree = try Self.plan(CapsConfig(width: 640, height: 480))
        #expect(fourThree.mode == .init(width: 648, height: 480), "640x480 is refused by vimc; 648x480 is not")
        let full = try Self.plan(CapsConfig(width: 1920, height: 1080))
        #expect(full.mode == .init(width: 1920, height: 1080) && full.crop == nil && !full.scales && full.format == "RGB")
    }

    @Test func withoutCapsTheCamerasDefaultSize() throws {
        let plan = try Self.plan(nil)
        #expect(plan.mode == .init(width: 1920, height: 1080) && plan.width == 1920 && plan.rate == nil)
        #expect(try Self.plan(nil, format: "BGR").streamFormat == "RGB888", "GStreamer's name picks libcamera's format")
    }

    @Test func whatTheCameraCannotDoIsRefusedNamingWhatItCan() {
        #expect {
            try Self.plan(CapsConfig(width: 8000, height: 6000))
        } throws: { error in
            "\(error)" == "camera Sensor B (libcamera) cannot deliver 8000x6000: it offers BGR888 from 48x48 to 4096x2160 "
                + "(`swiftcam devices` lists every mode)."
        }
        #expect {
            try Self.plan(nil, format: "NV12")
        } throws: { error in "\(error)".contains("it has no format NV12; it offers BGR888, RGB888") }
        let bayer = LibcameraCamera(
            id: "x", name: "x", defaultSize: nil, defaultFormat: nil,
            formats: [.init(pixelFormat: "SRGGB10", minimum: .init(width: 1, height: 1), maximum: .init(width: 9, height: 9), sizes: [])])
        #expect { try Self.plan(nil, camera: bayer) } throws: { "\($0)".contains("no format GStreamer takes raw (SRGGB10)") }
    }

    @Test func theChildSendsTheConfigsFramesAndTheHostStampsThem() throws {
        let plan = try Self.plan(CapsConfig(width: 640, height: 360, framerate: "25/1", format: "NV12"))
        let child = plan.child.arguments.joined(separator: " ")
        #expect(child.hasPrefix("libcamerasrc name=camera camera-name="), "\(child)")
        #expect(child.contains("format=(string)RGB, width=(int)648, height=(int)360"))
        #expect(child.contains("videocrop left=4 right=4 top=0 bottom=0") && !child.contains("videoscale"))
        #expect(child.contains("shmsink name=to-host socket-path=/tmp/test.sock") && child.contains("wait-for-connection=false"))
        var graph = GraphDescription()
        _ = plan.child.addHostElements(named: "source0", to: &graph)
        let host = graph.launchText
        #expect(host.contains("shmsrc name=source0 socket-path=/tmp/test.sock is-live=true do-timestamp=true"), "\(host)")
        #expect(host.contains("format=(string)NV12, width=(int)640, height=(int)360, framerate=(fraction)0/1"))
        #expect(host.contains("videorate"))
        // The child's command line parses back to the same graph, the camera's id with its spaces whole.
        guard Element.factoryExists("libcamerasrc") else { return }
        let parsed = try Pipeline.parse(plan.child.arguments.joined(separator: " "))
        #expect(try parsed.element(named: "camera")?.get("camera-name", as: String.self) == "platform/vimc.0 Sensor B")
        #expect(parsed.element(named: "to-host") != nil)
    }

    @Test(arguments: [
        (#"{"kind": "libcamera", "camera": ""}"#, "sources[0].camera", "a libcamera camera id as `cam -l`"),
        (#"{"kind": "libcamera", "device": "/dev/video0"}"#, "sources[0].device", "a libcamera source names its camera with \"camera\""),
        (#"{"kind": "libcamera", "controls": {"brightness": 3}}"#, "sources[0].controls", "libcamerasrc 0.0.3 sets no camera controls"),
        (#"{"kind": "libcamera", "format": "XYZ"}"#, "sources[0].format", "unknown libcamera format \"XYZ\""),
        (#"{"kind": "v4l2", "device": "/dev/video0", "camera": "a"}"#, "sources[0].camera", "only libcamera sources take \"camera\""),
        (#"{"kind": "test", "camera": "a"}"#, "sources[0].camera", "only libcamera sources take \"camera\""),
        (#"{"kind": "launch"}"#, "sources[0].launch", "a launch source needs \"launch\""),
        (#"{"kind": "launch", "launch": "nosuchelement"}"#, "sources[0].launch", "nosuchelement"),
        (#"{"kind": "test", "launch": "videotestsrc"}"#, "sources[0].launch", "only launch sources take \"launch\""),
        (#"{"kind": "launch", "launch": "videotestsrc"}"#, "caps", "give caps.width and caps.height")
    ])
    func aBadLibcameraSourceIsOneLineNamingTheKey(source: String, key: String, reason: String) {
        let json = #"{"sources": [\#(source)]}"#
        #expect {
            _ = try ConfigLoader.load(data: Data(json.utf8), file: "lc.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains(key) && text.contains(reason) && !text.contains("\n")
        }
    }

    @Test func aGoodLibcameraSourceValidates() throws {
        let json = #"{"sources": [{"kind": "libcamera", "camera": "platform/vimc.0 Sensor B", "format": "BGR888"}]}"#
        let config = try ConfigLoader.load(data: Data(json.utf8), file: "lc.json")
        #expect(config.sources?.first?.kind == .libcamera && config.sources?.first?.camera == "platform/vimc.0 Sensor B")
        _ = try ConfigLoader.load(data: Data(#"{"sources": [{"kind": "libcamera"}]}"#.utf8), file: "lc.json")
    }

    @Test func aLaunchSourcesTextBecomesTheChildsWords() throws {
        #expect(
            ChildSource.words(#"rtspsrc location="rtsp://a b/c" latency=0 ! decodebin"#)
                == ["rtspsrc", #"location="rtsp://a b/c""#, "latency=0", "!", "decodebin"])
        let child = ChildSource.launch("videotestsrc  pattern=ball", index: 1, caps: CapsConfig(width: 320, height: 180), socketPath: "/s")
        #expect(child.label == "source1 (launch)" && child.format == "I420" && child.rate == nil)
        #expect(Array(child.arguments.prefix(6)) == ["videotestsrc", "pattern=ball", "!", "videoconvert", "!", "videoscale"])
        _ = try Pipeline.parse(child.arguments.joined(separator: " "))
    }

    @Test func howAChildEndedSaysWhatHappenedToTheCamera() {
        let crash = SourceProcess.Ending(signal: SIGSEGV, status: SIGSEGV, error: nil, debug: nil)
        #expect(crash.cause(asked: "x") == .childEnded("crashed (SIGSEGV)"))
        let gone = SourceProcess.Ending(
            signal: nil, status: 1, error: "Could not find any supported camera on this system.", debug: "cameras() is empty")
        #expect(gone.cause(asked: "x") == .gone)
        let refused = SourceProcess.Ending(
            signal: nil, status: 1, error: "Internal data stream error.", debug: "streaming stopped, reason not-negotiated (-4)")
        #expect(refused.cause(asked: "640x480") == .refusedFormat(asked: "640x480"))
        let failure = CameraFailure(
            device: "Sensor B (libcamera)", cause: crash.cause(asked: ""), next: .restarting(continuesIn: "a-part2.mkv"))
        #expect(
            failure.description
                == "camera Sensor B (libcamera) stopped: its process crashed (SIGSEGV); restarting it — recording continues in a-part2.mkv"
        )
        #expect(failure.isRecoverable && CameraStatus(failure).name == "failed")
    }

    /// Crash isolation without a camera: a child playing `videotestsrc ! shmsink` is killed with SIGSEGV; the host (this
    /// process) reads how it ended.
    @Test func aChildKilledBySIGSEGVIsReadAsACrash() throws {
        var graph = GraphDescription()
        let socket = "\(NSTemporaryDirectory())/swiftcam-test-\(getpid()).sock"
        defer { unlink(socket) }
        graph.chain(
            graph.add("videotestsrc", ["is-live": true]),
            graph.add("shmsink", ["socket-path": .string(socket), "wait-for-connection": false, "sync": false]))
        let process = try SourceProcess(label: "test (libcamera)", arguments: graph.launchLines.flatMap { $0 })
        defer { process.stop() }
        #expect(process.waitUntilPlaying(timeout: 60), "the child's graph plays")
        #expect(process.ending(timeout: 0) == nil)
        kill(process.pid, SIGSEGV)
        let ending = process.ending(timeout: 60)
        #expect(ending?.signal == SIGSEGV && ending?.description == "crashed (SIGSEGV)", "\(String(describing: ending))")
    }
}
