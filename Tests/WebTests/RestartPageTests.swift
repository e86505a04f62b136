import Foundation
import Testing

extension PageTests {
    /// Resolves when the page shows the "away" banner: its text, whether the last frame is kept on screen (and its
    /// colour at a point), and whether the shutter waits.
    static let awayScript = """
        const [fx, fy] = [arguments[0], arguments[1]];
        const check = () => {
          const banner = document.getElementById('banner');
          if (banner.hidden || banner.className !== 'away') { requestAnimationFrame(check); return; }
          const canvas = document.getElementById('last-frame');
          let pixel = [];
          if (canvas.width > 0) {
            const d = canvas.getContext('2d').getImageData(Math.floor(fx * (canvas.width - 1)), Math.floor(fy * (canvas.height - 1)), 1, 1).data;
            pixel = [d[0], d[1], d[2]];
          }
          done([banner.textContent, !canvas.hidden, pixel, document.getElementById('shutter').disabled, window.sameDocument === true]);
        };
        check();
        """

    /// Resolves when the page plays WebRTC again on a peer connection other than `window.firstPeer`, its banner gone.
    static let backScript = """
        const video = document.getElementById('preview');
        const check = () => {
          const back = swiftcam.mode === 'webrtc' && swiftcam.peer && swiftcam.peer !== window.firstPeer
            && document.getElementById('banner').hidden && !document.getElementById('shutter').disabled;
          if (back) done([window.sameDocument === true, document.getElementById('last-frame').hidden]);
          else if (swiftcam.mode === 'mjpeg') done('fell back: ' + document.getElementById('notice').textContent);
          else requestAnimationFrame(check);
        };
        check();
        """

    /// Resolves when the MJPEG picture plays again from a new request, the kept frame gone and the banner too.
    static let mjpegBackScript = """
        const img = document.getElementById('mjpeg');
        const check = () => {
          const back = swiftcam.mode === 'mjpeg' && !img.hidden && img.src.includes('/stream.mjpg?') && img.naturalWidth > 0
            && document.getElementById('last-frame').hidden && document.getElementById('banner').hidden
            && !document.getElementById('shutter').disabled;
          if (back) done([window.sameDocument === true, true]); else requestAnimationFrame(check);
        };
        check();
        """

    /// The host restarts under an open page (with a token it keeps), over WebRTC and over MJPEG (a browser without
    /// WebRTC): while it is away the page says so and keeps the last frame; when it is back the page's WebSocket, its
    /// picture and its controls come back by themselves, on the same document (no reload) and with the cookie it had
    /// (no new URL).
    @Test(arguments: [false, true]) func thePageComesBackWhenTheHostRestarts(mjpeg: Bool) async throws {
        let first = try WebHost(config: "switch", arguments: ["--token", "generate"])
        let token = try TokenLifeTests.printedToken(first)
        let browser = try await Browser(width: 640, height: 480)
        defer { Task { await browser.quit() } }
        if mjpeg { try await browser.beforeEachPage("delete window.RTCPeerConnection;") }
        try await browser.open(try #require(URL(string: "http://127.0.0.1:\(first.port)/?token=\(token)")))
        if mjpeg {
            _ = try await browser.wait(
                """
                const img = document.getElementById('mjpeg');
                const check = () => { if (swiftcam.mode === 'mjpeg' && img.naturalWidth > 0) done(true); else requestAnimationFrame(check); };
                check();
                """)
        } else {
            let playing = try await browser.wait(Self.playingScript)
            try #require((playing as? [Any])?.count == 2, "the page did not play WebRTC video: \(playing)")
        }
        _ = try await browser.run("window.sameDocument = true; window.firstPeer = swiftcam.peer; return true;")
        let port = first.port
        first.stop()

        let away = try await browser.wait(Self.awayScript, [3.0 / 14, 0.3]) as? [Any] ?? []
        try #require(away.count == 5, "\(away)")
        #expect((away[0] as? String)?.contains("reconnecting") == true, "\(away)")
        #expect(away[1] as? Bool == true, "the last frame is not kept: \(away)")
        let pixel = (away[2] as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? []
        #expect(pixel.count == 3 && pixel[0] > 150 && pixel[1] > 150 && pixel[2] < 80, "the kept frame's yellow bar: \(pixel)")
        #expect(away[3] as? Bool == true, "the shutter works while the host is away")
        if !mjpeg { try Self.save(try await browser.screenshot(), as: "away.png") }

        let second = try WebHost(
            config: "switch", arguments: ["--http", "127.0.0.1:\(port)", "--token", "generate"], directory: first.directory)
        defer { second.stop() }
        let back = try await browser.wait(mjpeg ? Self.mjpegBackScript : Self.backScript, timeout: 60) as? [Any] ?? []
        try #require(back.count == 2, "the page did not come back: \(back)")
        #expect(back[0] as? Bool == true, "the page was reloaded")
        #expect(back[1] as? Bool == true, "the kept frame still covers the live one")
        if !mjpeg {
            _ = try await browser.wait(Self.countFrames)
            let frames = try await browser.wait(Self.presentsMoreFrames, [10], timeout: 60) as? [Any] ?? []
            #expect(frames.first as? String == "webrtc", "\(frames)")
        }
        // The controls act on the new host, with the cookie the page had.
        try await browser.click("#shutter")
        _ = try await browser.wait(
            """
            const img = document.getElementById('thumb-img');
            const check = () => { if (!img.hidden && img.complete && img.naturalWidth > 0) done(true); else requestAnimationFrame(check); };
            check();
            """)
        #expect(second.files(in: "captures").count == 1)
    }
}
