import Base
import Capture
import Config
import Foundation
import GStreamer
import Glibc
import Publish
import Synchronization
import TestSupport
import Testing

/// `swiftcam ARGS` in a process of its own, driven on stdin; stdout and stderr are one stream of lines.
final class HostRun: @unchecked Sendable {
    let child: ChildProcess

    init(arguments: [String], directory: URL, environment: [String: String]? = nil) throws {
        child = try ChildProcess([swiftcamBinary] + arguments, environment: environment, directory: directory.path, errorsToOutput: true)
    }

    /// Every line so far.
    var lines: [String] { child.lines() }

    /// Waits for a line containing `text` (a safety-net timeout).
    func line(containing text: String, timeout: Double = 60) -> String? {
        child.line(containing: text, timeout: timeout)
    }

    /// Sends a command and waits for its reply (`ok …` or `error …`).
    func send(_ command: String, timeout: Double = 90) -> String? {
        let before = child.lines().count
        child.send(command)
        return child.line(skipping: before, timeout: timeout) { $0.hasPrefix("ok") || $0.hasPrefix("error") }
    }

    /// `quit`, then the exit status.
    func quit() -> Int32 {
        _ = send("quit")
        return child.waitForExit().status
    }

    /// The exit status of a run that ends by itself.
    func exitStatus() -> Int32 { child.waitForExit().status }
}

/// The duration gst-discoverer-1.0 reads from a file, in seconds.
func discoveredSeconds(_ path: String) -> Double? {
    guard let text = try? ChildProcess.run(["/usr/bin/gst-discoverer-1.0", path]).out,
        let line = text.split(separator: "\n").first(where: { $0.contains("Duration:") }),
        let value = line.split(separator: " ").last
    else { return nil }
    let parts = value.split(separator: ":").compactMap { Double($0) }
    guard parts.count == 3 else { return nil }
    return parts[0] * 3600 + parts[1] * 60 + parts[2]
}

@Suite(.serialized) struct HostTests {
    /// The whole host: `swiftcam run` serves RTSP and pushes SRT from its live encoder while it records; the
    /// SRT server goes away for 10 s (300 frames) and comes back: stats says retrying, the push resumes, and
    /// the recording covers the whole time.
    @Test func aRecordingIsUnaffectedWhileThePushRetries() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-publish-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = freePort(Int32(SOCK_DGRAM.rawValue))
        let config = """
            {"sources": [{"kind": "test", "pattern": "ball"}],
             "caps": {"width": 320, "height": 240, "framerate": "30/1", "format": "NV12"},
             "preview": "none",
             "record": {"encoder": "mjpeg", "directory": "\(directory.path)"},
             "publish": {"rtsp": {"port": 0, "path": "/cam"}, "to": "srt://127.0.0.1:\(port)?streamid=publish:cam"}}
            """
        let file = directory.appendingPathComponent("publish-host.json")
        try config.write(to: file, atomically: true, encoding: .utf8)
        var server = try listeningStandIn("srt://127.0.0.1:\(port)")
        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory)
        let rtsp = try #require(host.line(containing: "rtsp rtsp://127.0.0.1:"))
        #expect(host.line(containing: "pushing to srt://127.0.0.1:\(port)") != nil)
        #expect(server.waitForFrames(30), "\(server.errors.withLock { $0 }); \(host.lines)")
        let recording = try #require(host.send("record start"))
        #expect(recording.hasPrefix("ok recording "), "\(recording)")
        let started = MonotonicClock.now

        // An RTSP reader of the same encode, while the push runs.
        let url = String(rtsp.dropFirst("rtsp ".count))
        let reader = try FrameCountingClient(source: ["rtspsrc", "location=\(url)", "protocols=tcp", "latency=100"])
        #expect(reader.waitForFrames(30), "\(reader.errors.withLock { $0 })")
        reader.stop()

        server.stop()
        #expect(host.send("wait 300")?.hasPrefix("ok") == true)  // the server is away for 10 s
        let away = host.send("stats") ?? ""
        #expect(away.contains("push srt://127.0.0.1:\(port)?streamid=publish:cam retrying"), "\(away)")
        server = try listeningStandIn("srt://127.0.0.1:\(port)")
        defer { server.stop() }
        #expect(server.waitForFrames(10), "\(server.errors.withLock { $0 })")
        #expect(host.send("wait 30")?.hasPrefix("ok") == true)
        let back = host.send("stats") ?? ""
        #expect(back.contains("retrying") == false && back.contains("connected"), "\(back)")

        let stopped = try #require(host.send("record stop"))
        let recorded = MonotonicClock.now - started
        #expect(stopped.hasPrefix("ok recorded "), "\(stopped)")
        let path = String(stopped.dropFirst("ok recorded ".count)).split(separator: " ").first.map(String.init) ?? ""
        let duration = discoveredSeconds(path.hasPrefix("/") ? path : directory.appendingPathComponent(path).path)
        #expect((duration ?? 0) >= recorded - 1.5, "the recording plays \(duration ?? 0) s of the \(recorded) s recorded")
        print("host: recording \(duration ?? 0) s of \(recorded) s while the push went away and came back; \(back)")
        #expect(host.quit() == 0)
    }

    /// Beyond loopback without credentials: refused before the camera opens, in one line, exit 65, and never
    /// "running" first. `show` says the same of the config without starting anything.
    @Test func aServerBeyondLoopbackWithoutCredentialsIsRefusedBeforeRunning() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-publish-refused-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("open.json")
        try #"{"sources": [{"kind": "test"}], "preview": "none", "publish": {"rtsp": {"address": "0.0.0.0", "port": 0}}}"#
            .write(to: file, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFTCAM_RTSP_USER"] = nil
        environment["SWIFTCAM_RTSP_PASSWORD"] = nil

        let shown = try HostRun(arguments: ["show", file.path], directory: directory, environment: environment)
        #expect(shown.line(containing: "serve rtsp://") != nil)
        #expect(shown.exitStatus() == 0)
        let serve = shown.lines.first { $0.contains("serve rtsp://") } ?? ""
        #expect(serve.contains(":PORT/open") && serve.contains("refused at start"), "\(serve)")

        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory, environment: environment)
        let refusal = try #require(host.line(containing: "serving RTSP on 0.0.0.0 reaches beyond this machine"))
        #expect(refusal.contains("SWIFTCAM_RTSP_USER"))
        #expect(host.exitStatus() == 65)
        let printed = host.lines
        #expect(!printed.contains { $0.hasPrefix("running") || $0.hasPrefix("rtsp ") }, "\(printed)")

        // Credentials from the environment follow the config's rules, and say which variable is wrong.
        for (user, password, mentions) in [
            ("a:b", "pw", "SWIFTCAM_RTSP_USER: a user name is not empty and has no ':'"),
            ("viewer", "", "SWIFTCAM_RTSP_PASSWORD: an empty password protects nothing"),
            ("viewer", nil, "SWIFTCAM_RTSP_USER without SWIFTCAM_RTSP_PASSWORD")
        ] as [(String, String?, String)] {
            environment["SWIFTCAM_RTSP_USER"] = user
            environment["SWIFTCAM_RTSP_PASSWORD"] = password
            let refused = try HostRun(
                arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory, environment: environment)
            #expect(refused.line(containing: mentions) != nil, "\(refused.lines)")
            #expect(refused.exitStatus() == 65)
        }

        environment["SWIFTCAM_RTSP_USER"] = "viewer"
        environment["SWIFTCAM_RTSP_PASSWORD"] = "s3cret"
        let allowed = try HostRun(arguments: ["show", file.path], directory: directory, environment: environment)
        #expect(allowed.line(containing: "authentication as \"viewer\"") != nil, "\(allowed.lines)")
        _ = allowed.exitStatus()
        #expect(!allowed.lines.contains { $0.contains("s3cret") })
    }

    @Test func publishConfigErrorsAreOneLine() {
        let cases: [(String, String)] = [
            (#"{"publish": {}}"#, "publish: give \"rtsp\""),
            (#"{"publish": {"rtsp": {"port": 70000}}}"#, "publish.rtsp.port: 70000 is outside 0…65535"),
            (#"{"publish": {"rtsp": {"path": "cam"}}}"#, "publish.rtsp.path: \"cam\" is not a mount path"),
            (#"{"publish": {"rtsp": {"path": "/a/../b"}}}"#, "publish.rtsp.path: \"/a/../b\" is not a mount path"),
            (#"{"publish": {"rtsp": {"address": "example.com"}}}"#, "publish.rtsp.address: \"example.com\" is not an IP address"),
            (#"{"publish": {"rtsp": {"user": "a"}}}"#, "publish.rtsp.password: give both"),
            (#"{"publish": {"to": "http://x/y"}}"#, "publish.to: \"http://\" cannot be pushed to"),
            (#"{"publish": {"to": "srt://x"}}"#, "publish.to: an SRT push needs a port"),
            (#"{"publish": {"rtsp": {"port": 1}, "bogus": 1}}"#, "publish.bogus: unknown key")
        ]
        for (publish, expected) in cases {
            let json = #"{"sources": [{"kind": "test"}], "#.dropLast(0) + publish.dropFirst()
            do {
                _ = try ConfigLoader.load(data: Data(json.utf8), file: "t.json")
                Issue.record("\(json) loaded")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
                #expect(!"\(error)".contains("\n"))
            }
        }
    }
}

/// Glass-to-client latency over RTSP on loopback: the host's test pattern is black; `filter invert` makes the
/// next frame white; an `rtspsrc` reader in this process (latency=0, TCP) sees the first white frame. Twenty
/// toggles; p50 and p95 printed (includes up to one frame interval before the next frame is made).
@Suite(.serialized) struct LatencyTests {
    @Test func glassToClientOverRTSP() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-latency-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = """
            {"sources": [{"kind": "test", "pattern": "black"}],
             "caps": {"width": 640, "height": 480, "framerate": "30/1", "format": "NV12"},
             "preview": "none", "publish": {"rtsp": {"port": 0, "path": "/cam"}}}
            """
        let file = directory.appendingPathComponent("latency.json")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory)
        let rtsp = try #require(host.line(containing: "rtsp rtsp://127.0.0.1:"))
        let url = String(rtsp.dropFirst("rtsp ".count))
        // (time of the newest frame, whether it is white)
        let seen = Condition((time: 0.0, white: false, frames: 0))
        let reader = try Pipeline.parse(
            "rtspsrc location=\(url) latency=0 protocols=tcp ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 ! appsink name=sink sync=false max-buffers=1 drop=true"
        )
        reader.element(named: "sink", as: AppSink.self)?.onSample { sample in
            let now = MonotonicClock.now
            guard let buffer = sample.buffer, let luma = try? buffer.withMappedBytes({ $0.first }) else { return }
            seen.withLock { $0 = (now, luma > 128, $0.frames + 1) }
        }
        try reader.setState(.playing)
        defer { try? reader.setState(.null) }
        #expect(seen.wait(until: MonotonicClock.now + 60) { $0.frames >= 30 ? true : nil } == true)
        var latencies: [Double] = []
        for round in 0..<20 {
            let white = round % 2 == 0
            let sent = MonotonicClock.now
            #expect(host.send(white ? "filter invert" : "filter mono")?.hasPrefix("ok") == true)
            if let at = seen.wait(until: MonotonicClock.now + 30, for: { $0.white == white && $0.time > sent ? $0.time : nil }) {
                latencies.append(at - sent)
            }
        }
        #expect(latencies.count == 20)
        latencies.sort()
        let p50 = latencies[latencies.count / 2], p95 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.95))]
        print(
            "rtsp glass-to-client on loopback, 640x480@30, rtspsrc latency=0 TCP: p50 \(Int(p50 * 1000)) ms, p95 \(Int(p95 * 1000)) ms over \(latencies.count) changes (min \(Int(latencies[0] * 1000)), max \(Int(latencies[latencies.count - 1] * 1000)))"
        )
        #expect(host.quit() == 0)
    }
}
