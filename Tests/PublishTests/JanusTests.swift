import Base
import Foundation
import GStreamer
import Glibc
import Publish
import TestSupport
import Testing

/// Debian's Janus (`janus`), its HTTP API on 127.0.0.1:`port` and the streaming plugin alone, from a scratch folder
/// of configs.
final class JanusServer: ServerProcess, @unchecked Sendable {
    static let binary = "/usr/bin/janus"
    static let libraries = "/usr/lib/\(machineTriple)/janus"
    static var machineTriple: String {
        var names = utsname()
        uname(&names)
        let machine = withUnsafeBytes(of: names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(machine)-linux-gnu"
    }
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: binary)
            && FileManager.default.fileExists(atPath: "\(libraries)/plugins/libjanus_streaming.so")
    }

    override init(port: Int, folder: URL) throws {
        try super.init(port: port, folder: folder)
        let plugins = try FileManager.default.contentsOfDirectory(atPath: "\(Self.libraries)/plugins")
            .filter { $0.hasSuffix(".so") && $0 != "libjanus_streaming.so" }
        let transports = try FileManager.default.contentsOfDirectory(atPath: "\(Self.libraries)/transports")
            .filter { $0.hasSuffix(".so") && $0 != "libjanus_http.so" }
        let files = [
            "janus.jcfg": """
            general: {
              configs_folder = "\(folder.path)"
              plugins_folder = "\(Self.libraries)/plugins"
              transports_folder = "\(Self.libraries)/transports"
              events_folder = "\(Self.libraries)/events"
              loggers_folder = "\(Self.libraries)/loggers"
              debug_level = 4
            }
            plugins: { disable = "\(plugins.joined(separator: ","))" }
            transports: { disable = "\(transports.joined(separator: ","))" }
            events: { broadcast = false }
            media: { rtp_port_range = "20000-40000" }
            """,
            "janus.transport.http.jcfg": """
            general: { json = "plain" base_path = "/janus" http = true port = \(port) ip = "127.0.0.1" https = false }
            admin: { admin_http = false }
            cors: {}
            """,
            "janus.plugin.streaming.jcfg": "general: { }\n"
        ]
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let api = try #require(JanusAPI("http://127.0.0.1:\(port)/janus"))
        try launch([Self.binary, "--configs-folder=\(folder.path)", "--disable-colors"]) { (try? api.createSession()) != nil }
    }
}

/// The media age of mountpoint `id`'s first stream, in milliseconds, as Janus's `info` says; nil when there is no such
/// mountpoint (or no media yet).
func mountpointAge(_ api: JanusAPI, id: Int) -> Int? {
    guard let session = try? api.createSession() else { return nil }
    defer { api.destroy(session: session) }
    guard let handle = try? api.attachStreaming(session: session),
        let info = try? api.streaming(["request": "info", "id": .number(id)], session: session, handle: handle)
    else { return nil }
    return info["info"]?["media"]?.array?.first?["age_ms"]?.int
}

/// Waits (polling Janus's API, a safety net of `attempts` looks) until mountpoint `id` receives media: its age under
/// 1 s in a look made over `settled` seconds after the mountpoint first showed. (A mountpoint Janus just made says 0 ms
/// before any packet, its age counting from its making; one that gets no packets is over 1 s old by that look.)
func waitForFreshMedia(_ api: JanusAPI, id: Int, attempts: Int = 600, settled: Double = 1.2) -> Int? {
    var shown: Double?
    for _ in 0..<attempts {
        if let age = mountpointAge(api, id: id) {
            let now = MonotonicClock.now
            if shown == nil { shown = now }
            if age < 1000, let shown, now - shown >= settled { return age }
        } else {
            shown = nil
        }
        usleep(100_000)
    }
    return nil
}

@Suite(.serialized) struct JanusTests {
    @Test func janusAddressesAreChecked() {
        #expect(JanusAPI.problem(with: "http://127.0.0.1:8088/janus") == nil)
        #expect(JanusAPI.problem(with: "https://j/janus")?.contains("http://") == true)
        #expect(JanusAPI.problem(with: "http:///janus")?.contains("names no host") == true)
        #expect(JanusAPI("http://j.example/janus")?.port == 8088)
        #expect(JanusFeed.mountpointID(for: "cam") == JanusFeed.mountpointID(for: "cam"))
        #expect(JanusFeed.mountpointID(for: "cam") != JanusFeed.mountpointID(for: "cam2"))
    }

    /// `swiftcam run` with `publish.janus` makes a mountpoint on Debian's Janus and feeds it (Janus's `info` says media
    /// arrived under a second ago); Janus killed and started again, the host makes it again and feeds it; `quit`
    /// removes it.
    @Test(.enabled(if: JanusServer.available, "needs Debian's janus (scripts/deps.sh)"))
    func theMountpointIsMadeFedAndMadeAgainAfterJanusRestarts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-janus-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = freePort(Int32(SOCK_STREAM.rawValue))
        var janus = try JanusServer(port: port, folder: directory.appendingPathComponent("janus"))
        let api = try #require(JanusAPI("http://127.0.0.1:\(port)/janus"))
        let config = """
            {"sources": [{"kind": "test", "pattern": "ball"}],
             "caps": {"width": 320, "height": 240, "framerate": "30/1"},
             "preview": "none",
             "publish": {"janus": {"api": "http://127.0.0.1:\(port)/janus", "mountpoint": 77}}}
            """
        let file = directory.appendingPathComponent("janus-host.json")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory)
        #expect(host.line(containing: "pushing to Janus http://127.0.0.1:\(port)/janus mountpoint 77") != nil, "\(host.lines)")
        let age = waitForFreshMedia(api, id: 77)
        #expect(age != nil, "the mountpoint never got media: \(host.send("stats") ?? "")")
        let feeding = host.send("stats") ?? ""
        #expect(feeding.contains("janus http://127.0.0.1:\(port)/janus mountpoint 77 feeding"), "\(feeding)")
        print("janus: media \(age ?? -1) ms old; \(feeding)")

        janus.kill()
        janus = try JanusServer(port: port, folder: directory.appendingPathComponent("janus"))
        defer { janus.kill() }
        let again = waitForFreshMedia(api, id: 77)
        #expect(again != nil, "the mountpoint did not come back: \(host.send("stats") ?? "")")
        let back = host.send("stats") ?? ""
        #expect(back.contains("mountpoint 77 feeding"), "\(back)")
        print("janus after its restart: media \(again ?? -1) ms old; \(back)")

        #expect(host.quit() == 0)
        #expect(mountpointAge(api, id: 77) == nil, "the mountpoint stays after the host quit")
    }
}
