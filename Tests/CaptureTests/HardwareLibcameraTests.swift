import Foundation
import GStreamer
import Glibc
import TestSupport
import Testing

@testable import Capture

/// libcamera on the kernel's vimc in the VM (scripts/vimc-camera.sh builds it from Debian's kernel source and starts
/// it; Debian's libcamera 0.0.3): `devices` lists `Sensor B` and not vimc's raw nodes, `init` writes a config that runs,
/// a config previews, takes a still with vimc's 75 % colour bars at full range, records a file that decodes, and a
/// crash of the source's process — `kill -SEGV`, or vimc unbound under libcamera — leaves the host running and the
/// recording going on in its next part.
@Suite(
    "HardwareLibcameraTests", .serialized,
    .enabled(if: Hardware.enabled && Hardware.isRoot && VimcCamera.id != nil, "needs the VM's vimc camera (scripts/test-hardware.sh)")
)
struct HardwareLibcameraTests {
    init() { GStreamer.initialize() }

    @Test func devicesListsSensorBAndNotItsRawNodes() throws {
        let result = Live.run([Built.swiftcam, "devices"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("Sensor B (libcamera): platform/vimc.0 Sensor B"), "\(result.out)")
        #expect(result.out.contains("BGR888 (GStreamer RGB): 48x48 to 4096x2160, sizes in multiples of 6"), "\(result.out)")
        #expect(!result.out.contains("driver vimc"), "vimc's nodes are not listed as cameras: \(result.out)")
        #expect(result.out.contains("not cameras by themselves: /dev/video"), "\(result.out)")
        let json = Live.run([Built.swiftcam, "devices", "--json"])
        #expect(json.status == 0 && json.out.contains("\"id\" : \"platform/vimc.0 Sensor B\""), "\(json.out)")
        print("ok swiftcam devices: Sensor B (libcamera), vimc's raw nodes named once, not listed")
    }

    /// A libcamera config through the CLI: preview (headless), a still of the bars at full range, a recording that decodes.
    @Test func aLibcameraConfigPreviewsTakesAStillAndRecords() throws {
        let folder = "\(Live.scratch)/libcamera-run"
        mkdir(folder, 0o755)
        let config = "\(folder)/vimc.json"
        let json = """
            { "description": "vimc through libcamera", "sources": [{ "kind": "libcamera", "camera": "\(VimcCamera.id ?? "")" }],
              "caps": { "width": 640, "height": 360, "framerate": 25, "format": "NV12" }, "preview": "auto",
              "still": { "format": "jpeg", "directory": "\(folder)/captures" },
              "record": { "encoder": "mjpeg", "directory": "\(folder)/recordings" } }
            """
        _ = FileManager.default.createFile(atPath: config, contents: Data(json.utf8))
        let show = Live.run([Built.swiftcam, "show", config])
        #expect(show.status == 0 && show.out.contains("its process: gst-launch-1.0 -f"), "\(show.out) \(show.err)")
        let result = Live.run(
            // `quit` ends the run once the recording is stopped; --frames is only the safety net.
            [Built.swiftcam, "run", config, "--frames", "3000", "--no-control", "--quiet"],
            input: "wait 30\nsnap\nrecord start\nwait 50\nrecord stop\nquit\n")
        #expect(result.status == 0, "\(result.err)")
        let line = "camera Sensor B (libcamera): BGR888 648x360 → crop to 640x360 → NV12 640x360@25"
        #expect(result.out.contains(line), "run says the mode: \(result.out)")
        let still = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("ok \(folder)/captures/") }.map { String($0.dropFirst(3)) },
            "\(result.out) \(result.err)")
        try VimcCamera.expectBars(still, width: 640, height: 360)
        let recorded = try #require(
            result.out.split(separator: "\n").first { $0.hasPrefix("ok recorded ") }.map { String($0.dropFirst("ok recorded ".count)) },
            "\(result.out)")
        let decoded = try decodeRecording(recorded, decoder: "jpegdec")
        #expect(decoded.frames >= 25 && decoded.endedCleanly, "\(recorded): \(decoded)")
        print("ok libcamera config: \(line); \(still) has the bars at full range; \(recorded) decodes \(decoded.frames) frames")
    }

    @Test func initWritesALibcameraConfigThatRuns() throws {
        let store = "\(Live.scratch)/init-libcamera"
        mkdir(store, 0o755)
        let environment = ["env", "SWIFTCAM_PIPELINES=\(store)"]
        // --camera: in the first VM vivid is there too, and a bare `init` takes the first V4L2 camera.
        let made = Live.run(environment + [Built.swiftcam, "init", "vimc-camera", "--camera", VimcCamera.id ?? ""])
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.hasPrefix("wrote \(store)/vimc-camera.json for camera Sensor B (libcamera): BGR888 1920x1080"), "\(made.out)")
        let text = (try? String(contentsOfFile: "\(store)/vimc-camera.json", encoding: .utf8)) ?? ""
        #expect(text.contains(#""kind": "libcamera", "camera": "platform/vimc.0 Sensor B""#), "\(text)")
        let ran = Live.run(environment + [Built.swiftcam, "run", "vimc-camera", "--frames", "15", "--no-control", "--quiet"])
        #expect(ran.status == 0, "\(ran.err)")
        print("ok swiftcam init vimc-camera --camera: \(made.out.split(separator: "\n").first ?? "") — runs")
    }

    /// `kill -SEGV` of the child running libcamera during a recording.
    @Test func aSegfaultOfTheSourceProcessLeavesTheHostRecording() throws {
        try LibcameraCrash.run(
            camera: "Sensor B (libcamera)", width: 648, height: 360, timeout: 120,
            says: ["stopped: its process crashed (SIGSEGV); restarting it"], crash: LibcameraCrash.segfaultSource
        )
    }

    /// vimc unbound under libcamera while it streams, bound again once the session says so. libcamera 0.0.3 reports
    /// nothing (its frames stop, and the stall watchdog restarts the source), or crashes in its own handler.
    @Test func vimcUnboundUnderLibcameraLeavesTheHostRecording() throws {
        try LibcameraCrash.run(
            camera: "Sensor B (libcamera)", width: 648, height: 360, timeout: 120,
            says: [
                // libcamera 0.0.3 sees no error: its frames stop, and the stall watchdog restarts it; or its handler crashes.
                "sent no frame for 5 s; restarting it", "stopped: its process crashed", "went away"
            ]
        ) { session in
            guard VimcCamera.bind(false) else { return false }
            let failed = session.waitForState(timeout: 120) { $0.status != .configured }
            return VimcCamera.bind(true) && failed
        }
    }
}

/// The VM's vimc camera and the picture it sends.
enum VimcCamera {
    /// Its libcamera id, from `SWIFTCAM_VIMC_CAMERA` (set by scripts/test-hardware.sh once `cam -l` lists it).
    static let id = ProcessInfo.processInfo.environment["SWIFTCAM_VIMC_CAMERA"].flatMap { $0.isEmpty ? nil : $0 }

    /// Unbinds (false) or binds (true) the vimc platform device: its nodes go away and come back.
    static func bind(_ bound: Bool) -> Bool {
        let path = "/sys/bus/platform/drivers/vimc/\(bound ? "bind" : "unbind")"
        guard let handle = FileHandle(forWritingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("vimc.0".utf8))) != nil
    }

    /// vimc's sensor draws the 75 % colour bars (v4l2-tpg's default): eight bars of 191 or 0 per channel. Sampled on the
    /// row at 80 % of the height (vimc's upper rows carry other test content), at each bar's centre.
    static let bars: [(Int, Int, Int)] = [
        (191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0), (191, 0, 191), (191, 0, 0), (0, 0, 191), (0, 0, 0)
    ]

    /// Decodes `path` with PIL and checks its size and each bar's colour within 8 levels: a limited-range slip
    /// (191 → 180, 0 → 16) fails it.
    static func expectBars(_ path: String, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let points = (0..<8).map { "(\((2 * $0 + 1) * width / 16),\(height * 4 / 5))" }
        let script =
            "import sys; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGB'); print(*im.size); "
            + "[print(*im.getpixel(p)) for p in [\(points.joined(separator: ","))]]"
        let output = try Hardware.run(["/usr/bin/python3", "-c", script, path])
        let lines = output.split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        #expect(lines.first == [width, height], "\(path) is \(lines.first ?? [])", sourceLocation: sourceLocation)
        for (index, (want, got)) in zip(bars, lines.dropFirst()).enumerated() {
            let wanted = [want.0, want.1, want.2]
            #expect(
                got.count == 3 && zip(got, wanted).allSatisfy { abs($0 - $1) <= 8 }, "\(path) bar \(index): \(got), expected \(wanted)",
                sourceLocation: sourceLocation)
        }
    }
}
