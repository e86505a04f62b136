import Foundation
import Testing

/// Glass-to-glass latency on loopback: the source stamps the host's wall clock into each frame (`"timecode":
/// true`), the page reads the stamp back from what it shows and compares it with its own clock (same machine).
/// Prints p50/p95 for WebRTC and MJPEG; speed is reported, not asserted (scripts/bench-web.sh runs this on the
/// release build).
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct LatencyTests {
    static let config = """
        { "description": "640x480 at 30 fps with the wall clock stamped into every frame (latency probe)",
          "sources": [{ "kind": "test", "pattern": "smpte", "timecode": true }],
          "caps": { "width": 640, "height": 480, "framerate": "30/1", "format": "I420" },
          "preview": "none", "still": { "directory": "captures" } }
        """

    /// Reads the 24-bit millisecond stamp from a canvas row (the band's middle row).
    static let decoder = """
        const stampOf = (context, w, h) => {
          const row = context.getImageData(0, Math.floor(h / 24), w, 1).data;
          let value = 0;
          for (let i = 0; i < 24; i++) {
            const x = Math.floor((i + 0.5) * w / 24) * 4;
            value = value * 2 + ((row[x] + row[x + 1] + row[x + 2]) / 3 > 128 ? 1 : 0);
          }
          return value;
        };
        const wrap = 1 << 24;
        const latencyOf = (stamp, shownAt) => ((Math.floor(shownAt) % wrap) - stamp + wrap) % wrap;
        """

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func report(_ name: String, _ samples: [Double]) -> String {
        String(
            format: "latency %@ 640x480@30: p50 %.0f ms, p95 %.0f ms, min %.0f ms, max %.0f ms (%d frames)",
            name, percentile(samples, 0.5), percentile(samples, 0.95), samples.min() ?? .nan, samples.max() ?? .nan, samples.count)
    }

    @Test func webRTCAndMJPEGLatency() async throws {
        let host = try WebHost(config: "latency", json: Self.config)
        defer { host.stop() }
        let browser = try await Browser(width: 800, height: 600)
        try await browser.open(host.base)
        _ = try await browser.wait(PageTests.playingScript)
        // WebRTC: every frame the video element presents, stamped against the time it is expected on screen.
        let rtc = try await browser.wait(
            Self.decoder + """
                const video = document.getElementById('preview');
                const canvas = document.createElement('canvas');
                const samples = []; let last = -1;
                const step = (now, frame) => {
                  canvas.width = video.videoWidth; canvas.height = video.videoHeight;
                  const context = canvas.getContext('2d', { willReadFrequently: true });
                  context.drawImage(video, 0, 0);
                  const stamp = stampOf(context, canvas.width, canvas.height);
                  if (stamp !== last) {
                    last = stamp;
                    const latency = latencyOf(stamp, performance.timeOrigin + frame.expectedDisplayTime);
                    if (latency < 10000) samples.push(latency);
                  }
                  if (samples.length >= arguments[0]) done(samples); else video.requestVideoFrameCallback(step);
                };
                video.requestVideoFrameCallback(step);
                """, [300], timeout: 120)
        let rtcSamples = (rtc as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
        // MJPEG: the page's own reader of /stream.mjpg, each JPEG decoded and read at once.
        let mjpeg = try await browser.wait(
            Self.decoder + """
                const canvas = document.createElement('canvas');
                const context = canvas.getContext('2d', { willReadFrequently: true });
                const samples = []; const want = arguments[0];
                const response = await fetch('/stream.mjpg');
                const reader = response.body.getReader();
                let buffer = new Uint8Array(0);
                const find = (bytes, text, from) => {
                  const pattern = new TextEncoder().encode(text);
                  outer: for (let i = from; i <= bytes.length - pattern.length; i++) {
                    for (let j = 0; j < pattern.length; j++) if (bytes[i + j] !== pattern[j]) continue outer;
                    return i;
                  }
                  return -1;
                };
                while (samples.length < want) {
                  const { value, done: ended } = await reader.read();
                  if (ended) break;
                  const joined = new Uint8Array(buffer.length + value.length);
                  joined.set(buffer); joined.set(value, buffer.length); buffer = joined;
                  while (true) {
                    const headerEnd = find(buffer, '\\r\\n\\r\\n', 0);
                    if (headerEnd < 0) break;
                    const header = new TextDecoder().decode(buffer.slice(0, headerEnd));
                    const match = /Content-Length: (\\d+)/i.exec(header);
                    if (!match) { buffer = buffer.slice(headerEnd + 4); continue; }
                    const length = parseInt(match[1]);
                    if (buffer.length < headerEnd + 4 + length) break;
                    const jpeg = buffer.slice(headerEnd + 4, headerEnd + 4 + length);
                    buffer = buffer.slice(headerEnd + 4 + length);
                    const bitmap = await createImageBitmap(new Blob([jpeg], { type: 'image/jpeg' }));
                    canvas.width = bitmap.width; canvas.height = bitmap.height;
                    context.drawImage(bitmap, 0, 0);
                    const latency = latencyOf(stampOf(context, canvas.width, canvas.height), performance.timeOrigin + performance.now());
                    if (latency < 10000) samples.push(latency);
                  }
                }
                reader.cancel();
                done(samples);
                """, [150], timeout: 120)
        let mjpegSamples = (mjpeg as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
        await browser.quit()
        print(Self.report("webrtc", rtcSamples))
        print(Self.report("mjpeg", mjpegSamples))
        let lines = [Self.report("webrtc", rtcSamples), Self.report("mjpeg", mjpegSamples)].joined(separator: "\n") + "\n"
        if let path = ProcessInfo.processInfo.environment["SWIFTCAM_LATENCY_REPORT"] {
            try lines.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(rtcSamples.count >= 300)
        #expect(mjpegSamples.count >= 150)
        // A decoded stamp is a real time: not in the future, not from another minute.
        #expect(rtcSamples.allSatisfy { $0 >= 0 && $0 < 5000 })
        #expect(mjpegSamples.allSatisfy { $0 >= 0 && $0 < 5000 })
    }
}
