import Foundation
import Glibc
import Testing
import Web

@testable import Host

/// The camera page and the RTSP server start with the host and stop with it. They listen on TCP: this suite runs in
/// the publishing stage, inside a network namespace with only loopback (scripts/test.sh).
@Suite(.serialized) struct HostServiceTests {
    @Test func thePageAndTheRTSPServerLiveAndStopWithTheHost() async throws {
        let run = try HostRun(#"{"sources": [{"kind": "test"}], "preview": "none", "publish": {"rtsp": {"port": 0}}}"#) {
            $0.web = WebOptions(host: "127.0.0.1", port: 0, token: nil)
        }
        #expect(await run.ready())
        let page = await run.event { if case .cameraScreen = $0 { true } else { false } }
        let rtsp = await run.event { if case .rtsp = $0 { true } else { false } }
        guard case let .cameraScreen(pageURL)? = page, case let .rtsp(rtspURL)? = rtsp else {
            Issue.record("\(run.events)")
            return
        }
        let pagePort = try #require(port(in: pageURL)), rtspPort = try #require(port(in: rtspURL))
        let status = try #require(
            request(port: pagePort, "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(pagePort)\r\nConnection: close\r\n\r\n"))
        #expect(status.hasPrefix("HTTP/1.1 200"), "\(status)")
        let options = try #require(request(port: rtspPort, "OPTIONS \(rtspURL) RTSP/1.0\r\nCSeq: 1\r\n\r\n"))
        #expect(options.hasPrefix("RTSP/1.0 200"), "\(options)")
        // The page may not stop the host: `quit` is not its transport's.
        let quit = try #require(request(port: pagePort, post("/api/command", #"{"line": "quit"}"#, port: pagePort)))
        #expect(quit.hasPrefix("HTTP/1.1 400"), "\(quit)")

        run.host.requestStop()
        let outcome = await run.outcome()
        guard case .stopped = outcome else { Issue.record("\(outcome.name)"); return }
        #expect(request(port: pagePort, "GET / HTTP/1.1\r\n\r\n") == nil, "the page still answers")
        #expect(request(port: rtspPort, "OPTIONS \(rtspURL) RTSP/1.0\r\nCSeq: 1\r\n\r\n") == nil, "the RTSP server still answers")
    }

    private func port(in url: String) -> Int? {
        URLComponents(string: url)?.port
    }

    private func post(_ path: String, _ body: String, port: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    /// Sends `text` to 127.0.0.1:`port` and reads the answer's first bytes; nil when nothing accepts the connection.
    private func request(port: Int, _ text: String) -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A safety net for a server that accepts and never answers, not a measure of speed.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let bytes = Array(text.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
        var answer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &answer, answer.count, 0)
        return count > 0 ? String(decoding: answer[..<count], as: UTF8.self) : nil
    }
}
