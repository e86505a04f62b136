import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// End-to-end runs of the built `swiftcam` binary, as a user runs it.
@Suite("swiftcam CLI", .serialized)
struct CLITests {
    @Test func helpVersionAndUsageErrors() throws {
        let help = try SwiftcamRun().run(["--help"])
        #expect(help.status == 0 && help.out.contains("run") && help.out.contains("ctl"))
        for command in ["list", "show", "validate", "run", "ctl", "token", "devices", "encoders", "filters", "gallery"] {
            let result = try SwiftcamRun().run([command, "--help"])
            #expect(result.status == 0 && result.out.hasPrefix("usage: swiftcam \(command)"), "\(command) --help")
        }
        // The one version, written in SwiftCamVersion.h (the plugin and the package carry it too).
        let header = try String(
            contentsOf: Built.repository.appendingPathComponent("Sources/CFilterPlugin/include/SwiftCamVersion.h"),
            encoding: .utf8)
        let written = try #require(header.split(separator: "\n").first { $0.hasPrefix("#define SWIFTCAM_VERSION ") })
            .split(separator: "\"").dropFirst().first
        let version = try SwiftcamRun().run(["--version"])
        #expect(version.out.hasPrefix("swiftcam \(try #require(written)) (") && version.out.contains("GStreamer 1."))
        let bad = try SwiftcamRun().run(["frobnicate"])
        #expect(bad.status == 64 && bad.err.split(separator: "\n").count == 1)
        let missing = try SwiftcamRun().run(["run", "no-such-config"])
        #expect(missing.status == 66 && missing.err.contains("no config named"))
    }

    /// `swiftcam encoders` lists every encoder SwiftCam tries with whether this machine has it, and the choices: on
    /// this machine (no hardware encoder) the live stream gets the first software encoder installed. `devices` points
    /// to it. (The choice among hardware encoders is tested in-process with stand-ins: EncoderStandInTests.)
    @Test func encodersListsTheCandidatesAndTheChoice() throws {
        let result = try SwiftcamRun().run(["encoders"])
        #expect(result.status == 0, "\(result.err)")
        for element in ["v4l2h264enc", "vah264enc", "vaapih264enc", "nvh264enc", "x264enc", "openh264enc", "vp8enc", "jpegenc"] {
            #expect(result.out.contains("  \(element) "), "\(element) is not listed: \(result.out)")
        }
        let expected = ["x264enc", "openh264enc", "vp8enc"].first { Self.installed($0) }
        #expect(result.out.contains("  live: \(expected ?? "none installed")"), "\(result.out)")
        #expect(result.out.contains("  record.encoder=mjpeg: jpegenc"), "\(result.out)")
        let json = try SwiftcamRun().run(["encoders", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let encoders = try #require(object["encoders"] as? [[String: Any]])
        #expect(encoders.first?["element"] as? String == "v4l2h264enc")
        #expect(encoders.first { $0["element"] as? String == "x264enc" }?["installed"] as? Bool == Self.installed("x264enc"))
        let devices = try SwiftcamRun().run(["devices"])
        #expect(devices.out.contains("'swiftcam encoders' lists them all"), "\(devices.out)")
        let extra = try SwiftcamRun().run(["encoders", "x264enc"])
        #expect(extra.status == 64 && extra.err.contains("encoders takes no arguments"), "\(extra.err)")
    }

    /// Whether gst-inspect-1.0 finds `element` (the machine's own answer, not ours).
    private static func installed(_ element: String) -> Bool {
        (try? ChildProcess.run(["gst-inspect-1.0", "--exists", element]).status) == 0
    }

    /// One mapping from failure to exit code, whichever command meets it; every failure is one line.
    @Test(
        arguments: [
            (["show", "no-such-config"], 66, "no config named"),
            (["validate", "/no/such/file.json"], 66, "no such file"),
            (["run", "no-such-config"], 66, "no config named"),
            (["validate", "/"], 65, "is a directory"),
            (["show", "/tmp"], 65, "is a directory"),
            // The options the user typed are named as typed (not "pipelines/demo.json: duration: …"), and bounded: 1e20
            // once passed `validate` and trapped in `run` (SIGILL, exit 132).
            (["run", "demo", "--duration", "0"], 64, "--duration: 0 is not"),
            (["run", "demo", "--duration", "-1"], 64, "--duration: -1 is not"),
            (["run", "demo", "--duration", "nan"], 64, "--duration: nan is not"),
            (["run", "demo", "--duration", "inf"], 64, "--duration: inf is not"),
            (["run", "demo", "--duration", "1e20"], 64, "--duration: 1e20 is not a number of seconds more than 0 and at most 1000000000"),
            (["run", "demo", "--frames", "0"], 64, "--frames: 0 is not"),
            (["run", "demo", "--frames", "-1"], 64, "--frames: -1 is not"),
            (["run", "demo", "--set", "duration=-1"], 65, "duration"),
            (["run", "demo", "--set", "duration=1e308"], 65, "demo.json: duration: must be a number of seconds more than 0 and at most"),
            (
                ["publish-check", "rtsp://127.0.0.1:8554/x", "--seconds", "1e30"], 64,
                "--seconds takes a number of seconds more than 0 and at most"
            ),
            (["run", "preview"], 69, "unconfigured"),
            (["controls", "/dev/no-such-video"], 66, "No camera at /dev/no-such-video"),
            (["frobnicate"], 64, "unknown command"),
            (["run"], 64, "one config name"),
            (["show", "switch", "--dot", "/no/such/dir/x.dot"], 73, "/no/such/dir/x.dot: No such file or directory"),
            // Command-line values are usage errors (64), not the config's (65), whatever they stand for.
            (["run", "demo", "--rtsp", "-1"], 64, "--rtsp takes [ADDR:]PORT"),
            (["run", "demo", "--rtsp", "70000"], 64, "--rtsp takes [ADDR:]PORT"),
            (["run", "demo", "--rtsp", ":8554"], 64, "--rtsp takes [ADDR:]PORT"),
            (["run", "demo", "--rtsp", "127.0.0.1:8554:1"], 64, "--rtsp takes [ADDR:]PORT"),
            (["run", "demo", "--http", ""], 64, "--http takes [ADDR:]PORT"),
            (["run", "demo", "--metrics", "example.com:9464"], 64, "--metrics takes [ADDR:]PORT"),
            (["run", "demo", "--metrics", ""], 64, "--metrics takes [ADDR:]PORT"),
            (["publish-check", "foo"], 64, "is not a URL"),
            (["publish-check", "--listen", "http://127.0.0.1:8700/cam"], 64, "--listen takes an rtsp:// or srt:// URL"),
            (["publish-check", "--listen", "rtsp://example.com:8700/cam"], 64, "needs an IP address")
        ] as [([String], Int32, String)])
    func exitCodes(arguments: [String], status: Int32, mentions: String) throws {
        let result = try SwiftcamRun().run(arguments, timeout: 60)
        #expect(result.status == status, "\(arguments): \(result.err)")
        #expect(result.err.contains(mentions), "\(arguments): \(result.err)")
        let lines = result.err.split(separator: "\n")
        #expect(lines.count == 1 || (status == 64 && lines.count == 2), "\(arguments): \(result.err)")
    }

    @Test func previewWithoutCameraIsUnconfiguredNamingTheDevice() throws {
        let result = try SwiftcamRun().run(["run", "preview"], timeout: 30)
        #expect(result.status == 69, "unconfigured is 'unavailable'")
        #expect(result.err.contains("unconfigured") && result.err.contains("/dev/video0"))
        #expect(result.err.contains("swiftcam devices"))
    }

    @Test func validateAcceptsShippedAndRejectsBroken() throws {
        let shipped = try SwiftcamRun().run(["validate"])
        #expect(shipped.status == 0)
        #expect(shipped.out.split(separator: "\n").count >= 7)
        let broken = Built.repository.appendingPathComponent("Tests/CaptureTests/BrokenConfigs/unknown-key.json").path
        let result = try SwiftcamRun().run(["validate", broken])
        #expect(result.status == 65 && result.err.contains("filtre") && result.err.contains("unknown key"))
    }

    @Test func listShowFiltersGallery() throws {
        let list = try SwiftcamRun().run(["list"])
        #expect(list.out.contains("demo") && list.out.contains("switch-cameras"))
        let show = try SwiftcamRun().run(["show", "switch"])
        #expect(show.out.contains("input-selector") && show.out.contains("swiftfilter name=filter"))
        let filters = try SwiftcamRun().run(["filters"])
        #expect(filters.out.contains("sepia") && filters.out.contains("intensity="))
        let gallery = try SwiftcamRun().run(["gallery", "--json"])
        #expect(gallery.status == 0 && gallery.out.hasPrefix("["))
    }

    /// `validate` said "ok" of a config whose page listens beyond this machine, which `run` then refused without a token:
    /// it still validates (a token comes from the command line) and says what `run` will need.
    @Test func validateSaysWhatRunWillNeed() throws {
        let run = try SwiftcamRun()
        let file = run.directory.appendingPathComponent("open.json")
        try Data(#"{"sources": [{"kind": "test"}], "preview": "none", "http": "0.0.0.0:8080"}"#.utf8).write(to: file)
        let result = try run.run(["validate", file.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(
            result.out.contains(
                "(note: \"http\": \"0.0.0.0:8080\" serves beyond this machine, so run needs --token TOKEN or --token generate)"),
            "\(result.out)")
        let refused = try run.run(["run", file.path, "--no-control"])
        #expect(refused.status == 64 && refused.err.contains("needs a token"), "\(refused.err)")
    }

    /// `list` called a valid config without a description "(invalid: run 'swiftcam validate')", while `validate` said ok.
    @Test func listTellsAConfigWithoutADescriptionFromAnInvalidOne() throws {
        let run = try SwiftcamRun()
        let folder = run.directory.appendingPathComponent("pipelines")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"sources": [{"kind": "test"}], "preview": "none"}"#.utf8).write(to: folder.appendingPathComponent("plain.json"))
        try Data(#"{"sources": [{"kind": "tset"}]}"#.utf8).write(to: folder.appendingPathComponent("broken.json"))
        run.extraEnvironment["SWIFTCAM_PIPELINES"] = folder.path
        let validate = try run.run(["validate", folder.appendingPathComponent("plain.json").path])
        #expect(validate.status == 0, "\(validate.err)")
        let list = try run.run(["list"])
        let lines = list.out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines == ["broken (invalid: run 'swiftcam validate')", "plain (no description)"], "\(list.out)")
        let json = try run.run(["list", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: String]]
        #expect(rows?.first { $0["name"] == "plain" }?["description"] == "(no description)", "\(json.out)")
    }

    /// `make demo`: ≥ 3 JPEGs that decode, sepia-toned in the centre, stats printed, exit 0.
    @Test func demoWritesSepiaStills() throws {
        let run = try SwiftcamRun()
        let result = try run.run(["run", "demo", "--no-control"], timeout: 30)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("stats "))
        let captures = run.directory.appendingPathComponent("captures").path
        let stills = try FileManager.default.contentsOfDirectory(atPath: captures).filter { $0.hasSuffix(".jpg") }
        // Stills at 2 s and 4 s of the run's 6.5 s; the one due at 6 s has half a second to be written before the end,
        // which a loaded machine may not give it.
        #expect(stills.count >= 2)
        for still in stills {
            let image = try DecodedImage(file: "\(captures)/\(still)")
            #expect(image.width == 640 && image.height == 480)
            let centre = image.pixel(320, 240)
            #expect(centre.r >= centre.g && centre.g >= centre.b, "sepia tone at the centre: \(centre)")
            #expect(centre.r - centre.b >= 10, "visibly warm, not grey: \(centre)")
        }
    }

    @Test func switchSnapshotsDifferAsTheSourcesDo() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        let socket = try run.socket(for: "switch")
        let back = try run.ctl("snap", socket: socket)
        let switched = try run.ctl("switch", socket: socket)
        let front = try run.ctl("snap", socket: socket)
        #expect(run.terminate() == 0)
        guard case let .ok(backPath) = back, case .ok = switched, case let .ok(frontPath) = front else {
            Issue.record("replies: \(back) \(switched) \(front)")
            return
        }
        let first = try DecodedImage(file: run.directory.appendingPathComponent(backPath).path)
        let second = try DecodedImage(file: run.directory.appendingPathComponent(frontPath).path)
        // SMPTE bars start with a light grey bar; the ball pattern is black around the ball.
        let barPixel = first.pixel(5, 5), ballPixel = second.pixel(5, 5)
        #expect(barPixel.r > 150 && barPixel.g > 150 && barPixel.b > 150, "\(barPixel)")
        #expect(ballPixel.r < 40 && ballPixel.g < 40 && ballPixel.b < 40, "\(ballPixel)")
    }

    /// A hang-up (the terminal closed) stops like Ctrl-C: exit 0, the running recording finalized and named.
    @Test func hangUpFinalizesTheRecordingAndSaysWhere() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        let socket = try run.socket(for: "switch")
        guard case .ok = try run.ctl("record start", socket: socket), case .ok = try run.ctl("wait 60", socket: socket) else {
            Issue.record("record start refused")
            _ = run.terminate()
            return
        }
        run.child.signal(SIGHUP)
        #expect(run.child.waitForExit() == .exited(0))
        let line = run.collectOutput().split(separator: "\n").first { $0.hasPrefix("recorded ") }
        let path = try #require(line.map { String($0.dropFirst("recorded ".count)) })
        let decoded = try decodedFrames(of: path.hasPrefix("/") ? path : run.directory.appendingPathComponent(path).path, within: 60)
        // Two seconds recorded (the recording starts at the frame after `record start`, and an encoder may drop one).
        #expect(decoded.frames >= 30 && decoded.error == nil, "\(decoded)")
    }

    @Test func recordingOfThreeSecondsWhilePreviewKeepsRunning() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        let socket = try run.socket(for: "switch")
        let before = try statsJSON(run, socket)
        guard case let .ok(started) = try run.ctl("record start", socket: socket) else {
            Issue.record("record start refused")
            _ = run.terminate()
            return
        }
        // 90 frames at 30 fps: three seconds of the stream, counted, not timed.
        let waited = try run.ctl("wait 90", socket: socket)
        let during = try statsJSON(run, socket)
        let stopped = try run.ctl("record stop", socket: socket)
        let after = try statsJSON(run, socket)
        #expect(waited == .ok("90 frames"), "frames kept flowing while recording")
        #expect(after.recording == nil)
        #expect(run.terminate() == 0)
        guard case let .ok(detail) = stopped else {
            Issue.record("record stop: \(stopped)")
            return
        }
        let path = run.directory.appendingPathComponent(String(detail.dropFirst("recorded ".count))).path
        #expect(started.hasSuffix(".mkv") && detail.hasSuffix(".mkv"))
        // Every one of the 90 frames waited for is in the file or counted as dropped (the recording's queues
        // are leaky: an encoder slower than the camera, e.g. on a loaded machine, loses frames, never silently;
        // a few are in flight at start and stop), and the duration is what the frames say, not a clock.
        let decoded = try decodedFrames(of: path, within: 60)
        let dropped = during.queueDrops - before.queueDrops
        #expect(decoded.error == nil, "\(decoded.error ?? "")")
        #expect(decoded.frames + dropped >= 85, "decoded \(decoded.frames) frames, \(dropped) dropped")
        #expect(decoded.frames >= 30, "decoded \(decoded.frames) frames")
        let duration = try #require(try discoveredDuration(of: path))
        #expect(abs(duration - (decoded.span + 1.0 / 30)) <= 0.1, "duration \(duration) for frames spanning \(decoded.span) s")
    }

    /// A disk that fills while recording: the recording ends at the first failed write and says so at once
    /// (stderr, stats, the next reply); what was written plays; preview and stills go on; `run` exits 74.
    @Test(.enabled(if: getuid() == 0, "mounts a 200 kB tmpfs")) func fullDiskEndsTheRecordingAndSaysSo() throws {
        let run = try SwiftcamRun()
        let full = run.directory.appendingPathComponent("full").path
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        guard mount("tmpfs", full, "tmpfs", 0, "size=200k") == 0 else { throw HarnessError("mount tmpfs: errno \(errno)") }
        defer { umount2(full, Int32(MNT_DETACH)) }
        try run.start(["run", "switch", "--quiet", "--set", "record.directory=\(full)", "--set", "sources.0.pattern=snow"])
        let socket = try run.socket(for: "switch")
        _ = try statsJSON(run, socket)  // the host answers before the recording starts
        guard case let .ok(started) = try run.ctl("record start", socket: socket) else {
            Issue.record("record start refused")
            return
        }
        let line = run.waitForErrorLine(containing: "recording failed:", timeout: 60)
        #expect(line?.contains("No space left") == true, "\(line ?? "no line")")
        let next = try run.ctl("snap", socket: socket)
        #expect(next.isOK && next.description.contains("[recording failed: "), "\(next)")
        let stats = try statsJSON(run, socket)
        #expect(stats.recording == nil && stats.recordingFailure?.contains("No space left") == true)
        #expect(stats.stills == 1 && stats.status == "configured")
        #expect(try run.ctl("wait 10", socket: socket) == .ok("10 frames"), "preview goes on")
        _ = try run.ctl("quit", socket: socket)
        #expect(run.child.waitForExit().status == 74)
        let path = String(started.dropFirst("recording ".count))
        let decoded = try decodedFrames(of: path, within: 60)
        #expect(decoded.frames > 0, "the frames written before the disk filled play")
        // A disk already full: refused at start, no empty file left.
        let again = SwiftcamRun(directory: run.directory)
        try again.start(["run", "switch", "--quiet", "--set", "record.directory=\(full)"])
        let refused = try again.ctl("record start", socket: try again.socket(for: "switch"))
        #expect(!refused.isOK && refused.description.contains("No space left"), "\(refused)")
        #expect(again.terminate() == 74)
        #expect(try FileManager.default.contentsOfDirectory(atPath: full).count == 1, "no empty file added")
    }

    /// JPEG stills are full range like a phone's, whatever range the camera delivers: limited-range NV12
    /// (black 16, white 235) decodes, with PIL rather than GStreamer, to black ≤ 3 and white ≥ 250.
    @Test(arguments: [("black", 0...3), ("white", 250...255)] as [(String, ClosedRange<Int>)])
    func jpegStillsAreFullRange(pattern: String, expected: ClosedRange<Int>) throws {
        let run = try SwiftcamRun()
        try run.start([
            "run", "switch", "--quiet", "--set", "sources.0.pattern=\(pattern)", "--set", "caps.format=NV12",
            "--set", "still.format=jpeg"
        ])
        let socket = try run.socket(for: "switch")
        let snap = try run.ctl("snap", socket: socket)
        #expect(run.terminate() == 0)
        guard case let .ok(relative) = snap else {
            Issue.record("snap: \(snap)")
            return
        }
        let path = run.directory.appendingPathComponent(relative).path
        let decoder = try ChildProcess.run([
            "/usr/bin/python3", "-c",
            "import sys; from PIL import Image; print(*Image.open(sys.argv[1]).convert('RGB').getpixel((160, 120)))", path
        ])
        let values = decoder.out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(decoder.status == 0 && values.count == 3, "PIL could not decode \(path)")
        #expect(values.allSatisfy { expected.contains($0) }, "\(pattern) decodes to \(values)")
    }

    @Test func killNineDuringRecordingLeavesAPlayableFile() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "record", "--quiet"])
        let socket = try run.socket(for: "record")
        guard case let .ok(started) = try run.ctl("record start", socket: socket) else {
            Issue.record("record start refused")
            _ = run.terminate()
            return
        }
        // Past the first second of frames (and its first Matroska cluster), then the kill.
        #expect(try run.ctl("wait 60", socket: socket) == .ok("60 frames"))
        run.child.kill()
        let path = run.directory.appendingPathComponent(String(started.dropFirst("recording ".count))).path
        let decoded = try decodedFrames(of: path, within: 1)
        #expect(decoded.error == nil, "\(decoded.error ?? "")")
        // The first second is there and plays, up to the last cluster written; the leaky record queue may
        // have dropped a few frames while the encoder started, which is what it is for.
        #expect(decoded.frames >= 15, "decoded \(decoded.frames) frames of the first second")
    }

    @Test func hundredFastSnapshotsAreDistinctAndComplete() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet", "--set", "still.format=jpeg"])
        let socket = try run.socket(for: "switch")
        var paths: [String] = []
        for _ in 0..<100 {
            if case let .ok(path) = try run.ctl("snap", socket: socket) { paths.append(path) }
        }
        // Into a directory that cannot be created: an error reply, and the pipeline keeps going.
        let blocker = run.directory.appendingPathComponent("not-a-dir")
        try Data("x".utf8).write(to: blocker)
        let refused = try run.ctl("snap \(blocker.path)/sub", socket: socket)
        let next = try run.ctl("snap", socket: socket)
        let stats = try statsJSON(run, socket)
        #expect(run.terminate() == 74, "a run in which a still failed says so in its exit status")
        #expect(paths.count == 100)
        #expect(Set(paths).count == 100, "no name reused")
        guard case let .error(reason) = refused else {
            Issue.record("snapshot into a file path succeeded: \(refused)")
            return
        }
        #expect(reason.contains("not-a-dir"))
        #expect(next.isOK)
        #expect(stats.status == "configured" && stats.stills == 101)
        let captures = run.directory.appendingPathComponent("captures").path
        let files = try FileManager.default.contentsOfDirectory(atPath: captures)
        #expect(files.filter { $0.hasSuffix(".jpg") }.count == 101)
        #expect(!files.contains { $0.hasSuffix(".part") }, "no temporary file left behind")
        for path in paths {
            let image = try DecodedImage(file: run.directory.appendingPathComponent(path).path)
            #expect(image.width == 320 && image.height == 240)
        }
    }

    /// A 1 MB line is refused in one short line and its connection closed; control characters never come
    /// back raw; the session answers the next client as before.
    @Test func longLinesAndControlCharactersOnTheSocket() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        defer { _ = run.terminate() }
        let socket = try run.socket(for: "switch")
        let reply = try rawExchange(String(repeating: "x", count: 1 << 20) + "\n", socket: socket)
        #expect(reply == "error line too long (the limit is 4096 bytes)\n", "\(reply.prefix(200))")
        let escaped = try run.ctl("\u{1B}[2Jzoom\u{07}", socket: socket)
        #expect(!escaped.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(escaped)")
        #expect(escaped.description.contains("\\u{1B}"))
        #expect(try run.ctl("stats", socket: socket).isOK, "the session still answers")
        let ctl = try SwiftcamRun(directory: run.directory).run(["ctl", "no-such-session", "stats"])
        #expect(ctl.status == 69 && ctl.err.contains("no session named 'no-such-session'") && ctl.err.contains("switch"), "\(ctl.err)")
    }

    /// Sends `bytes` on a fresh connection (ignoring a send cut short by the server) and reads until it closes.
    private func rawExchange(_ text: String, socket path: String) throws -> String {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw HarnessError("connect \(path): errno \(errno)") }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { break }
            reply += chunk[..<count]
        }
        return String(decoding: reply, as: UTF8.self)
    }

    private func statsJSON(_ run: SwiftcamRun, _ socket: String) throws -> SessionStats {
        guard case let .ok(json) = try run.ctl("stats --json", socket: socket) else { throw HarnessError("stats refused") }
        return try JSONDecoder().decode(SessionStats.self, from: Data(json.utf8))
    }
}
