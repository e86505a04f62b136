import Base
import Capture
import Config
import Foundation
import GStreamer
import Glibc
import Publish
import Synchronization
import Testing

/// A free port on 127.0.0.1 for `type` (SOCK_STREAM or SOCK_DGRAM), found by binding port 0.
func freePort(_ type: Int32) -> Int {
    let descriptor = socket(AF_INET, type, 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length)
            return getsockname(descriptor, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

@Suite(.serialized) struct PublisherTests {
    /// Push to a stand-in, kill it for 10 s (300 frames), restart it: the publisher says retrying meanwhile and
    /// resumes within 5 s (150 frames) of the server's return.
    @Test(arguments: ["rtsp", "srt"])
    func pushSurvivesTheServerGoingAway(scheme: String) throws {
        let stream = TestStream()
        let port = freePort(scheme == "rtsp" ? Int32(SOCK_STREAM.rawValue) : Int32(SOCK_DGRAM.rawValue))
        let url = scheme == "rtsp" ? "rtsp://127.0.0.1:\(port)/cam" : "srt://127.0.0.1:\(port)?streamid=publish:cam"
        let listenURL = scheme == "rtsp" ? url : "srt://127.0.0.1:\(port)"
        let start = { () throws -> FrameCountingClient in try listeningStandIn(listenURL) }
        var server = try start()
        let target = try #require(PublishTarget(url))
        let publisher = try Publisher(target: target, stream: stream)
        defer { publisher.stop() }
        #expect(server.waitForFrames(30), "\(server.errors.withLock { $0 }); \(publisher.report)")
        #expect(publisher.waitForConnections(1))
        #expect(publisher.report.contains("connected"), "\(publisher.report)")

        server.stop()
        #expect(publisher.waitForRetrying(), "\(publisher.report)")
        #expect(publisher.report.contains("retrying in"), "\(publisher.report)")
        stream.waitForFrames(300)  // the server is away for 10 s; the stream goes on
        #expect(publisher.phase != .connected, "\(publisher.report)")
        #expect(publisher.report.contains("retrying"), "\(publisher.report)")
        print("\(scheme) push while the server is away: \(publisher.report)")

        server = try start()
        defer { server.stop() }
        let back = stream.frames.withLock { $0 }
        #expect(server.waitForFrames(10), "\(server.errors.withLock { $0 }); \(publisher.report)")
        let waited = stream.frames.withLock { $0 } - back
        let seconds = (server.firstFrame.withLock { $0 } ?? .infinity) - server.started
        print("\(scheme) push resumed: first frame \(seconds) s (\(waited) frames) after the stand-in restarted; \(publisher.report)")
        #expect(waited < 150, "the push resumed \(waited) frames after the server came back")
        #expect(publisher.waitForConnections(2), "\(publisher.report)")
        #expect(stream.encoderStarts.load(ordering: .relaxed) >= 1)
    }

    @Test func badTargetsAreClearErrors() {
        #expect(PublishTarget.problem(with: "http://x/y")?.contains("use rtsp:// or srt://") == true)
        #expect(PublishTarget.problem(with: "srt://host")?.contains("needs a port") == true)
        #expect(PublishTarget.problem(with: "rtsp://host:8554")?.contains("needs a path") == true)
        #expect(PublishTarget.problem(with: "srt://h:1?mode=listener")?.contains("caller") == true)
        #expect(PublishTarget.problem(with: "rtsp://h:8554/cam") == nil)
        #expect(PublishTarget("rtsp://u:pw@h:8554/cam")?.redacted == "rtsp://u:***@h:8554/cam")
        // SRT secrets: MediaMTX's streamid credentials and a passphrase; a streamid without them stays whole.
        #expect(
            PublishTarget("srt://h:8890?streamid=publish:cam1:camera:change-me")?.redacted
                == "srt://h:8890?streamid=publish:cam1:camera:***")
        #expect(PublishTarget("srt://h:8890?streamid=x&passphrase=verysecret123")?.redacted == "srt://h:8890?streamid=x&passphrase=***")
        #expect(PublishTarget("srt://h:8890?streamid=publish:cam")?.redacted == "srt://h:8890?streamid=publish:cam")
    }
}
