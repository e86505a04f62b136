import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// The page's `/ws` against clients no browser would be: numbers out of every range, answers that are not answers,
/// compressed messages, sixty pages closing at once. After each, the host still serves a normal viewer its offer, and
/// every offer says how its H.264 is packed (RFC 6184). Over a plain TCP WebSocket, so only in a network namespace
/// with only lo (scripts/test.sh web), like every test that opens sockets.
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct HostileClientTests {
    /// A page that watches and waits for its offer; returns the socket and the offer's SDP.
    static func watcher(_ host: WebHost) throws -> (PageSocket, String) {
        let socket = try PageSocket(port: host.port)
        _ = try socket.readJSON { $0["type"] as? String == "state" }
        try socket.sendText(#"{"type":"watch"}"#)
        let offer = try socket.readJSON { $0["type"] as? String == "offer" }
        return (socket, offer["sdp"] as? String ?? "")
    }

    /// The host's process is alive and a new page still gets an offer.
    static func expectServing(_ host: WebHost, after what: String) throws {
        #expect(host.child.isRunning, "the host ended after \(what): \(host.errorText.suffix(400))")
        guard host.child.isRunning else { throw WebTestError("the host ended after \(what)") }
        let (socket, sdp) = try watcher(host)
        #expect(sdp.contains("m=video"), "after \(what): \(sdp)")
        socket.closeNow()
    }

    /// Each message sent after `watch` and its offer, with what the reply's error must say (nil: no reply expected).
    static let hostile: [(message: String, reply: String?)] = [
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":4294967296}"#, "sdpMLineIndex 4294967296"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":-1}"#, "sdpMLineIndex -1"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":1e300}"#, "sdpMLineIndex"),
        (#"{"type":"ice","candidate":"not a candidate at all","sdpMLineIndex":0}"#, nil),
        (#"{"type":"answer","sdp":""}"#, "it is empty"),
        (#"{"type":"answer","sdp":"v=0\r\n"}"#, "media sections"),
        (#"{"type":"answer","sdp":42}"#, "a string \"sdp\" expected"),
        (#"{"type":"answer"}"#, "a string \"sdp\" expected"),
        (#"{"type":"nonsense"}"#, "unknown message type"),
        ("not json", "malformed message"),
        (#"{"type":"ice","candidate":"\#(String(repeating: "x", count: 4000))"}"#, "over 1024 bytes")
    ]

    @Test func everyHostileMessageIsAnsweredAndTheHostKeepsServing() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        for (message, reply) in Self.hostile {
            let (socket, _) = try Self.watcher(host)
            try socket.sendText(message)
            if let reply {
                let error = try socket.readJSON { $0["type"] as? String == "error" }
                #expect((error["error"] as? String)?.contains(reply) == true, "\(message.prefix(120)): \(error)")
            }
            socket.closeNow()
            try Self.expectServing(host, after: String(message.prefix(120)))
        }
        // A well-formed answer with a fingerprint of zeros is taken (nothing to refuse yet); its viewer never connects.
        let (socket, _) = try Self.watcher(host)
        try socket.sendText(
            String(
                data: try JSONSerialization.data(withJSONObject: [
                    "type": "answer",
                    "sdp": SignallingTests.answer(
                        fingerprint: "sha-256 " + Array(repeating: "00", count: 32).joined(separator: ":"))
                ]), encoding: .utf8) ?? "")
        try Self.expectServing(host, after: "an answer with a zero fingerprint")
        socket.closeNow()
        // gst_sdp_message_parse_buffer's assertion on an empty answer, or any other, would be on the host's stderr.
        #expect(!host.errorText.contains("CRITICAL"), "\(host.errorText.suffix(800))")
    }

    /// RFC 6184: every H.264 offer names its packetization mode and profile-level-id, the encoder's, in every try
    /// (without them a strict client assumes mode 0, single NAL units, and refuses the offer).
    @Test func everyOfferCarriesTheH264FormatParameters() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        var profiles = Set<String>()
        for _ in 0..<12 {
            let (socket, sdp) = try Self.watcher(host)
            socket.closeNow()
            guard sdp.contains("H264/90000") else {
                #expect(sdp.contains("VP8/90000"), "neither H.264 nor VP8 offered: \(sdp)")
                continue
            }
            let fmtp = sdp.split(separator: "\r\n").first { $0.hasPrefix("a=fmtp:96 ") }.map(String.init)
            #expect(fmtp?.contains("packetization-mode=1") == true, "\(sdp)")
            let profile = fmtp.flatMap { $0.firstMatch(of: /profile-level-id=([0-9a-fA-F]{6})/) }.map { String($0.1) }
            #expect(profile != nil, "\(sdp)")
            if let profile { profiles.insert(profile.lowercased()) }
        }
        // Constrained baseline (42, constraint_set1 on) whatever the encoder, and one profile for one encoder.
        #expect(profiles.count <= 1, "\(profiles)")
        for profile in profiles {
            #expect(profile.hasPrefix("42"), "\(profile)")
            #expect((UInt8(profile.dropFirst(2).prefix(2), radix: 16) ?? 0) & 0x40 != 0, "\(profile)")
        }
    }

    /// A 48 MB message compressed to ~47 KB: the host does not offer permessage-deflate, so the compressed frame is a
    /// protocol error that closes the connection, and nothing of it is inflated (RSS unchanged within 5 MB).
    @Test func aCompressedMessageIsRefusedUninflated() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        // Raw deflate (RFC 7692: no zlib header, the final empty block's 00 00 ff ff dropped) of a 48 MB ping.
        let script = [
            "import sys, zlib", "c = zlib.compressobj(9, zlib.DEFLATED, -15)",
            #"d = c.compress(b'{"type":"ping","pad":"' + b'a' * 48_000_000 + b'"}') + c.flush(zlib.Z_SYNC_FLUSH)"#,
            "sys.stdout.buffer.write(d[:-4])"
        ]
        let python = try ChildProcess(["/usr/bin/python3", "-c", script.joined(separator: "\n")])
        python.closeInput()
        python.waitForExit()
        let compressed = python.bytes(.output)
        #expect(compressed.count > 1000 && compressed.count < 64 * 1024, "\(compressed.count) bytes compressed")

        let socket = try PageSocket(port: host.port, extensions: "permessage-deflate; client_max_window_bits")
        _ = try socket.readJSON { $0["type"] as? String == "state" }
        #expect(!socket.handshake.lowercased().contains("permessage-deflate"), "\(socket.handshake)")
        let before = try ConnectionLimitTests.usage(host.child.pid).resident
        try socket.sendFrame(opcode: 0x1, payload: compressed, reserved: 0b100)
        let close = try socket.readClose()
        #expect(close.code == 1002 || close.code == 1006, "\(close)")
        let after = try ConnectionLimitTests.usage(host.child.pid).resident
        print("deflate: \(compressed.count) bytes compressed; RSS \(before >> 20) MB before, \(after >> 20) MB after; closed \(close)")
        #expect(abs(after - before) <= 5 << 20, "RSS \(before) before, \(after) after")
        try Self.expectServing(host, after: "a compressed message")
    }

    /// Sixty viewers closed at once: their pipelines stop one after another (about a tenth of a second each), off the
    /// path that serves new viewers, so a new page's offer arrives while most of them are still stopping. The host
    /// counts a viewer until it has stopped; the count right after the new offer shows how many were still pending.
    @Test func aNewViewersOfferDoesNotWaitForEarlierTeardowns() async throws {
        let host = try WebHost(config: "switch", environment: ["SWIFTCAM_WEB_MAX_CONNECTIONS": "64"])
        defer { host.stop() }
        let churned = 60
        var sockets: [PageSocket] = []
        for _ in 0..<churned {
            let socket = try PageSocket(port: host.port)
            _ = try socket.readJSON { $0["type"] as? String == "state" }
            try socket.sendText(#"{"type":"watch"}"#)
            sockets.append(socket)
        }
        for socket in sockets { _ = try socket.readJSON { $0["type"] as? String == "offer" } }
        for socket in sockets { socket.closeNow() }
        let started = Date()
        let (socket, sdp) = try Self.watcher(host)
        let seconds = Date().timeIntervalSince(started)
        let monitor = try PageSocket(port: host.port)
        let state = try monitor.readJSON { $0["type"] as? String == "state" }
        let counted = (state["viewers"] as? [String: Any])?["webrtc"] as? Int ?? 0
        print(
            String(
                format: "churn: a new viewer's offer %.3f s after %d viewers closed at once; %d viewers still counted then", seconds,
                churned, counted))
        #expect(sdp.contains("m=video"))
        #expect(counted > 1, "every earlier viewer had stopped before the new one got its offer: teardown is on its path")
        socket.closeNow()
        monitor.closeNow()
        try await ConnectionLimitTests.waitForNoViewers(host)
    }
}
