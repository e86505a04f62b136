import Foundation
import GStreamer
import Publish
import Synchronization
import Testing

@Suite(.serialized) struct RTSPServerTests {
    @Test func oneClientDecodesFramesOverTCPAndUDP() throws {
        let stream = TestStream()
        let server = try RTSPServer(settings: .init(port: 0, path: "/x"), stream: stream)
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(server.url == "rtsp://127.0.0.1:\(server.port)/x")
        for transport in ["tcp", "udp"] {
            let client = try FrameCountingClient(source: ["rtspsrc", "location=\(server.url)", "protocols=\(transport)", "latency=100"])
            defer { client.stop() }
            #expect(client.waitForFrames(30), "\(transport): \(client.count) frames; \(client.errors.withLock { $0 })")
        }
        #expect(stream.encoderStarts.load(ordering: .relaxed) >= 1)
    }
}
