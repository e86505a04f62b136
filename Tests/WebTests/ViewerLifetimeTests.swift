import Foundation
import TestSupport
import Testing

/// Whole WebRTC viewer lifetimes, in Chromium against one host: watch, ICE, DTLS (the certificate checked), decoded
/// frames, close; over and over. The host's resident size after them stays within 10 MB of where it was after the
/// first few (GStreamer's plugins loaded, the encoder running, the allocator's arenas made). `make load-webrtc` runs
/// 1000 lifetimes (SWIFTCAM_VIEWER_LIFETIMES); `make test` a short run of 24.
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct ViewerLifetimeTests {
    static var lifetimes: Int {
        ProcessInfo.processInfo.environment["SWIFTCAM_VIEWER_LIFETIMES"].flatMap { Int($0) }.map { min(max($0, 4), 100_000) } ?? 24
    }

    /// Runs `arguments[0]` viewer lifetimes, `arguments[1]` at a time, each until its video decodes a frame; resolves
    /// with the number that decoded.
    static let lifetimesScript = """
        const [total, lanes] = [arguments[0], arguments[1]];
        let started = 0, finished = 0, decoded = 0;
        const one = () => new Promise((resolve) => {
          const ws = new WebSocket('ws://' + location.host + '/ws');
          const pc = new RTCPeerConnection({ iceServers: [] });
          const video = document.createElement('video');
          video.muted = true; video.autoplay = true; video.width = 32; video.height = 24;
          document.body.append(video);
          const end = (ok) => { if (ok) decoded += 1; pc.close(); ws.close(); video.remove(); resolve(); };
          pc.ontrack = (e) => {
            video.srcObject = e.streams[0] || new MediaStream([e.track]);
            video.play().catch(() => {});
            video.requestVideoFrameCallback(() => end(true));
          };
          pc.onicecandidate = (e) => { if (e.candidate) ws.send(JSON.stringify({ type: 'ice', candidate: e.candidate.candidate, sdpMLineIndex: e.candidate.sdpMLineIndex })); };
          ws.onopen = () => ws.send(JSON.stringify({ type: 'watch' }));
          ws.onmessage = async (event) => {
            const m = JSON.parse(event.data);
            if (m.type === 'offer') {
              await pc.setRemoteDescription({ type: 'offer', sdp: m.sdp });
              const answer = await pc.createAnswer();
              await pc.setLocalDescription(answer);
              ws.send(JSON.stringify({ type: 'answer', sdp: answer.sdp }));
            } else if (m.type === 'ice') {
              pc.addIceCandidate({ candidate: m.candidate, sdpMLineIndex: m.sdpMLineIndex }).catch(() => {});
            } else if (m.type === 'error') {
              end(false);
            }
          };
        });
        const lane = async () => { while (started < total) { started += 1; await one(); finished += 1; } };
        Promise.all(Array.from({ length: lanes }, lane)).then(() => done(decoded));
        """

    @Test func viewerLifetimesGiveTheirMemoryBack() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser()
        try await browser.open(host.base.appendingPathComponent("api/status"))
        let pid = host.child.pid
        let warmup = 8, lanes = 2, total = Self.lifetimes
        let warmed = try await browser.wait(Self.lifetimesScript, [warmup, lanes], timeout: 120)
        #expect((warmed as? NSNumber)?.intValue == warmup, "\(warmed)")
        try await ConnectionLimitTests.waitForNoViewers(host)
        let before = try ConnectionLimitTests.usage(pid).resident
        let started = Date()
        // In batches: one WebDriver call must answer within its HTTP client's 180 s.
        var decoded = 0
        for first in stride(from: 0, to: total, by: 100) {
            let count = min(100, total - first)
            let batch = try await browser.wait(Self.lifetimesScript, [count, lanes], timeout: 170)
            decoded += (batch as? NSNumber)?.intValue ?? 0
        }
        let seconds = Date().timeIntervalSince(started)
        try await ConnectionLimitTests.waitForNoViewers(host)
        let after = try ConnectionLimitTests.usage(pid).resident
        let line = String(
            format: "viewer lifetimes: %d (%d decoded) in %.1f s; RSS %.1f MB after %d, %.1f MB after %d more (%+.1f MB)\n",
            total, decoded, seconds, Double(before) / 1_048_576, warmup, Double(after) / 1_048_576, total,
            Double(after - before) / 1_048_576)
        print(line, terminator: "")
        if let report = ProcessInfo.processInfo.environment["SWIFTCAM_LOAD_REPORT"], !report.isEmpty {
            try line.write(toFile: report, atomically: true, encoding: .utf8)
        }
        #expect(decoded == total, "\(decoded) of \(total) viewers decoded a frame")
        #expect(after <= before + 10 << 20, "RSS \(after >> 20) MB after \(total) lifetimes, \(before >> 20) MB before")
        await browser.quit()
    }
}
