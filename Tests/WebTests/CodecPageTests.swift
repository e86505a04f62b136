import Foundation
import Testing

extension PageTests {
    /// Makes the page's answer prefer `codec` (`VP8`, `H264`), as a browser whose own order puts it first would:
    /// `setCodecPreferences` on every transceiver before the answer is made.
    static func preferring(_ codec: String) -> String {
        """
        const createAnswer = RTCPeerConnection.prototype.createAnswer;
        RTCPeerConnection.prototype.createAnswer = function (...args) {
          const all = RTCRtpReceiver.getCapabilities('video').codecs;
          const first = all.filter((c) => c.mimeType === 'video/\(codec)');
          for (const transceiver of this.getTransceivers()) transceiver.setCodecPreferences([...first, ...all.filter((c) => !first.includes(c))]);
          return createAnswer.apply(this, args);
        };
        """
    }

    /// The codec the page's video plays in, once it has said.
    static let codecScript = """
        const check = () => { if (swiftcam.codec) done(swiftcam.codec); else setTimeout(check, 50); };
        check();
        """

    /// The offer lists H.264, VP8 and VP9; the viewer gets the one the browser's answer puts first, from that codec's own
    /// shared encoder (started by its first viewer), and the page, `/api/stats` and `/metrics` say which. A viewer
    /// choosing VP8 or VP9 leaves no H.264 encoder running (the one started to read the profile for its offer stops).
    @Test(arguments: ["VP8", "H264", "VP9"]) func theViewerGetsTheCodecItsAnswerPrefers(codec: String) async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser(width: 640, height: 480)
        defer { Task { await browser.quit() } }
        try await browser.beforeEachPage(Self.preferring(codec))
        try await browser.open(host.base)
        let playing = try await browser.wait(Self.playingScript)
        try #require((playing as? [Any])?.count == 2, "the page did not play WebRTC video: \(playing)")
        #expect(try await browser.wait(Self.codecScript) as? String == codec)
        let yellow = try await Self.pixel(browser, x: 3 / 14, y: 0.3)
        #expect(yellow.count == 3 && yellow[0] > 150 && yellow[1] > 150 && yellow[2] < 80, "the yellow bar in \(codec): \(yellow)")

        let name = codec.lowercased()
        let stats = json(try await http("GET", host.base.appendingPathComponent("api/stats")).body)
        let codecs = stats["webrtcCodecs"] as? [String: Int] ?? [:]
        #expect(codecs == ["h264": 0, "vp8": 0, "vp9": 0].merging([name: 1]) { $1 }, "every offered codec, this one's viewer: \(codecs)")
        let live = stats["live"] as? [String: [String: Any]] ?? [:]
        let format = codec == "H264" ? "video" : name
        for other in ["video", "vp8", "vp9"] {
            #expect(live[other]?["subscribers"] as? Int == (other == format ? 1 : 0), "\(other): \(live)")
        }
        let metrics = String(decoding: try await http("GET", host.base.appendingPathComponent("metrics")).body, as: UTF8.self)
        #expect(metrics.contains("swiftcam_webrtc_viewers{codec=\"\(name)\"} 1"), "\(metrics)")
        // The page's own overlay says it too.
        try await browser.click("#stats-toggle")
        let overlay = try await browser.wait(
            """
            const check = () => { const text = document.getElementById('stats').textContent; if (text.includes('video    webrtc')) done(text); else setTimeout(check, 50); };
            check();
            """)
        #expect((overlay as? String)?.contains("video    webrtc \(codec)") == true, "\(overlay)")
        #expect((overlay as? String)?.contains("webrtc 1 (\(name) 1)") == true, "\(overlay)")
    }
}

extension PageTests {
    /// Records every text the page puts over the picture while it waits (`window.waitingLog`).
    static let recordWaiting = """
        window.waitingLog = [];
        document.addEventListener('DOMContentLoaded', () => {
          const element = document.getElementById('waiting');
          new MutationObserver(() => { if (!element.hidden) window.waitingLog.push(element.textContent); })
            .observe(element, { childList: true, characterData: true, subtree: true, attributes: true });
        });
        """

    /// Holds back the video's `playing` event by `arguments[0]` ms, as a first frame that is slow to decode would.
    static func slowFirstFrame(milliseconds: Int) -> String {
        """
        const add = HTMLMediaElement.prototype.addEventListener;
        HTMLMediaElement.prototype.addEventListener = function (type, listener, ...rest) {
          if (type !== 'playing') return add.call(this, type, listener, ...rest);
          return add.call(this, type, (event) => setTimeout(() => listener.call(this, event), \(milliseconds)), ...rest);
        };
        """
    }

    /// Until the first frame the page says what it waits for, and the text goes when the picture shows. A connection
    /// that is delivering packets when the 6 s MJPEG timer runs out is waited for (its first frame 8 s late here), not
    /// replaced by MJPEG.
    @Test func thePageSaysWhatItWaitsForAndTheFallbackDoesNotRaceADeliveringConnection() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser(width: 640, height: 480)
        defer { Task { await browser.quit() } }
        try await browser.beforeEachPage(Self.recordWaiting + Self.slowFirstFrame(milliseconds: 8000))
        try await browser.open(host.base)
        let playing = try await browser.wait(Self.playingScript, timeout: 60)
        try #require((playing as? [Any])?.count == 2, "the page did not play WebRTC video: \(playing)")
        let log = try await browser.run("return [window.waitingLog, document.getElementById('waiting').hidden, swiftcam.waitingFor];")
        let said = (log as? [Any])?.first as? [String] ?? []
        #expect(said.first == "connecting to the camera (WebRTC)", "\(said)")
        #expect(said.contains { $0.hasPrefix("waiting for the first frame (") && $0.hasSuffix(" packets so far)") }, "\(said)")
        #expect(!said.contains("waiting for the MJPEG stream"), "\(said)")
        #expect((log as? [Any])?[1] as? Bool == true, "the waiting text stays over the picture")
        #expect(
            json(try await http("GET", host.base.appendingPathComponent("api/status")).body)["viewers"] as? [String: Int] == [
                "webrtc": 1, "mjpeg": 0
            ])
    }
}
