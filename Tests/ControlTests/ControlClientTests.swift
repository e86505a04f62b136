import Capture
import Control
import Foundation
import Glibc
import Testing

/// The control socket's client: how long it waits for a reply, and what it says when none comes.
@Suite struct ControlClientTests {
    /// A session that takes the command and never answers: the client says it waited, and for how long, rather than
    /// that the session closed the connection.
    @Test func aSilentSessionIsReportedAsNotReplyingInTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "swiftcam-silent-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("silent.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)

        #expect {
            try ControlSocket.send("stats", socket: path, name: "silent", timeout: 0.2)
        } throws: { error in
            guard case let .noReplyWithin(name, seconds) = error as? ControlError else { return false }
            return name == "silent" && seconds == 0.2 && "\(error)" == "session 'silent' did not reply within 0.2 s"
        }
    }

    /// `wait N` may take as long as the session waits for its frames; every other command gets 30 s.
    @Test func waitGetsTheSessionsFrameWaitAndMore() {
        #expect(ControlSocket.replySeconds(for: "stats") == 30)
        #expect(ControlSocket.replySeconds(for: "wait 60") > Command.frameWaitSeconds)
    }
}
