import Base
import Config
import Foundation
import GStreamer
import Glibc
import TestSupport
import Testing

@testable import Camera
@testable import Capture

/// A webcam that sends only MJPEG (v4l2loopback fed by ffmpeg, offering nothing but `MJPG 1280x720@30`; see
/// scripts/mjpeg-camera.sh) beside vivid, in the VM: every shipped v4l2 config runs on it with only the device
/// overridden, its stills keep the pattern's colours at full range, its recordings decode, `show` and `stats` name the
/// mode and the decoder, `init` writes a config that runs, while vivid keeps running raw.
@Suite(
    "HardwareMJPEGTests", .serialized,
    .enabled(if: Hardware.enabled && Hardware.isRoot && MJPEGCamera.device != nil, "needs the VM's MJPEG camera (scripts/test-hardware.sh)")
)
struct HardwareMJPEGTests {
    init() { GStreamer.initialize() }

    var camera: String { MJPEGCamera.device ?? "" }

    @Test func devicesListsTheMJPEGModeAndMarksIt() throws {
        let result = Live.run([Built.swiftcam, "devices"])
        #expect(result.status == 0, "\(result.err)")
        let block = result.out.components(separatedBy: "\n\n").first { $0.hasPrefix("\(camera):") } ?? ""
        #expect(block.contains("MJPG") && block.contains("1280x720 @ 30 fps"), "\(block)")
        #expect(block.contains("<- live mode (swiftcam init): MJPG 1280x720@30"), "\(block)")
        #expect(!block.contains("YUYV"), "the camera offers MJPEG only: \(block)")
        print("ok swiftcam devices: \(camera) offers MJPG 1280x720@30, marked as the live mode")
    }

    /// `show` and `run` of each shipped v4l2 config with only the device overridden (switch-cameras: its front camera,
    /// vivid staying the back one, switched to before the still); a still decodes at the config's size with the
    /// pattern's colours at full range.
    @Test(arguments: [("preview", 0), ("snapshot", 0), ("switch-cameras", 1)])
    func shippedConfigRunsWithOnlyTheDeviceOverridden(name: String, source: Int) throws {
        let override = "sources.\(source).device=\(camera)"
        let show = Live.run([Built.swiftcam, "show", name, "--set", override])
        #expect(show.status == 0, "\(show.err)")
        let line = show.out.split(separator: "\n").first { $0.hasPrefix("camera \(camera): ") }.map(String.init) ?? ""
        #expect(line.hasPrefix("camera \(camera): MJPG 1280x720@30 → jpegdec → "), "\(show.out)")
        #expect(show.out.contains("image/jpeg") && show.out.contains("jpegdec"), "\(show.out)")
        let directory = "\(Live.scratch)/\(name)-mjpeg"
        let commands = (source == 1 ? "switch\nwait 10\n" : "") + "snap \(directory)\n"
        let result = Live.run(
            [Built.swiftcam, "run", name, "--set", override, "--frames", "90", "--no-control", "--quiet"],
            input: commands)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("camera \(camera): MJPG 1280x720@30 → jpegdec"), "run says the mode: \(result.out)")
        let stats = result.out.split(separator: "\n").last { $0.hasPrefix("stats ") }.map(String.init) ?? ""
        #expect(stats.contains("MJPG 1280x720@30 → jpegdec"), "stats says the mode: \(stats)")
        let still = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("ok \(directory)/") }.map { String($0.dropFirst(3)) },
            "\(result.out) \(result.err)")
        // switch-cameras mirrors its front camera.
        try MJPEGCamera.expectPattern(still, width: 640, height: 360, mirrored: source == 1)
        print("ok \(name) on \(camera): \(line); \(still) decodes with the pattern's colours")
    }

    /// A config asking what the camera cannot do is refused before streaming, in one line naming what it offers.
    @Test func aModeTheCameraLacksIsRefusedNamingWhatItOffers() {
        let result = Live.run([
            Built.swiftcam, "run", "preview", "--set", "sources.0.device=\(camera)", "--set", "caps.framerate=60",
            "--frames", "10", "--no-control", "--quiet"
        ])
        let lines = result.err.split(separator: "\n").map(String.init)
        #expect(result.status == 65, "\(result.err)")
        #expect(
            lines == [
                "swiftcam: status failed: camera \(camera) cannot deliver 640x360 at 60 fps; it offers MJPG 1280x720@30; "
                    + "`swiftcam devices` lists every mode"
            ], "\(lines)")
        let show = Live.run([Built.swiftcam, "show", "preview", "--set", "sources.0.device=\(camera)", "--set", "caps.width=1920"])
        #expect(show.status == 65 && show.err.contains("cannot deliver 1920x360 at 25 fps; it offers MJPG 1280x720@30"), "\(show.err)")
        print("ok a mode the camera lacks: exit \(result.status), \(lines.first ?? "")")
    }

    /// switch-cameras with vivid as the back camera (raw) and the MJPEG camera as the front one.
    @Test func switchCamerasRunsVividRawBesideTheMJPEGCamera() throws {
        let config = try ConfigStore.standard().load(
            "switch-cameras",
            overrides: [
                "sources.0.device=\(Hardware.device)", "sources.1.device=\(camera)",
                "preview=none", "still.directory=\(Live.scratch)/switch-mjpeg"
            ])
        let session = CaptureSession(name: "switch-cameras", config: config)
        try session.start(timeout: 60)
        defer { session.stop() }
        #expect(session.wait(frames: 40) { session.framesFiltered >= 10 })
        let cameras = session.stats.cameras ?? []
        #expect(cameras.count == 2, "\(cameras)")
        let vivid = cameras.first ?? ""
        #expect(
            vivid.hasPrefix("camera \(Hardware.device): ") && !vivid.contains("MJPG") && !vivid.contains("jpegdec"),
            "vivid stays raw: \(cameras)")
        #expect(cameras.last?.hasPrefix("camera \(camera): MJPG 1280x720@30 → jpegdec") == true, "\(cameras)")
        let back = try session.snapshot()
        #expect(try session.switchCamera() == "front")
        let switched = session.framesFiltered
        #expect(session.wait(frames: 40) { session.framesFiltered >= switched + 5 })
        let front = try session.snapshot()
        let backSize = try Live.decodeJPEG(back)
        #expect(backSize.width == 640 && backSize.height == 360)
        try MJPEGCamera.expectPattern(front, width: 640, height: 360, mirrored: true)
        print("ok switch-cameras: vivid \(back) and MJPEG \(front) decode; \(cameras)")
    }

    @Test func recordingFromTheMJPEGCameraDecodes() throws {
        let session = CaptureSession(name: "mjpeg-record", config: try Live.camera(camera, width: 640, height: 360, record: true))
        try session.start(timeout: 60)
        defer { session.stop() }
        let path = try session.startRecording()
        let started = session.framesFiltered
        #expect(session.wait(frames: 90) { session.framesFiltered >= started + 60 })
        _ = try session.stopRecording()
        let decoded = try Live.decodedFrames(path)
        #expect(decoded.error == nil && decoded.frames >= 30, "\(path): \(decoded)")
        print("ok recording from \(camera): \(path) decodes \(decoded.frames) frames")
    }

    /// A hardware JPEG decoder that will not start (a stand-in registered as `v4l2jpegdec`, refusing to pause as a
    /// decoder whose M2M device is missing does) is chosen first, then dropped with a warning naming it; `jpegdec` takes
    /// over and frames flow. The stand-in stays registered in this process, marked failed, so later sessions use jpegdec.
    @Test func aHardwareDecoderThatWillNotStartFallsBackToJpegdec() throws {
        let type = StandInTypes.refusingToPause(parent: "jpegdec", named: "SwiftCamRefusingJPEGDecoder")
        try #require(Element.register(name: "v4l2jpegdec", rank: .none, type: type))
        #expect(JPEGDecoder.choose() == "v4l2jpegdec")
        let session = CaptureSession(name: "mjpeg-decoder", config: try Live.camera(camera, width: 640, height: 360))
        let warnings = Locked<[String]>([])
        session.onEvent { event in
            if case let .warning(text) = event { warnings.withLock { $0.append(text) } }
        }
        try session.start(timeout: 60)
        defer { session.stop() }
        #expect(session.wait(frames: 40) { session.framesFiltered >= 10 })
        let said = warnings.withLock { $0 }
        #expect(
            said.contains { $0.contains("hardware JPEG decoder v4l2jpegdec would not start") && $0.contains("decoding with jpegdec") },
            "\(said)")
        let cameras = session.stats.cameras ?? []
        #expect(cameras.first?.contains("MJPG 1280x720@30 → jpegdec →") == true, "\(cameras)")
        #expect(JPEGDecoder.choose() == "jpegdec", "not tried again in this process")
        print("ok a refusing v4l2jpegdec falls back: \(said.first ?? ""); \(cameras)")
    }

    /// `swiftcam init` on each camera writes a config that validates and runs.
    @Test(arguments: [("mjpeg-camera", true), ("vivid-camera", false)])
    func initWritesAConfigThatRuns(name: String, mjpeg: Bool) throws {
        let device = mjpeg ? camera : Hardware.device
        let store = "\(Live.scratch)/init-\(name)"
        mkdir(store, 0o755)
        let environment = ["env", "SWIFTCAM_PIPELINES=\(store)"]
        let made = Live.run(environment + [Built.swiftcam, "init", name, "--device", device])
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.hasPrefix("wrote \(store)/\(name).json for camera \(device): "), "\(made.out)")
        if mjpeg {
            #expect(made.out.contains("MJPG 1280x720@30 → jpegdec → NV12 1280x720@30"), "\(made.out)")
        } else {
            #expect(!made.out.contains("jpegdec"), "vivid's best live mode is raw: \(made.out)")
        }
        let again = Live.run(environment + [Built.swiftcam, "init", name, "--device", device])
        #expect(again.status == 73 && again.err.contains("exists"), "never over a file: \(again.err)")
        let validated = Live.run([Built.swiftcam, "validate", "\(store)/\(name).json"])
        #expect(validated.status == 0, "\(validated.err)")
        let ran = Live.run(environment + [Built.swiftcam, "run", name, "--frames", "30", "--no-control", "--quiet"])
        #expect(ran.status == 0, "\(ran.err)")
        print("ok swiftcam init \(name) --device \(device): \(made.out.split(separator: "\n").first ?? "") — validates and runs")
    }
}

/// The MJPEG-only camera the VM script made, and the pattern its feeder draws.
enum MJPEGCamera {
    /// Its node, from `SWIFTCAM_MJPEG_DEVICE` (set by scripts/test-hardware.sh in the guest).
    static let device = ProcessInfo.processInfo.environment["SWIFTCAM_MJPEG_DEVICE"].flatMap { $0.isEmpty ? nil : $0 }

    /// The centres of the feeder's eight 320x320 colour blocks as fractions of the frame (x, y), and the RGB each
    /// must decode to at full range (scripts/mjpeg-camera.sh draws them on the 1280x720 picture).
    static let pattern: [(x: Double, y: Double, rgb: (Int, Int, Int))] = [
        (0.125, 0.222, (255, 255, 255)), (0.375, 0.222, (255, 255, 0)), (0.625, 0.222, (0, 255, 255)), (0.875, 0.222, (0, 255, 0)),
        (0.125, 0.667, (255, 0, 255)), (0.375, 0.667, (255, 0, 0)), (0.625, 0.667, (0, 0, 255)), (0.875, 0.667, (0, 0, 0))
    ]

    /// Decodes `path` with PIL (not GStreamer) and checks its size and, at each sample point, the pattern's colour
    /// within 10 levels: a limited-range slip (black 16, white 235) fails it.
    static func expectPattern(
        _ path: String, width: Int, height: Int, mirrored: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let points = pattern.map { sample -> String in
            let x = Int((mirrored ? 1 - sample.x : sample.x) * Double(width)), y = Int(sample.y * Double(height))
            return "(\(min(max(x, 0), width - 1)),\(min(max(y, 0), height - 1)))"
        }
        let script =
            "import sys; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGB'); print(*im.size); "
            + "[print(*im.getpixel(p)) for p in [\(points.joined(separator: ","))]]"
        let output = try Hardware.run(["python3", "-c", script, path])
        let lines = output.split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        #expect(lines.first == [width, height], "\(path) is \(lines.first ?? [])", sourceLocation: sourceLocation)
        for (sample, got) in zip(pattern, lines.dropFirst()) {
            let want = [sample.rgb.0, sample.rgb.1, sample.rgb.2]
            #expect(
                got.count == 3 && zip(got, want).allSatisfy { abs($0 - $1) <= 10 },
                "\(path) at (\(sample.x), \(sample.y)): \(got), expected \(want)", sourceLocation: sourceLocation)
        }
    }
}
