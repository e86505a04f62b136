import Foundation
import Glibc
import TestSupport
import Testing

@testable import Web

/// What the gate in front of libsoup decides from the first bytes of a connection, without a server.
@Suite struct RequestScreeningTests {
    static func screening(_ text: String) -> RequestGate.Screening {
        RequestGate.screening(ArraySlice(Array(text.utf8)))
    }

    static func status(_ text: String) -> Int? {
        if case let .refuse(status, _, _) = screening(text) { return status }
        return nil
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET /api/status HTTP/1.1\r\n\r\n", "HEAD /app.js HTTP/1.0\n\n",
        "POST /api/zoom HTTP/1.1\r\nContent-Length: 12\r\n\r\n{\"factor\":2}", "POST /api/zoom HTTP/1.1\r\nContent-Length: 0012\r\n\r\n",
        "POST /api/zoom HTTP/1.1\r\ncontent-length: 5, 5\r\n\r\n", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    ])
    func passesRequestsItServes(text: String) {
        #expect(Self.screening(text) == .pass, "\(text.debugDescription)")
    }

    @Test(arguments: ["GET / HTTP/1.1", "GET / HTTP/1.1\r\nHost: a\r\n", "POST /api/zoom HTTP/1.1\r\nContent-Le"])
    func waitsForTheRestOfAHead(text: String) {
        #expect(Self.screening(text) == .incomplete, "\(text.debugDescription)")
    }

    @Test func refusesWhatItDoesNotServeWithTheStatusThatSaysWhy() {
        let longPath = "/" + String(repeating: "a", count: RequestGate.maxRequestLine)
        #expect(Self.status("GET \(longPath) HTTP/1.1\r\n\r\n") == 414)
        #expect(Self.status("GET \(longPath)") == 414, "a line over the limit is refused before it ends")
        #expect(Self.status("GET /\(String(repeating: "a", count: RequestGate.maxRequestLine - 20)) HTTP/1.1\r\n\r\n") == nil)
        let bigHeader = "X-Pad: " + String(repeating: "b", count: RequestGate.maxHead) + "\r\n"
        #expect(Self.status("GET / HTTP/1.1\r\n\(bigHeader)\r\n") == 431)
        #expect(Self.status("GET / HTTP/1.1\r\n\(bigHeader)") == 431)
        #expect(Self.status("GET /captures/%2e%2e/secret HTTP/1.1\r\n\r\n") == 404)
        for method in ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"] {
            guard case let .refuse(status, reason, headers) = Self.screening("\(method) /api/status HTTP/1.1\r\n\r\n") else {
                Issue.record("\(method) passed")
                continue
            }
            #expect(status == 405 && headers == ["Allow: GET, HEAD, POST"] && reason.contains(method), "\(method): \(reason)")
        }
        #expect(Self.status("BREW / HTTP/1.1\r\n\r\n") == 501)
        #expect(Self.status("get / HTTP/1.1\r\n\r\n") == 501, "methods are case-sensitive (RFC 9110 9.1)")
        for length in ["-5", "", "5a", "0x10", "1e3", "99999999999999999999", " +5"] {
            #expect(Self.status("POST /api/zoom HTTP/1.1\r\nContent-Length: \(length)\r\n\r\n") == 400, "Content-Length: \(length)")
        }
        #expect(Self.status("POST /api/zoom HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n") == 400)
        #expect(Self.status("POST /api/zoom HTTP/1.1\r\nContent-Length: 5, 7\r\n\r\n") == 400)
    }
}

/// The server as clients that are not browsers see it: bursts, heads too long to read, methods it has no use for,
/// lengths that are not numbers, more MJPEG readers than it serves, a WebSocket message over the limit. Each is
/// answered with a status (or close code) that says why, nothing reaches GLib's warnings, and the host keeps serving.
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct HTTPServerTests {
    @Test func aBurstOfRequestsIsAllAnswered() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let count = 300
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask { try await http("GET", host.base.appendingPathComponent("api/status")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
    }

    @Test func headsMethodsAndLengthsAreAnsweredWithAStatus() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let hostLine = "Host: 127.0.0.1:\(host.port)\r\nConnection: close\r\n"
        let hundredKB = String(repeating: "a", count: 100 * 1024)
        let uri = try rawHTTP(port: host.port, "GET /\(hundredKB) HTTP/1.1\r\n\(hostLine)\r\n")
        #expect(uri.status == 414, "\(uri)")
        let header = try rawHTTP(port: host.port, "GET /api/status HTTP/1.1\r\n\(hostLine)X-Pad: \(hundredKB)\r\n\r\n")
        #expect(header.status == 431, "\(header)")
        let put = try exchange(port: host.port, Data("PUT /api/status HTTP/1.1\r\n\(hostLine)Content-Length: 0\r\n\r\n".utf8))
        #expect(put.status == 405 && put.headers["allow"] == "GET, HEAD, POST", "\(put)")
        let brew = try rawHTTP(port: host.port, "BREW /coffee HTTP/1.1\r\n\(hostLine)\r\n")
        #expect(brew.status == 501 && brew.body.contains("BREW"), "\(brew)")
        let negative = try rawHTTP(port: host.port, "POST /api/zoom HTTP/1.1\r\n\(hostLine)Content-Length: -5\r\n\r\n")
        #expect(negative.status == 400 && negative.body.contains("Content-Length -5"), "\(negative)")
        let status = try rawHTTP(port: host.port, "GET /api/status HTTP/1.1\r\n\(hostLine)\r\n")
        #expect(status.status == 200)
        #expect(host.child.isRunning)
        // The host's stderr holds whatever GLib said about any of them.
        host.stop()
        #expect(!host.errorText.contains("WARNING") && !host.errorText.contains("CRITICAL"), "\(host.errorText.suffix(800))")
    }

    @Test func mjpegReadersHaveACapAndAReaderPastItIsToldWhy() async throws {
        let cap = 2
        let host = try ConnectionLimitTests.host("SWIFTCAM_WEB", cap: cap, idle: 3600)
        defer { host.stop() }
        var readers: [Int32] = []
        defer { readers.forEach { _ = close($0) } }
        let request = Array("GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\n\r\n".utf8)
        func openReader() throws -> Int32 {
            let fd = try connectLoopback(port: host.port, timeout: 60)
            _ = send(fd, request, request.count, Int32(MSG_NOSIGNAL))
            return fd
        }
        for _ in 0..<cap { readers.append(try openReader()) }
        let refused = try exchange(port: host.port, Data(request))
        #expect(refused.status == 503, "\(refused)")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("\(cap) MJPEG readers"), "\(refused)")
        // The readers admitted are served: each gets a JPEG part.
        for fd in readers {
            var buffer = [UInt8](repeating: 0, count: 4096)
            #expect(try waitReadable(fd, seconds: 60) && recv(fd, &buffer, buffer.count, 0) > 0)
        }
        // One leaves: its slot is free again once its viewer has ended.
        close(readers.removeLast())
        let monitor = try PageSocket(port: host.port)
        _ = try monitor.readJSON { (($0["viewers"] as? [String: Any])?["mjpeg"] as? Int) == cap - 1 }
        monitor.closeNow()
        // The page may say so a moment before the request path sees the slot (its state is sent as the viewer goes,
        // from another thread): a reader refused then is refused for a moment, not for good.
        var answer = ""
        for _ in 0..<100 {
            let fd = try openReader()
            var buffer = [UInt8](repeating: 0, count: 64)
            let read = try waitReadable(fd, seconds: 60) ? recv(fd, &buffer, buffer.count, 0) : 0
            answer = String(decoding: buffer[..<max(read, 0)], as: UTF8.self)
            if answer.hasPrefix("HTTP/1.1 200") {
                readers.append(fd)
                break
            }
            close(fd)
            usleep(20_000)  // a refused reader tries again, as a browser's <img> would on reload
        }
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
    }

    @Test func aWebSocketMessageOverTheLimitIsClosedWith1009() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let socket = try PageSocket(port: host.port)
        _ = try socket.readJSON { $0["type"] as? String == "state" }
        let message = #"{"type":"ping","pad":""# + String(repeating: "a", count: 100 * 1024) + #""}"#
        try socket.sendFrame(opcode: 0x1, payload: Array(message.utf8))
        let close = try socket.readClose()
        #expect(close.code == 1009 && close.reason.contains("64 KiB"), "\(close)")
        // A page that keeps within the limit is served.
        let next = try PageSocket(port: host.port)
        #expect(try next.readJSON()["type"] as? String == "state")
        next.closeNow()
    }
}
