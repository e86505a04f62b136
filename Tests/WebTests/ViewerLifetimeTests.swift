import Foundation
import Testing

/// Whole WebRTC viewer lifetimes, in Chromium against one host: watch, ICE, DTLS (the certificate checked), decoded
/// frames, close; over and over. The host's resident size after them stays within 10 MB of where it was after the
/// first few (GStreamer's plugins loaded, the encoder running, the allocator's arenas made). `make load-webrtc` runs
/// 1000 lifetimes (SWIFTCAM_VIEWER_LIFETIMES); `make test` a short run of 24. With SWIFTCAM_HEAP_STATS=1 (and gdb) the
/// host's heap in use is read at the same two points: what its live allocations hold, apart from what the allocator
/// keeps of freed memory.
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

    /// Bytes in use in the host's heap, every arena and mmapped block: glibc's `malloc_stats` called in the host through
    /// gdb prints them on its stderr ("Total (incl. mmap)" then "in use bytes"). Nil unless SWIFTCAM_HEAP_STATS is set
    /// and gdb is installed. `asked` counts the calls so far (each adds one block to stderr).
    static func heapInUse(_ host: WebHost, asked: inout Int) throws -> Int? {
        guard ProcessInfo.processInfo.environment["SWIFTCAM_HEAP_STATS"] == "1", FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return nil }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", String(host.process.processIdentifier), "-batch", "-nx", "-ex", "call (void) malloc_stats()"]
        gdb.standardOutput = FileHandle.nullDevice
        gdb.standardError = FileHandle.nullDevice
        try gdb.run()
        gdb.waitUntilExit()
        asked += 1
        let marker = "Total (incl. mmap):"
        guard let err = host.waitForErrors(containing: marker, count: asked, timeout: 60),
              let block = err.components(separatedBy: marker).last,
              let line = block.split(separator: "\n").first(where: { $0.hasPrefix("in use bytes") }) else {
            throw WebTestError("no malloc_stats from the host: \(host.errorText.suffix(400))")
        }
        return line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test func viewerLifetimesGiveTheirMemoryBack() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser()
        try await browser.open(host.base.appendingPathComponent("api/status"))
        let pid = host.process.processIdentifier
        let warmup = 8, lanes = 2, total = Self.lifetimes
        let warmed = try await browser.wait(Self.lifetimesScript, [warmup, lanes], timeout: 120)
        #expect((warmed as? NSNumber)?.intValue == warmup, "\(warmed)")
        try await ConnectionLimitTests.waitForNoViewers(host)
        let before = try ConnectionLimitTests.usage(pid).resident
        var asked = 0
        let heapBefore = try Self.heapInUse(host, asked: &asked)
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
        let heapAfter = try Self.heapInUse(host, asked: &asked)
        var line = String(format: "viewer lifetimes: %d (%d decoded) in %.1f s; RSS %.1f MB after %d, %.1f MB after %d more (%+.1f MB)",
                          total, decoded, seconds, Double(before) / 1_048_576, warmup, Double(after) / 1_048_576, total,
                          Double(after - before) / 1_048_576)
        if let heapBefore, let heapAfter {
            line += String(format: "; heap in use %.1f MB, then %.1f MB (%+.1f MB)", Double(heapBefore) / 1_048_576,
                           Double(heapAfter) / 1_048_576, Double(heapAfter - heapBefore) / 1_048_576)
        }
        line += "\n"
        print(line, terminator: "")
        if let report = ProcessInfo.processInfo.environment["SWIFTCAM_LOAD_REPORT"], !report.isEmpty {
            try line.write(toFile: report, atomically: true, encoding: .utf8)
        }
        #expect(decoded == total, "\(decoded) of \(total) viewers decoded a frame")
        #expect(after <= before + 10 << 20, "RSS \(after >> 20) MB after \(total) lifetimes, \(before >> 20) MB before")
        if let heapBefore, let heapAfter {
            #expect(heapAfter <= heapBefore + 10 << 20, "heap in use \(heapAfter >> 20) MB after \(total) lifetimes, \(heapBefore >> 20) MB before")
        }
        await browser.quit()
    }
}
