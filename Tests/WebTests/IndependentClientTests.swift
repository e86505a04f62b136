import Foundation
import TestSupport
import Testing

/// A WebRTC client nobody on this project wrote: aiortc from PyPI (scripts/aiortc_viewer.py, in the venv
/// scripts/test.sh makes under .build/webrtc-venv; that script says which two settings its loopback use needs),
/// speaking the page's `/ws` signalling to `swiftcam run --http`. It decodes the bars at the camera's rate, and after
/// every hostile message (and every input of the fuzzer's corpus) a normal page still gets its offer.
@Suite(
    .serialized,
    .enabled(
        if: NetworkIsolation.isolated && FileManager.default.isExecutableFile(atPath: AiortcClient.python),
        "needs a network namespace with only lo and .build/webrtc-venv with aiortc: scripts/test.sh web"))
struct IndependentClientTests {
    static let python = AiortcClient.python
    static let script = WebHost.repository.appendingPathComponent("scripts/aiortc_viewer.py").path

    /// Runs the client to its end; its stdout's JSON lines. The process is waited for (it ends by itself: each of its
    /// reads has its own deadline).
    static func client(_ arguments: [String]) throws -> [[String: Any]] {
        // Its own reads have deadlines; the harness's safety net only catches a client that hangs anyway.
        let result = try ChildProcess.run([python, script] + arguments, timeout: 300)
        guard result.status == 0 else { throw WebTestError("aiortc client exited \(result.status): \(result.err.suffix(800))") }
        return result.out.split(separator: "\n").map { json(Data($0.utf8)) }
    }

    /// aiortc's answer goes back as it wrote it (a=setup:active): aiortc is the DTLS client and offers only ECDHE-ECDSA
    /// suites, so this handshake completes only because the camera serves an ECDSA certificate; the a=setup:passive
    /// the answer needed while the camera had only GStreamer's RSA one is no longer needed. The offer's fingerprint is
    /// that certificate's.
    @Test func aiortcReceivesTheBarsAtTheCameraRate() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let lines = try Self.client([String(host.port), "watch", "5"])
        let report = try #require(lines.last { $0["received"] != nil }, "\(lines)")
        let received = report["received"] as? Int ?? 0, spanned = report["spanned"] as? Int ?? 0
        print("aiortc: \(received) frames of the \(spanned) their timestamps span at 30 fps; \(report["bars"] ?? "")")
        #expect(spanned >= 100, "\(report)")
        #expect(Double(received) >= 0.95 * Double(spanned), "\(report)")
        let bars = report["bars"] as? [String: [Int]] ?? [:]
        // videotestsrc's SMPTE bars at full intensity, within a few levels after H.264.
        #expect(bars["white"].map { $0.allSatisfy { $0 >= 245 } } == true, "\(bars)")
        #expect(bars["yellow"].map { $0[0] >= 245 && $0[1] >= 245 && $0[2] <= 10 } == true, "\(bars)")
        #expect(bars["cyan"].map { $0[0] <= 10 && $0[1] >= 245 && $0[2] >= 245 } == true, "\(bars)")
        #expect(!lines.contains { $0["error"] != nil }, "\(lines)")
        let dtls = report["dtls"] as? [String: Any] ?? [:]
        print("aiortc DTLS: \(dtls)")
        #expect((dtls["suite"] as? String)?.hasPrefix("ECDHE-ECDSA-") == true, "\(dtls)")
        #expect(dtls["key"] as? String == "ECDSA secp256r1", "\(dtls)")
        let offered = dtls["offered"] as? [String] ?? []
        #expect(!offered.isEmpty && offered.allSatisfy { $0 == dtls["certificate"] as? String }, "\(dtls)")
    }

    /// A client the camera's certificate cannot serve (aiortc offering only ECDHE-RSA suites to its ECDSA certificate):
    /// the page is told, the host's stderr gets one line naming the viewer and where it came from and why, and the host
    /// goes on serving: a normal client then gets video.
    @Test func aFailedHandshakeIsToldWithItsReason() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let lines = try Self.client([String(host.port), "watch", "1", "rsa-only"])
        let error = lines.compactMap { $0["error"] as? String }.first ?? ""
        #expect(error.contains("DTLS handshake failed"), "\(lines)")
        #expect(!lines.contains { $0["received"] != nil }, "\(lines)")
        let told = host.errorText.split(separator: "\n").filter { $0.contains("DTLS handshake failed") }
        #expect(told.count == 1, "\(host.errorText.suffix(800))")
        let line = told.first.map(String.init) ?? ""
        #expect(line.contains(try Regex(#"WebRTC viewer \d+ at 127\.0\.0\.1:\d+ ended"#)), "\(line)")
        #expect(line.contains("no cipher suite for the camera's ECDSA certificate"), "\(line)")
        #expect(!line.contains("Fatal SSL error") && !line.contains("Could not read"), "GStreamer's words are for the debug log: \(line)")
        let after = try Self.client([String(host.port), "watch", "1"])
        #expect(after.contains { ($0["received"] as? Int ?? 0) > 0 }, "\(after)")
        #expect(host.child.isRunning)
    }

    @Test func afterEveryHostileMessageANormalPageIsServed() throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var files: [String] = []
        for (index, (message, _)) in HostileClientTests.hostile.enumerated() {
            let file = scratch.appendingPathComponent("hostile-\(index).txt")
            try message.write(to: file, atomically: true, encoding: .utf8)
            files.append(file.path)
        }
        let corpus = WebHost.repository.appendingPathComponent("Tests/Fuzz/Corpus/Signalling")
        files += try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().map { corpus.appendingPathComponent($0).path }
        let lines = try Self.client([String(host.port), "hostile"] + files)
        #expect(lines.count == files.count, "\(lines)")
        for line in lines {
            #expect(line["offered"] as? Bool == true && line["alive"] as? Bool == true && line["served"] as? Bool == true, "\(line)")
        }
        #expect(host.child.isRunning)
        #expect(!host.errorText.contains("CRITICAL"), "\(host.errorText.suffix(800))")
    }
}

/// Where scripts/test.sh puts the client's Python.
enum AiortcClient {
    static let python = WebHost.repository.appendingPathComponent(".build/webrtc-venv/bin/python").path
}
