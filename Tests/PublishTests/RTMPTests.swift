import Capture
import Config
import Foundation
import Glibc
import Publish
import TestSupport
import Testing

/// A real server the tests start in a scratch folder (nginx, Janus), in the foreground; `kill` ends it as a crash would
/// (SIGKILL), and so does its end.
class ServerProcess: @unchecked Sendable {
    let port: Int
    let folder: URL
    private var child: ChildProcess?

    init(port: Int, folder: URL) throws {
        self.port = port
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Starts `command` and waits until `ready` says it serves (polled: neither server says when it listens).
    func launch(_ command: [String], ready: () -> Bool) throws {
        let started = try ChildProcess(command, directory: folder.path, errorsToOutput: true)
        child = started
        while !ready() {
            guard started.isRunning else { throw ChildProcessError("\(command[0]) ended: \(started.text(.output).suffix(2000))") }
            usleep(20_000)
        }
    }

    /// Ends it at once, as a crash would.
    func kill() {
        child?.kill()
        child = nil
    }

    deinit { kill() }
}

/// Debian's nginx with its RTMP module (`libnginx-mod-rtmp`), as an ingest on 127.0.0.1:`port` with an application
/// `live`: one process, no daemon, its files in the scratch folder.
final class NginxRTMP: ServerProcess, @unchecked Sendable {
    static let binary = "/usr/sbin/nginx"
    static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: binary) && FileManager.default.fileExists(atPath: module)
    }

    override init(port: Int, folder: URL) throws {
        try super.init(port: port, folder: folder)
        let config = """
            load_module \(Self.module);
            daemon off;
            master_process off;
            pid \(folder.path)/nginx.pid;
            error_log stderr info;
            events { worker_connections 64; }
            rtmp { server { listen 127.0.0.1:\(port); application live { live on; record off; } } }
            """
        try config.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        try launch([Self.binary, "-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path, "-e", "stderr"]) {
            Self.accepts(port: port)
        }
    }

    /// Whether 127.0.0.1:`port` takes a TCP connection.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// What ffprobe reads of the first video stream at `url`: codec, size and frame rate; nil with its words when it reads
/// none.
func probeVideo(_ url: String) throws -> (codec: String, width: Int, height: Int, rate: String) {
    let result = try ChildProcess.run(
        [
            "/usr/bin/ffprobe", "-v", "error", "-rw_timeout", "30000000", "-select_streams", "v:0", "-show_entries",
            "stream=codec_name,width,height,r_frame_rate", "-of", "json", url
        ], timeout: 90)
    guard result.status == 0,
        let json = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any],
        let stream = (json["streams"] as? [[String: Any]])?.first
    else { throw ChildProcessError("ffprobe \(url): \(result.status) \(result.err)") }
    return (
        stream["codec_name"] as? String ?? "", stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0,
        stream["r_frame_rate"] as? String ?? ""
    )
}

@Suite(.serialized) struct RTMPTests {
    @Test func rtmpURLsAndKeysAreCheckedAndTheKeyIsNeverShown() throws {
        #expect(PublishTarget.rtmpProblem(with: "rtmp://a.rtmp.youtube.com/live2/abcd-efgh", keyGiven: false) == nil)
        #expect(
            PublishTarget.rtmpProblem(with: "rtmp://h/live", keyGiven: false)?.contains("names the application and the stream key") == true)
        #expect(PublishTarget.rtmpProblem(with: "rtmp://h/live/KEY", keyGiven: true)?.contains("ends at the application") == true)
        #expect(PublishTarget.rtmpProblem(with: "http://h/live/KEY", keyGiven: false)?.contains("not RTMP") == true)
        #expect(PublishTarget.problem(with: "rtmp://h/live/KEY")?.contains("goes under \"rtmp\"") == true)
        #expect(PublishTarget.problem(with: "rtmp://h/live/KEY")?.contains("KEY") == false, "the key in an error")

        let youtube = try #require(PublishTarget(rtmp: "rtmp://a.rtmp.youtube.com/live2", key: "abcd-efgh-ijkl"))
        #expect(youtube.url == "rtmp://a.rtmp.youtube.com/live2/abcd-efgh-ijkl")
        #expect(youtube.redacted == "rtmp://a.rtmp.youtube.com/live2/***" && youtube.endpoint == "a.rtmp.youtube.com:1935")
        let twitch = try #require(PublishTarget(rtmp: "rtmps://live.twitch.tv:443/app/live_1_abc?bandwidthtest=true", key: nil))
        #expect(twitch.redacted == "rtmps://live.twitch.tv:443/app/***?***" && twitch.scheme == .rtmps)

        // From a file (its first line) or the environment; missing ones are named, never the key.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-rtmp-key-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("youtube.key").path
        try "  secret-key-1  \nignored\n".write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try RTMPIngest.target(.init(url: "rtmp://127.0.0.1/live", keyFile: file), environment: [:])
        #expect(fromFile.url == "rtmp://127.0.0.1/live/secret-key-1")
        let fromEnvironment = try RTMPIngest.target(
            .init(url: "rtmp://127.0.0.1/live/", keyEnvironment: "CAM_KEY"), environment: ["CAM_KEY": "secret-key-2"])
        #expect(fromEnvironment.url == "rtmp://127.0.0.1/live/secret-key-2")
        #expect(throws: PublishError.streamKey(source: "\(folder.path)/none.key", reason: "No such file or directory")) {
            try RTMPIngest.target(.init(url: "rtmp://h/live", keyFile: "\(folder.path)/none.key"), environment: [:])
        }
        #expect(throws: PublishError.streamKey(source: "the environment variable CAM_KEY", reason: "it is not set, or empty")) {
            try RTMPIngest.target(.init(url: "rtmp://h/live", keyEnvironment: "CAM_KEY"), environment: [:])
        }
    }

    /// `swiftcam run` pushes its live H.264 to Debian's nginx-rtmp; ffprobe reads it back at the config's size and rate.
    /// nginx is killed mid-push: `stats` says the push is retrying and why; nginx back, the push resumes and reads again.
    @Test(.enabled(if: NginxRTMP.available, "needs nginx-light and libnginx-mod-rtmp (scripts/deps.sh)"))
    func aPushToNginxRTMPIsReadBackAndSurvivesNginxDying() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-rtmp-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = freePort(Int32(SOCK_STREAM.rawValue))
        var nginx = try NginxRTMP(port: port, folder: directory.appendingPathComponent("nginx"))
        let config = """
            {"sources": [{"kind": "test", "pattern": "ball"}],
             "caps": {"width": 320, "height": 240, "framerate": "30/1"},
             "preview": "none",
             "publish": {"rtmp": {"url": "rtmp://127.0.0.1:\(port)/live", "keyEnvironment": "SWIFTCAM_TEST_RTMP_KEY"}}}
            """
        let file = directory.appendingPathComponent("rtmp-host.json")
        try config.write(to: file, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFTCAM_TEST_RTMP_KEY"] = "cam-secret-1"
        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory, environment: environment)
        #expect(host.line(containing: "pushing to rtmp://127.0.0.1:\(port)/live/***") != nil, "\(host.lines)")
        let read = try probeVideo("rtmp://127.0.0.1:\(port)/live/cam-secret-1")
        #expect(read.codec == "h264" && read.width == 320 && read.height == 240 && read.rate == "30/1", "\(read)")
        #expect(host.send("wait 30")?.hasPrefix("ok") == true)
        let connected = host.send("stats") ?? ""
        #expect(connected.contains("push rtmp://127.0.0.1:\(port)/live/*** connected"), "\(connected)")

        nginx.kill()
        #expect(host.send("wait 60")?.hasPrefix("ok") == true)
        let away = host.send("stats") ?? ""
        #expect(away.contains("push rtmp://127.0.0.1:\(port)/live/*** retrying") && away.contains("last error:"), "\(away)")
        print("rtmp push while nginx is away: \(away)")
        nginx = try NginxRTMP(port: port, folder: directory.appendingPathComponent("nginx"))
        defer { nginx.kill() }
        let again = try probeVideo("rtmp://127.0.0.1:\(port)/live/cam-secret-1")
        #expect(again.codec == "h264" && again.width == 320, "\(again)")
        let back = host.send("stats") ?? ""
        #expect(back.contains("connected") && !back.contains("retrying"), "\(back)")
        print("rtmp push back: \(back)")
        #expect(!host.lines.joined().contains("cam-secret-1"), "the stream key was printed")
        #expect(host.quit() == 0)
    }
}
