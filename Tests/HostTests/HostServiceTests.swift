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
        guard let answer = LoopbackHTTP.exchange(port: port, Array(text.utf8), firstChunkOnly: true), !answer.isEmpty else { return nil }
        return String(decoding: answer, as: UTF8.self)
    }
}
