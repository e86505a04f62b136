import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// What the CLI prints and exits with where it once went wrong: JSON for programs, text from files escaped
/// before it reaches a terminal, outputs checked before the work, failures counted where they are told.
@Suite("CLI output and exits")
struct ExitAndOutputTests {
    /// `ctl NAME stats --json` printed `ok {…}`, which `jq` refuses: with --json the reply is the JSON alone.
    @Test func ctlStatsJSONIsBareJSON() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        _ = try run.socket(for: "switch")
        let ctl = try SwiftcamRun(directory: run.directory).run(["ctl", "switch", "stats", "--json"])
        let plain = try SwiftcamRun(directory: run.directory).run(["ctl", "switch", "stats"])
        #expect(run.terminate() == 0)
        #expect(ctl.status == 0, "\(ctl.err)")
        let object = try JSONSerialization.jsonObject(with: Data(ctl.out.utf8)) as? [String: Any]
        #expect(object?["status"] != nil, "not bare JSON: \(ctl.out)")
        #expect(plain.out.hasPrefix("ok "), "without --json the reply line stays: \(plain.out)")
    }

    /// `bench --json /proc/nope.json` ran the whole benchmark, then failed: the path is checked first.
    @Test func benchChecksItsJSONPathBeforeRunning() throws {
        let result = try SwiftcamRun().run(["bench", "--quick", "--json", "/proc/nope.json"], timeout: 300)
        #expect(result.status == 73, "\(result.err)")
        #expect(result.err.contains("cannot write the bench results to /proc/nope.json"), "\(result.err)")
        #expect(!result.err.contains("bench ["), "the benchmark ran: \(result.err)")
        #expect(result.out.isEmpty, "a table was printed: \(result.out)")
    }

    /// Control characters in file names and descriptions reached the terminal raw from `gallery` and `show`.
    @Test func fileNamesAndDescriptionsAreEscaped() throws {
        let run = try SwiftcamRun()
        let captures = run.directory.appendingPathComponent("captures")
        try FileManager.default.createDirectory(at: captures, withIntermediateDirectories: true)
        try Data([0xFF, 0xD8]).write(to: captures.appendingPathComponent("a\u{1B}]0;owned\u{07}b.jpg"))
        let config = run.directory.appendingPathComponent("esc.json")
        try Data(#"{"description": "clears \u001b[2J the screen", "sources": [{"kind": "test"}], "preview": "none"}"#.utf8).write(
            to: config)
        let gallery = try SwiftcamRun(directory: run.directory).run(["gallery", captures.path])
        let show = try SwiftcamRun(directory: run.directory).run(["show", config.path])
        for (name, out) in [("gallery", gallery.out), ("show", show.out)] {
            #expect(
                !out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" },
                "\(name) printed a control character: \(out.debugDescription)")
        }
        #expect(gallery.out.contains(#"a\u{1B}]0;owned\u{7}b.jpg"#), "\(gallery.out.debugDescription)")
        #expect(show.out.contains(#"esc: clears \u{1B}[2J the screen"#), "\(show.out.debugDescription)")
    }

    /// A `snap DIR` typo from a client: the host said "1 still or recording failed (see above)" with nothing above.
    /// Client failures are told on the host as they happen (and still counted for the exit code).
    @Test func aClientsFailedSnapIsToldOnTheHost() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        let socket = try run.socket(for: "switch")
        // A folder that cannot be made (its parent is a file), as a typo often is; root could make any other.
        let blocker = run.directory.appendingPathComponent("typo")
        try Data("x".utf8).write(to: blocker)
        let reply = try run.ctl("snap \(blocker.path)/sub", socket: socket)
        #expect(!reply.isOK)
        let status = run.terminate()
        let errors = run.collectErrors()
        #expect(status == 73 || status == 74, "\(status): \(errors)")
        let lines = errors.split(separator: "\n")
        let told = try #require(lines.firstIndex { $0.contains("still failed") && $0.contains("typo/sub") }, "\(errors)")
        let summary = try #require(lines.firstIndex { $0.contains("failed (see above)") }, "\(errors)")
        #expect(told < summary)
    }

    /// A config saved in the run's scratch folder.
    private func writeConfig(_ run: SwiftcamRun, _ name: String, _ json: String) throws -> String {
        let file = run.directory.appendingPathComponent("\(name).json")
        try Data(json.utf8).write(to: file)
        return file.path
    }

    /// `preview: window` without a display segfaulted inside GStreamer (exit 139, nothing printed).
    @Test func aWindowWithoutADisplayIsRefusedInOneLine() throws {
        let run = try SwiftcamRun()  // the harness runs without DISPLAY and WAYLAND_DISPLAY
        let file = try writeConfig(run, "window", #"{"sources": [{"kind": "test"}], "preview": "window", "frames": 5}"#)
        let result = try SwiftcamRun(directory: run.directory).run(["run", file, "--no-control"], timeout: 60)
        #expect(result.status == 69, "\(result.status): \(result.err)")
        #expect(result.err.contains("\"preview\": \"window\" needs a display"), "\(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        // GStreamer's own autovideosink in a launch line does the same.
        let launch = try writeConfig(run, "launch-window", #"{"launch": "videotestsrc num-buffers=5 ! videoconvert ! autovideosink"}"#)
        let raw = try SwiftcamRun(directory: run.directory).run(["run", launch, "--no-control"], timeout: 60)
        #expect(raw.status == 69 && raw.err.contains("the launch line's autovideosink needs a display"), "\(raw.status): \(raw.err)")
    }

    /// The `recorded PATH` line at the end of a segmented recording named a segment that was not the last: it was read
    /// before the stop, and segments went on being cut until the recording ended.
    @Test func recordedNamesTheLastSegment() throws {
        let run = try SwiftcamRun()
        let file = try writeConfig(
            run, "segments",
            #"{"sources": [{"kind": "test"}], "caps": {"width": 160, "height": 120, "framerate": 30}, "preview": "none", "frames": 100, "record": {"encoder": "mjpeg", "directory": "recordings", "segment": 1, "autostart": true}}"#
        )
        let result = try run.run(["run", file, "--no-control", "--quiet"], timeout: 120)
        #expect(result.status == 0, "\(result.err)")
        let line = try #require(result.out.split(separator: "\n").first { $0.hasPrefix("recorded ") }, "\(result.out)")
        let folder = run.directory.appendingPathComponent("recordings").path
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".mkv") }
        #expect(segments.count >= 3, "\(segments)")
        // The newest file is the last segment (the first one has the claimed name, the others sort by their time).
        let newest = try #require(
            segments.max { a, b in
                let times = [a, b].map {
                    (try? FileManager.default.attributesOfItem(atPath: "\(folder)/\($0)")[.modificationDate] as? Date) ?? nil
                }
                return (times[0] ?? .distantPast) < (times[1] ?? .distantPast)
            })
        #expect(line.hasSuffix("/\(newest)") || line == "recorded recordings/\(newest)", "\(line) vs \(segments.sorted())")
    }

    /// `publish-check` counted a reader's first burst (jitter buffer, preroll) against the time since the first
    /// arrival: a 30 fps stream read as 35-37 fps. The rate is the frames over their own timestamps' span: a 10 fps
    /// file, read as fast as it decodes, is 10 fps.
    @Test func publishCheckReportsTheStreamsOwnRate() throws {
        let run = try SwiftcamRun()
        let clip = run.directory.appendingPathComponent("clip.mkv").path
        try writeClip(to: clip, frames: 50)
        let result = try run.run(["publish-check", "file://\(clip)", "--seconds", "20"], timeout: 60)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("10.0 fps received, 50 frames, 0 lost"), "\(result.out)")
    }

    /// A run shorter than the stats' half-second window ended on "stats … in 10 (0.0 fps)": its rates are those since
    /// the start, so frames over seconds agree with the line's own figures.
    @Test func aShortRunsRatesAreTrue() throws {
        let result = try SwiftcamRun().run(["run", "demo", "--frames", "10", "--no-control", "--quiet"], timeout: 60)
        #expect(result.status == 0, "\(result.err)")
        let line = try #require(result.out.split(separator: "\n").last { $0.hasPrefix("stats ") }.map(String.init), "\(result.out)")
        // "stats configured 0.3s in 10 (33.1 fps) out 10 (33.1 fps) …"
        let words = line.split(separator: " ")
        let seconds = try #require(words.first { $0.hasSuffix("s") && Double($0.dropLast()) != nil }.flatMap { Double($0.dropLast()) })
        let inIndex = try #require(words.firstIndex(of: "in"))
        let frames = try #require(Double(words[inIndex + 1])), fps = try #require(Double(words[inIndex + 2].dropFirst()))
        #expect(frames == 10, "\(line)")
        // The uptime is printed to a tenth of a second: the rate must fall between frames over its bounds.
        #expect(fps >= frames / (seconds + 0.06) && fps <= frames / max(seconds - 0.06, 0.01), "\(line)")
    }

    /// A missing file source validated, then `run` exited 70 (internal error): it is 66, no input, naming the file.
    @Test func aMissingFileSourceIsNoInput() throws {
        let run = try SwiftcamRun()
        let file = try writeConfig(run, "missing", #"{"sources": [{"kind": "file", "path": "/nonexistent/clip.mkv"}], "preview": "none"}"#)
        let validate = try SwiftcamRun(directory: run.directory).run(["validate", file])
        #expect(validate.status == 0, "a file present elsewhere is a valid config: \(validate.err)")
        let result = try SwiftcamRun(directory: run.directory).run(["run", file, "--no-control"], timeout: 60)
        #expect(result.status == 66, "\(result.status): \(result.err)")
        #expect(result.err.contains("sources[0]: no such file /nonexistent/clip.mkv"), "\(result.err)")
    }

    /// `publish-check`: a file:// URL whose file is missing exited 70 with no reason (66 now, naming it); a port
    /// past 65535 exited 69 as if the server were down (64 now: the URL is wrong).
    @Test(
        arguments: [
            (
                ["publish-check", "file:///nonexistent-swiftcam.mkv", "--seconds", "2"], 66,
                "cannot read /nonexistent-swiftcam.mkv: no such file"
            ),
            (["publish-check", "rtsp://127.0.0.1:99999/x", "--seconds", "2"], 64, "port 99999")
        ] as [([String], Int32, String)])
    func publishCheckExitsByTheMapping(arguments: [String], status: Int32, mentions: String) throws {
        let result = try SwiftcamRun().run(arguments, timeout: 60)
        #expect(result.status == status, "\(result.status): \(result.err)")
        #expect(result.err.contains(mentions), "\(result.err)")
    }

    /// A still folder this user may not write exited 74 (I/O error): it is 77, permission. Run as `nobody`, since
    /// root writes anywhere; the folder is root's.
    @Test func aStillFolderThisUserMayNotWriteIsPermission() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let run = try SwiftcamRun()
        let closed = run.directory.appendingPathComponent("closed")
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: run.directory.path)
        var environment = run.environment
        environment["GST_REGISTRY"] = run.directory.appendingPathComponent("closed-registry.bin").path
        let result = try ChildProcess.run(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", Built.swiftcam,
                "run", "switch", "--no-control", "--quiet", "--frames", "45", "--set", "still.every=0.5",
                "--set", "still.directory=\(closed.path)"
            ],
            environment: environment, directory: run.directory.path)
        let text = result.err
        #expect(text.contains("still failed") && text.contains("Permission denied"), "\(text)")
        #expect(result.status == 77, "\(result.status): \(text)")
    }
}
