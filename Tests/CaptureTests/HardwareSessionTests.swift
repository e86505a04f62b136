import Base
import Config
import Control
import Foundation
import GStreamer
import Glibc
import TestSupport
import Testing

@testable import Camera
@testable import Capture

/// Helpers for driving sessions and the `swiftcam` binary inside the vivid VM.
enum Live {
    /// A config from JSON text.
    static func config(_ json: String) throws -> PipelineConfig {
        try JSONDecoder().decode(PipelineConfig.self, from: Data(json.utf8))
    }

    /// A headless one-camera config at 320×180@25 (vivid's smallest webcam size).
    static func camera(
        _ device: String = Hardware.device, format: String? = nil, width: Int = 320, height: Int = 180,
        filter: String = "", record: Bool = false
    ) throws -> PipelineConfig {
        let formatKey = format.map { ", \"format\": \"\($0)\"" } ?? ""
        let recordKey = record ? ", \"record\": { \"encoder\": \"mjpeg\", \"directory\": \"\(scratch)/recordings\" }" : ""
        return try config(
            """
            { "sources": [{ "kind": "v4l2", "device": "\(device)"\(formatKey) }],
              "caps": { "width": \(width), "height": \(height), "framerate": "25/1"\(formatKey) },
              "filter": "\(filter)", "preview": "none",
              "still": { "format": "jpeg", "directory": "\(scratch)/captures" }\(recordKey) }
            """)
    }

    /// A writable folder in the guest (its filesystem is a throw-away overlay).
    static let scratch: String = {
        let path = "/tmp/swiftcam-hw-\(getpid())"
        mkdir(path, 0o777)
        return path
    }()

    /// Decodes a JPEG fully; returns its size.
    static func decodeJPEG(_ path: String) throws -> (width: Int, height: Int) {
        let pipeline = try Pipeline.parse(
            "filesrc location=\"\(path)\" ! jpegdec ! videoconvert ! video/x-raw,format=RGBA ! appsink name=out sync=false")
        guard let sink = pipeline.element(named: "out", as: AppSink.self) else { throw HardwareTestError.commandFailed("appsink", 0) }
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }
        guard let sample = sink.pullSample(timeout: 20), let info = sample.videoInfo else {
            throw HardwareTestError.commandFailed("decode \(path)", 0)
        }
        return (info.width, info.height)
    }

    /// Frames a recording decodes to (demuxed and decoded to the end).
    static func decodedFrames(_ path: String) throws -> (frames: Int, error: String?) {
        let pipeline = try Pipeline.parse("filesrc location=\"\(path)\" ! matroskademux ! jpegdec ! appsink name=out sync=false")
        guard let sink = pipeline.element(named: "out", as: AppSink.self) else { throw HardwareTestError.commandFailed("appsink", 0) }
        let bus = pipeline.bus
        pipeline.requestState(.playing)
        var frames = 0
        while sink.pullSample(timeout: 10) != nil { frames += 1 }
        let error = bus.pop(timeout: 0, types: .error).map(\.description)
        try? pipeline.setState(.null)
        return (frames, error)
    }

    /// Runs a command to its end with `input` on its stdin, returning exit status, stdout and stderr (a spawn that
    /// fails is status -1 with the reason). The safety net is long: the VM emulates its CPU.
    static func run(_ arguments: [String], input: String = "") -> (status: Int32, out: String, err: String) {
        do {
            return try ChildProcess.run(arguments, input: input, timeout: 600)
        } catch {
            return (-1, "", "\(error)")
        }
    }

    /// This process's descriptors open on /dev/video* (diagnostics for a driver that cannot be unloaded).
    static func openVideoFDs() -> [String] {
        (0..<256).compactMap { fd -> String? in
            var buffer = [CChar](repeating: 0, count: 256)
            let count = readlink("/proc/self/fd/\(fd)", &buffer, 255)
            guard count > 0 else { return nil }
            let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard target.hasPrefix("/dev/video") else { return nil }
            let info = (try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)) ?? ""
            let flags =
                info.split(separator: "\n").first { $0.hasPrefix("flags:") }.map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                ?? "?"
            return "\(fd) → \(target) flags \(flags)"
        }
    }

    /// Sets a vivid control with v4l2-ctl.
    static func setCtrl(_ assignment: String, device: String = Hardware.device) {
        _ = run(["v4l2-ctl", "-d", device, "--set-ctrl", assignment])
    }
}

@Suite(
    "HardwareSessionTests", .serialized, .enabled(if: Hardware.enabled && Hardware.isRoot, "needs the vivid VM (scripts/test-hardware.sh)"))
struct HardwareSessionTests {
    init() {
        GStreamer.initialize()
    }

    /// v4l2src → swiftfilter in YUYV, NV12 and an RGB format, at two sizes each; a still from each decodes.
    @Test(arguments: ["YUY2", "NV12", "BGRx"], [(320, 180), (640, 360)])
    func capturesThroughSwiftfilter(format: String, size: (Int, Int)) throws {
        let session = CaptureSession(
            name: "formats", config: try Live.camera(format: format, width: size.0, height: size.1, filter: "invert"))
        try session.start(timeout: 30)
        defer { session.stop() }
        #expect(session.wait(frames: 10) { session.framesFiltered >= 10 })
        let frame = try #require(session.graph?.stillFrames?.latestFrame)
        let info = try #require(frame.videoInfo)
        #expect(info.formatName == format && info.width == size.0 && info.height == size.1)
        let stats = session.stats
        #expect(stats.chain == "invert" && stats.framesOut >= 10)
        let still = try session.snapshot()
        let decoded = try Live.decodeJPEG(still)
        #expect(decoded.width == size.0 && decoded.height == size.1)
        print("ok \(format) \(size.0)x\(size.1): \(stats.framesOut) frames through swiftfilter, still \(still) decodes")
    }

    /// `swiftcam run preview --set sources.0.device=/dev/video0` runs sixty frames and exits 0 on `quit`; a `snap` from it
    /// decodes. (With `--frames 60` instead of `quit`, a loaded machine could end the run before the snap was answered.)
    @Test func previewRunsSixtyFramesAndItsSnapshotDecodes() throws {
        let directory = "\(Live.scratch)/preview-snaps"
        let result = Live.run(
            [
                Built.swiftcam, "run", "preview", "--set", "sources.0.device=\(Hardware.device)",
                "--no-control", "--quiet"
            ], input: "wait 60\nsnap \(directory)\nquit\n")
        #expect(result.status == 0, "\(result.err)")
        let line = try #require(result.out.split(separator: "\n").first { $0.hasPrefix("ok \(directory)/") }, "\(result.out) \(result.err)")
        let path = String(line.dropFirst(3))
        let decoded = try Live.decodeJPEG(path)
        #expect(decoded.width == 640 && decoded.height == 360)
        let stats = try #require(result.out.split(separator: "\n").last { $0.hasPrefix("stats ") })
        print("ok swiftcam run preview --frames 60: exit 0, \(path) decodes \(decoded.width)x\(decoded.height); \(stats)")
    }

    /// `swiftcam controls DEVICE --json` lists what `v4l2-ctl --list-ctrls` lists, with equal ranges and values.
    @Test func controlsJSONEqualsV4l2Ctl() throws {
        let result = Live.run([Built.swiftcam, "controls", Hardware.device, "--json"])
        #expect(result.status == 0, "\(result.err)")
        let controls = try JSONDecoder().decode([ControlReport].self, from: Data(result.out.utf8))
        let listed = try Hardware.listCtrls()
        #expect(controls.map(\.name) == listed.map(\.name))
        for (control, entry) in zip(controls, listed) {
            #expect(control.id == entry.id && control.type.description == entry.type, "\(entry.name)")
            func same(_ key: String, _ value: String) {
                if let printed = entry.fields[key] { #expect(printed == value, "\(entry.name) \(key)") }
            }
            if control.type == .bitmask {
                same("max", String(format: "0x%08x", UInt32(truncatingIfNeeded: control.maximum)))
            } else {
                same("min", String(control.minimum))
                same("max", String(control.maximum))
                same("default", String(control.defaultValue))
                same("step", String(control.step))
            }
            guard !control.flags.contains("volatile"), let value = control.value else { continue }
            if case let .integer(mask) = value, control.type == .bitmask {
                same("value", String(Int32(bitPattern: UInt32(truncatingIfNeeded: mask))))
            } else {
                same("value", value.description)
            }
        }
        print("ok swiftcam controls \(Hardware.device) --json: \(controls.count) controls equal to v4l2-ctl --list-ctrls")
        let text = Live.run([Built.swiftcam, "devices"])
        #expect(text.status == 0 && text.out.contains(Hardware.device) && text.out.contains("YUYV") && text.out.contains("brightness"))
        let json = Live.run([Built.swiftcam, "devices", "--json"])
        let reports = try JSONDecoder().decode([DeviceReport].self, from: Data(json.out.utf8))
        #expect(reports.contains { $0.path == Hardware.device && !$0.formats.isEmpty && !$0.controls.isEmpty })
        print("ok swiftcam devices [--json]: \(reports.map(\.path))")
    }

    /// `ctl` on a running session: colour and flip land in the driver; torch, zoom and focus answer in one line.
    @Test func ctlCommandsReachTheDriver() throws {
        let runtime = "\(Live.scratch)/runtime"
        mkdir(runtime, 0o700)
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        let session = try ChildProcess([Built.swiftcam, "run", "preview", "--set", "caps.width=320", "--set", "caps.height=180", "--quiet"])
        let socket = "\(runtime)/swiftcam/preview.sock"
        try #require(session.line(timeout: 600) { $0 == "control socket \(socket)" } != nil, "\(session.transcript)")
        #expect((try? ControlSocket.send("help", socket: socket))?.isOK == true)
        defer {
            for assignment in ["brightness=128", "contrast=128", "saturation=128", "hue=0", "horizontal_flip=0"] {
                Live.setCtrl(assignment)
            }
        }
        func ctl(_ words: String...) -> (status: Int32, line: String) {
            let result = Live.run([Built.swiftcam, "ctl", "preview"] + words)
            let line = (result.out + result.err).trimmingCharacters(in: .whitespacesAndNewlines)
            print("swiftcam ctl preview \(words.joined(separator: " ")) → \(line)")
            #expect(!line.contains("\n"), "one line")
            return (result.status, line)
        }
        for (name, value) in [("brightness", "40"), ("contrast", "200"), ("saturation", "17"), ("hue", "-100")] {
            let reply = ctl(name, value)
            #expect(reply.status == 0 && reply.line.hasPrefix("ok \(name) \(value) (hardware"))
            #expect(try Hardware.getCtrl(name) == value)
        }
        #expect(ctl("mirror", "on").line == "ok mirror on (hardware horizontal_flip)")
        #expect(try Hardware.getCtrl("horizontal_flip") == "1")
        #expect(ctl("mirror", "off").status == 0)
        #expect(try Hardware.getCtrl("horizontal_flip") == "0")
        let torch = ctl("torch", "on")
        #expect(torch.status != 0 && torch.line.contains("torch is not supported") && torch.line.contains("no torch"))
        #expect(ctl("zoom", "2").line == "ok zoom 2.0 (digital)")
        #expect(ctl("zoom", "40").line == "ok zoom 16.0 (digital) (clamped from 40)")
        let focus = ctl("focus", "0.5", "0.5")
        #expect(focus.status != 0 && focus.line.contains("focus is not supported"))
        #expect(ctl("wb", "5000").line == "ok wb 5000K (digital)")
        #expect(ctl("exposure", "ev=1").line == "ok exposure ev=1.0 (digital)")
        #expect(ctl("quit").status == 0)
        #expect(session.waitForExit(timeout: 600).status == 0, "\(session.text(.errors))")
    }

    /// `exposure 0.5 0.5` on a dark scene raises the region's luma to about mid-grey within 30 frames.
    @Test func spotMeteringBrightensADarkScene() throws {
        // A dark scene: vivid's grey ramp (mid-grey in the centre) with the brightness turned down.
        // No on-screen text: its black boxes would cover the centre at this size.
        Live.setCtrl("test_pattern=20")
        Live.setCtrl("brightness=50")
        Live.setCtrl("osd_text_mode=2")
        defer { for assignment in ["test_pattern=0", "brightness=128", "osd_text_mode=0"] { Live.setCtrl(assignment) } }
        let session = CaptureSession(name: "metering", config: try Live.camera(format: "NV12"))
        try session.start(timeout: 30)
        defer { session.stop() }
        #expect(session.wait(frames: 10) { session.framesFiltered >= 10 })
        let before = try #require(session.meteredLuma(x: 0.5, y: 0.5))
        print("  luma before: \(before)")
        #expect(before < 70, "the scene is dark")
        let start = session.framesFiltered
        let reply = try session.exposure(x: 0.5, y: 0.5)
        print("ok", reply)
        var reached: Int?
        _ = session.wait(frames: 30) {
            if let luma = session.meteredLuma(x: 0.5, y: 0.5), abs(luma - CaptureSession.meteringTarget) <= 20 {
                reached = session.framesFiltered - start
                return true
            }
            return false
        }
        let after = session.meteredLuma(x: 0.5, y: 0.5) ?? 0
        print(
            "ok exposure 0.5 0.5: mean luma \(Int(before)) → \(Int(after)) (target \(Int(CaptureSession.meteringTarget))) after \(reached.map(String.init) ?? "more than 30") frames; chain \(session.stats.chain)"
        )
        for (x, y) in [(0.1, 0.1), (0.5, 0.5), (0.9, 0.9), (0.3, 0.7)] {
            print("  luma at \(x),\(y): \(session.meteredLuma(x: x, y: y) ?? -1)")
        }
        #expect(after > before + 30)
        let frames = try #require(reached, "mid-grey within 30 frames")
        #expect(frames <= 30)
    }

    /// `inject_fatal_streaming_error`: failed in the camera's words, then recovery.
    @Test func recoversFromAFatalStreamingError() throws {
        let session = CaptureSession(name: "fatal", config: try Live.camera())
        let failures = Condition([CameraStatus]())
        session.onEvent { event in if case let .failed(status) = event { failures.withLock { $0.append(status) } } }
        try session.start(timeout: 30)
        defer { session.stop() }
        #expect(session.wait(frames: 40) { session.framesFiltered >= 20 })
        Live.setCtrl("inject_fatal_streaming_error=1")
        #expect(failures.wait(until: MonotonicClock.now + 30) { $0.isEmpty ? nil : true } == true)
        let failure = try #require(failures.withLock { $0.first })
        print("ok inject_fatal_streaming_error → status \(failure)")
        // The camera's sentence: the device, what happened, what comes next; none of GStreamer's debug text.
        if case let .cameraFailed(camera) = failure {
            #expect(camera.device == Hardware.device && camera.cause == .stoppedSending, "\(camera)")
            #expect(camera.next == .waiting(continuesIn: nil))
            #expect(debugText(in: "\(failure)").isEmpty, "\(failure)")
        } else {
            Issue.record("expected a camera failure, got \(failure)")
        }
        #expect(session.waitForState(timeout: 60) { $0.status == .configured && $0.carried.recoveries == 1 })
        let resumed = session.framesFiltered
        #expect(session.wait(frames: 60) { session.framesFiltered >= resumed + 25 })
        print("ok recovered: \(session.stats.line)")
    }
}

/// Run in a process of its own (the hardware script does): unloading the driver needs every handle on it closed,
/// and sessions stopped earlier in a process can leave one behind.
@Suite(
    "HardwareRecoveryTests", .serialized, .enabled(if: Hardware.enabled && Hardware.isRoot, "needs the vivid VM (scripts/test-hardware.sh)")
)
struct HardwareRecoveryTests {
    init() { GStreamer.initialize() }

    /// `disconnect` then `modprobe -r vivid; modprobe vivid` mid-run: failed, then recovered; the recording
    /// across it is complete in two playable parts.
    @Test func recoversFromDisconnectAndDriverReload() throws {
        print("  fds before:", Live.openVideoFDs())
        let session = CaptureSession(name: "unplug", config: try Live.camera(record: true))
        let events = Condition([String]())
        session.onEvent { event in
            print("  event:", event)
            events.withLock { $0.append("\(event)") }
        }
        try session.start(timeout: 30)
        defer { session.stop() }
        let first = try session.startRecording()
        #expect(session.wait(frames: 40) { session.framesFiltered >= 25 })
        Live.setCtrl("disconnect=1")
        #expect(session.waitForState(timeout: 30) { $0.status.name == "failed" })
        print("ok after disconnect: status \(session.status)")
        // The session lets go of the device while it waits for it to settle (it says "recovering: waiting for" once it
        // has): the module can go then. Tried again at each later step of the session's recovery, for 30 s at most.
        #expect(events.wait(until: MonotonicClock.now + 30) { $0.contains { $0.contains("recovering: waiting for") } ? true : nil } == true)
        var unloaded = Live.run(["modprobe", "-r", "vivid"]).status == 0
        let deadline = MonotonicClock.now + 30
        while !unloaded && MonotonicClock.now < deadline {
            var woken = false
            _ = session.state.wait(until: deadline) { _ in
                defer { woken = true }; return woken ? true : nil
            }
            unloaded = Live.run(["modprobe", "-r", "vivid"]).status == 0
        }
        if !unloaded { print("  fds:", Live.openVideoFDs()) }
        #expect(unloaded)
        #expect(Live.run(["modprobe", "vivid"]).status == 0)
        #expect(session.waitForState(timeout: 60) { $0.status == .configured && $0.carried.recoveries == 1 })
        let resumed = session.framesFiltered
        #expect(session.wait(frames: 60) { session.framesFiltered >= resumed + 25 })
        let second = try #require(session.recordingPath)
        #expect(second != first && second.contains("-part2."))
        _ = try session.stopRecording()
        print("ok recovered after modprobe: \(session.stats.line)")
        for line in events.withLock({ $0 }) { print("  event:", line) }
        for part in [first, second] {
            let decoded = try Live.decodedFrames(part)
            print("ok \(part): \(decoded.frames) frames decode\(decoded.error.map { ", error \($0)" } ?? "")")
            #expect(decoded.frames >= 10 && decoded.error == nil)
        }
    }
}

/// Two vivid cameras (`VIVID_MODPROBE="vivid n_devs=2 node_types=0x1,0x1"`): the shipped switch-cameras config.
@Suite(
    "HardwareTwoCameraTests", .serialized,
    .enabled(if: Hardware.enabled && Hardware.isRoot && CameraDevice.list().count >= 2, "needs the vivid VM with n_devs=2"))
struct HardwareTwoCameraTests {
    init() { GStreamer.initialize() }

    @Test func switchCamerasSwitchesLiveAndBothStillsDecode() throws {
        let config = try ConfigStore.standard().load(
            "switch-cameras",
            overrides: [
                "preview=none", "still.directory=\(Live.scratch)/switch"
            ])
        let session = CaptureSession(name: "switch-cameras", config: config)
        try session.start(timeout: 30)
        defer { session.stop() }
        #expect(session.wait(frames: 40) { session.framesFiltered >= 10 })
        let back = try session.snapshot()
        let label = try session.switchCamera()
        #expect(label == "front")
        let switched = session.framesFiltered
        #expect(session.wait(frames: 40) { session.framesFiltered >= switched + 5 })
        let front = try session.snapshot()
        for still in [back, front] {
            let decoded = try Live.decodeJPEG(still)
            #expect(decoded.width == 640 && decoded.height == 360)
        }
        #expect(session.stats.activeSource == 1)
        print("ok switch-cameras on \(CameraDevice.list().map(\.path)): \(back) and \(front) decode; \(session.stats.line)")
    }

    /// `swiftcam show NAME`'s gst-launch line for each shipped camera config, with `-e` and 10 buffers on every
    /// source, plays to EOS through `/bin/sh` and the real `gst-launch-1.0` on the two cameras (on a host without them
    /// `ShowLineTests` can only see the line fail on opening the device).
    @Test(arguments: ["preview", "snapshot", "switch-cameras"])
    func showLinePlaysOnTheCameras(name: String) throws {
        let devices = try #require(try ConfigStore.standard().load(name).sources).compactMap(\.device)
        #expect(devices.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "the VM has \(devices)")
        let show = Live.run([Built.swiftcam, "show", name])
        #expect(show.status == 0, "\(show.err)")
        let lines = show.out.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("gst-launch-1.0") }, "\(show.out)")
        let command = lines[start..<(lines[start...].firstIndex { $0.isEmpty } ?? lines.endIndex)].joined(separator: "\n")
        let limited = command.replacingOccurrences(of: "gst-launch-1.0 ", with: "gst-launch-1.0 -e ", options: .anchored)
            .replacingOccurrences(of: " v4l2src ", with: " v4l2src num-buffers=10 ")
        #expect(limited.components(separatedBy: "num-buffers=10").count - 1 == devices.count, "\(limited)")
        let products = URL(fileURLWithPath: Built.swiftcam).deletingLastPathComponent().path
        let result = Live.run(["env", "GST_PLUGIN_PATH=\(products)", "/bin/sh", "-c", limited])
        #expect(result.status == 0 && result.out.contains("Got EOS from element"), "\(limited)\n\(result.out)\n\(result.err)")
        print("ok show \(name): its line played to EOS on \(devices)")
    }
}

/// Run as nobody without groups by the hardware script: a session on the camera is `unauthorized` with the fix;
/// a config nobody may read exits 77.
@Suite("HardwarePermissionCLITests", .enabled(if: Hardware.enabled && !Hardware.isRoot, "needs the vivid VM, run as a non-root user"))
struct HardwarePermissionCLITests {
    @Test func runOutsideGroupVideoIsUnauthorizedWithTheFix() {
        let result = Live.run([Built.swiftcam, "run", "preview", "--frames", "5", "--no-control", "--quiet"])
        print(
            "ok swiftcam run preview as uid \(getuid()) → exit \(result.status): \(result.err.trimmingCharacters(in: .whitespacesAndNewlines))"
        )
        #expect(result.status == 77)
        #expect(result.err.contains("status unauthorized") && result.err.contains("usermod -aG video"))
        let devices = Live.run([Built.swiftcam, "controls", Hardware.device])
        #expect(devices.status == 77 && devices.err.contains("usermod -aG video"))
    }

    /// A config the user may not read is a permission failure (77, not 65 "bad data") with one line naming the
    /// file, from every command that reads one. Only a non-root user meets it: root reads a mode-000 file.
    @Test(arguments: [["show"], ["validate"], ["run", "--frames", "5", "--no-control", "--quiet"]])
    func unreadableConfigExits77WithOneLine(command: [String]) throws {
        let path = "\(Live.scratch)/unreadable-\(command[0]).json"
        let text = #"{ "sources": [{ "kind": "test" }], "caps": { "width": 320, "height": 180 }, "preview": "none" }"#
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o000]))
        defer { unlink(path) }
        #expect(access(path, R_OK) != 0, "the test user can read a mode-000 file: it proves nothing")
        let result = Live.run([Built.swiftcam, command[0], path] + command.dropFirst())
        let lines = result.err.split(separator: "\n")
        print(
            "ok swiftcam \(command[0]) on a mode-000 config as uid \(getuid()) → exit \(result.status): \(result.err.trimmingCharacters(in: .whitespacesAndNewlines))"
        )
        #expect(result.status == 77, "\(command[0]): \(result.err)")
        #expect(lines.count == 1 && result.err.contains(path) && result.err.contains("permission denied"), "\(command[0]): \(result.err)")
        #expect(result.out.isEmpty, "\(command[0]) printed \(result.out)")
    }
}
