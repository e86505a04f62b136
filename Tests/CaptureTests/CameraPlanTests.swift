import Base
import Config
import Foundation
import GStreamer
import Testing

@testable import Camera
@testable import Capture

/// How a camera's chosen mode becomes the config's frames: the camera's own caps, the decoder, rate, crop and
/// scale, and the sentence `run`, `show` and `stats` say it in. (Played on real drivers in the VM suites.)
@Suite struct CameraPlanTests {
    /// A camera offering `modes` as `FOURCC WxH@FPS` (one size and rate each).
    static func camera(_ modes: [String]) -> [PixelFormatDescription] {
        var byFormat: [String: [FrameSizeRates]] = [:]
        for mode in modes {
            let parts = mode.split(whereSeparator: { " x@".contains($0) }).map(String.init)
            let size = FrameSize.discrete(width: UInt32(parts[1])!, height: UInt32(parts[2])!)
            byFormat[parts[0], default: []].append(
                FrameSizeRates(size: size, rates: .discrete([FrameInterval(framesPerSecond: Double(parts[3])!)])))
        }
        return byFormat.keys.sorted().map { fourcc in
            PixelFormatDescription(
                fourcc: fourcc, code: 0, name: fourcc, compressed: fourcc == "MJPG", emulated: false,
                sizes: byFormat[fourcc]!)
        }
    }

    static let mjpegOnly = camera(["MJPG 1280x720@30"])
    static let webcam = camera(["YUYV 640x480@30", "YUYV 1280x720@10", "MJPG 1280x720@30", "MJPG 640x360@30"])

    static func plan(_ formats: [PixelFormatDescription], caps: CapsConfig?, format: String? = nil) throws -> CameraPlan {
        var source = SourceConfig(kind: .v4l2, device: "/dev/video2")
        source.format = format
        return try CameraPlan.make(source: source, caps: caps, formats: formats, decoder: "jpegdec")
    }

    @Test func anMJPEGOnlyCameraIsDecodedRateConvertedAndScaled() throws {
        let plan = try Self.plan(Self.mjpegOnly, caps: CapsConfig(width: 640, height: 360, framerate: "25/1"))
        #expect(plan.summary == "camera /dev/video2: MJPG 1280x720@30 → jpegdec → 30 → 25 fps → scale → I420 640x360@25")
        #expect(plan.decoder == "jpegdec" && plan.crop == nil && plan.scales && plan.changesRate)
        var graph = GraphDescription()
        let chain = plan.addElements(named: "source0", source: SourceConfig(kind: .v4l2, device: "/dev/video2"), to: &graph)
        #expect(chain.count == 6)
        let text = graph.launchText
        #expect(text.contains("v4l2src name=source0 device=/dev/video2"))
        #expect(text.contains("image/jpeg, width=(int)1280, height=(int)720, framerate=(fraction)30/1"))
        #expect(text.contains("jpegdec name=source0-decoder"))
        #expect(!text.contains("jpegparse"), "jpegdec parses for itself")
        #expect(text.contains("videorate") && text.contains("videoscale") && text.contains("videoconvert"))
    }

    @Test func aModeUsedAsItIsSaysSo() throws {
        let plan = try Self.plan(Self.webcam, caps: CapsConfig(width: 640, height: 480, framerate: "30/1", format: "YUY2"))
        #expect(plan.summary == "camera /dev/video2: YUYV 640x480@30, as the camera sends it")
    }

    @Test func aHardwareDecoderGetsParsedFrames() throws {
        var source = SourceConfig(kind: .v4l2, device: "/dev/video2")
        source.format = "MJPG"
        let plan = try CameraPlan.make(source: source, caps: nil, formats: Self.mjpegOnly, decoder: "v4l2jpegdec")
        #expect(plan.summary == "camera /dev/video2: MJPG 1280x720@30 → v4l2jpegdec → I420 1280x720@30")
        var graph = GraphDescription()
        _ = plan.addElements(named: "source0", source: source, to: &graph)
        #expect(graph.launchText.contains("jpegparse\nv4l2jpegdec name=source0-decoder"), "parsed before the decoder")
    }

    @Test func rawWinsWhenItReachesAndTheReasonNamesTheRawLimitWhenItDoesNot() throws {
        let preview = try Self.plan(Self.webcam, caps: CapsConfig(width: 640, height: 360, framerate: "25/1", format: "NV12"))
        // 4:3 raw is cut to 16:9 before scaling: 60 rows off the top and the bottom.
        #expect(preview.summary == "camera /dev/video2: YUYV 640x480@30 → 30 → 25 fps → crop to 640x360 → NV12 640x360@25")
        #expect(preview.crop == CameraPlan.Crop(left: 0, right: 0, top: 60, bottom: 60) && !preview.scales && preview.decoder == nil)
        let hd = try Self.plan(Self.webcam, caps: CapsConfig(width: 1280, height: 720, framerate: "30", format: "NV12"))
        #expect(
            hd.summary
                == "camera /dev/video2: MJPG 1280x720@30 → jpegdec → NV12 1280x720@30 (raw YUYV reaches only 10 fps at 1280x720 here)")
        var graph = GraphDescription()
        _ = preview.addElements(named: "source0", source: SourceConfig(kind: .v4l2, device: "/dev/video2"), to: &graph)
        #expect(graph.launchText.contains("video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, framerate=(fraction)30/1"))
        #expect(graph.launchText.contains("videocrop left=0 right=0 top=60 bottom=60"))
    }

    @Test func aConfigTheCameraCannotServeIsRefusedNamingWhatItCan() {
        #expect {
            try Self.plan(Self.mjpegOnly, caps: CapsConfig(width: 1920, height: 1080, framerate: "30"))
        } throws: { error in
            "\(error)"
                == "camera /dev/video2 cannot deliver 1920x1080 at 30 fps; it offers MJPG 1280x720@30 (`swiftcam devices` lists every mode)."
        }
        #expect(throws: ModeChoiceError.self) { try Self.plan(Self.mjpegOnly, caps: nil, format: "YUYV") }
    }

    /// A camera none of whose modes serves the config fails the start as bad data, in one sentence naming what it
    /// offers, with nothing of GStreamer's in it.
    @Test func noModeIsACameraFailureThatNamesTheOffer() throws {
        let error = try #require(throws: ModeChoiceError.self) {
            try Self.plan(Self.mjpegOnly, caps: CapsConfig(width: 1920, height: 1080, framerate: "60"))
        }
        let status = CameraStatus(CameraFailure(device: error.path, cause: .noMode(error), next: .stopping))
        #expect(
            status.description == "failed: camera /dev/video2 cannot deliver 1920x1080 at 60 fps; it offers MJPG 1280x720@30; "
                + "`swiftcam devices` lists every mode")
        #expect(StartError(status: status).kind == .badData)
        #expect(status.failure?.isRecoverable == false)
    }

    @Test(
        arguments: [
            ((640, 480), (640, 360), CameraPlan.Crop(left: 0, right: 0, top: 60, bottom: 60)),
            ((1280, 720), (640, 480), CameraPlan.Crop(left: 160, right: 160, top: 0, bottom: 0)),
            ((1280, 720), (640, 360), nil), ((641, 480), (640, 480), nil)
        ] as [((Int, Int), (Int, Int), CameraPlan.Crop?)])
    func cropsKeepTheCentreAndEvenEdges(from: (Int, Int), to: (Int, Int), expected: CameraPlan.Crop?) {
        #expect(CameraPlan.crop(from: from, to: to) == expected)
    }

    @Test func cameraFormatsAreCameraOrGStreamerNamesAndControlsAreNamed() throws {
        func load(_ source: String) throws -> PipelineConfig {
            try ConfigLoader.load(data: Data(#"{"sources":[\#(source)]}"#.utf8), file: "t.json")
        }
        #expect(try load(#"{"kind":"v4l2","device":"/dev/video0","format":"MJPG"}"#).sources?.first?.format == "MJPG")
        #expect(try load(#"{"kind":"v4l2","device":"/dev/video0","format":"YUY2"}"#).sources?.first?.format == "YUY2")
        #expect(
            try load(#"{"kind":"v4l2","device":"/dev/video0","controls":{"brightness":120}}"#).sources?.first?.controls == [
                "brightness": 120
            ])
        for (source, path) in [
            (#"{"kind":"v4l2","device":"/dev/video0","format":"H264"}"#, "sources[0].format"),
            (#"{"kind":"v4l2","device":"/dev/video0","controls":{"Bright ness":1}}"#, "sources[0].controls.Bright ness"),
            (#"{"kind":"v4l2","device":"/dev/video0","controls":{"brightness":1.5}}"#, "sources[0].controls.brightness"),
            (#"{"kind":"test","controls":{"brightness":1}}"#, "sources[0].controls")
        ] {
            #expect { try load(source) } throws: { error in
                (error as? ConfigError)?.path == path
            }
        }
    }

    @Test func theFirstConfigValidatesAndKeepsTheControls() throws {
        let plan = try CameraPlan.make(
            source: SourceConfig(kind: .v4l2, device: "/dev/video2"),
            caps: CapsConfig(width: 1280, height: 720, framerate: "30/1", format: "NV12"),
            formats: Self.mjpegOnly, decoder: "jpegdec")
        let text = FirstConfig.render(
            name: "desk", card: "Loopback \"MJPEG\" cam", plan: plan,
            controls: ["brightness": 128, "power_line_frequency": 1])
        let config = try ConfigLoader.load(data: Data(text.utf8), file: "desk.json")
        let source = try #require(config.sources?.first)
        #expect(source.device == "/dev/video2" && source.label == "Loopback \"MJPEG\" cam")
        #expect(source.controls == ["brightness": 128, "power_line_frequency": 1])
        #expect(config.caps == CapsConfig(width: 1280, height: 720, framerate: "30/1", format: "NV12"))
        #expect(config.still != nil && config.record != nil)
    }

    @Test func aFirstConfigIsNeverWrittenOverAFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("init-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try CameraPlan.make(
            source: SourceConfig(kind: .v4l2, device: "/dev/video2"), caps: nil,
            formats: Self.mjpegOnly, decoder: "jpegdec")
        let first = FirstConfig(
            name: "desk", device: "/dev/video2", plan: plan,
            text: FirstConfig.render(name: "desk", card: "cam", plan: plan, controls: [:]))
        let store = ConfigStore(directory: folder.path)
        #expect(try first.write(to: store) == store.path(of: "desk"))
        try Data("{}".utf8).write(to: folder.appendingPathComponent("other.json"))
        let other = FirstConfig(name: "other", device: first.device, plan: plan, text: first.text)
        #expect(throws: FirstConfig.Failure.exists(path: store.path(of: "other"))) { try other.write(to: store) }
        #expect(try String(contentsOf: folder.appendingPathComponent("other.json"), encoding: .utf8) == "{}")
        #expect(throws: FirstConfig.Failure.badName("Desk Cam")) { try FirstConfig.make(name: "Desk Cam", device: nil) }
    }
}
