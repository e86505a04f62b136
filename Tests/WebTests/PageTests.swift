import Capture
import Foundation
import GStreamer
import Testing

/// The camera page in headless Chromium against a real `swiftcam run --http`: the live picture, every button,
/// the gestures, the banner. WebRTC's ICE checks go wherever candidates point, so these run only in a network
/// namespace whose one interface is `lo` (scripts/test.sh web: `unshare --net`, then `ip link set lo up`).
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct PageTests {
    /// Where the screenshots are written: `.build/screenshots` in a test run, so no run rewrites tracked files;
    /// the folder `SWIFTCAM_SCREENSHOTS` names (relative to the repository) for `make screenshots`, which renews the
    /// README's in `docs/screenshots`.
    static let screenshots: URL = {
        let folder = ProcessInfo.processInfo.environment["SWIFTCAM_SCREENSHOTS"].flatMap { $0.isEmpty ? nil : $0 } ?? ".build/screenshots"
        return folder.hasPrefix("/") ? URL(fileURLWithPath: folder) : WebHost.repository.appendingPathComponent(folder)
    }()

    /// The colour at a point of the live picture (fractions of its width and height), read from the video
    /// element (or the MJPEG image) through a canvas, after the next frame the browser shows.
    static let pixelScript = """
        const [fx, fy] = [arguments[0], arguments[1]];
        const element = swiftcam.mode === 'mjpeg' ? document.getElementById('mjpeg') : document.getElementById('preview');
        const read = () => {
          const w = element.videoWidth || element.naturalWidth, h = element.videoHeight || element.naturalHeight;
          const canvas = document.createElement('canvas');
          canvas.width = w; canvas.height = h;
          const context = canvas.getContext('2d');
          context.drawImage(element, 0, 0, w, h);
          const d = context.getImageData(Math.floor(fx * (w - 1)), Math.floor(fy * (h - 1)), 1, 1).data;
          done([d[0], d[1], d[2]]);
        };
        if (element.requestVideoFrameCallback) element.requestVideoFrameCallback(read); else requestAnimationFrame(read);
        """

    /// Resolves once the page shows live WebRTC video (its first frames decoded).
    static let playingScript = """
        const video = document.getElementById('preview');
        const check = () => {
          if (swiftcam.mode === 'webrtc' && video.videoWidth > 0 && video.currentTime > 0) done([video.videoWidth, video.videoHeight]);
          else if (swiftcam.mode === 'mjpeg') done('fell back: ' + document.getElementById('notice').textContent);
          else requestAnimationFrame(check);
        };
        check();
        """

    /// Resolves when `predicate(pixel)` holds for the pixel at (x, y), checked at every new frame.
    static func waitForPixel(_ browser: Browser, x: Double, y: Double, _ predicate: String) async throws -> [Int] {
        let value = try await browser.wait(
            """
            const [fx, fy] = [arguments[0], arguments[1]];
            const video = document.getElementById('preview');
            const canvas = document.createElement('canvas');
            const test = (p) => { const [r, g, b] = p; return \(predicate); };
            const step = () => {
              canvas.width = video.videoWidth; canvas.height = video.videoHeight;
              const context = canvas.getContext('2d');
              context.drawImage(video, 0, 0);
              const d = context.getImageData(Math.floor(fx * (canvas.width - 1)), Math.floor(fy * (canvas.height - 1)), 1, 1).data;
              const p = [d[0], d[1], d[2]];
              if (test(p)) done(p); else video.requestVideoFrameCallback(step);
            };
            video.requestVideoFrameCallback(step);
            """, [x, y])
        return (value as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? []
    }

    static func pixel(_ browser: Browser, x: Double, y: Double) async throws -> [Int] {
        let value = try await browser.wait(pixelScript, [x, y])
        return (value as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? []
    }

    static func save(_ data: Data, as name: String) throws {
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        try data.write(to: screenshots.appendingPathComponent(name))
    }

    /// A host playing `pipelines/switch.json` (SMPTE bars and a ball) and a browser showing its page live.
    static func livePage(width: Int = 800, height: Int = 600) async throws -> (WebHost, Browser) {
        let host = try WebHost(config: "switch")
        let browser = try await Browser(width: width, height: height)
        try await browser.open(host.base)
        let playing = try await browser.wait(playingScript)
        guard let size = playing as? [Any], size.count == 2 else {
            await browser.quit()
            throw WebTestError("the page did not play WebRTC video: \(playing)")
        }
        return (host, browser)
    }

    @Test func thePageLoadsAndTheVideoPlaysTheColourBars() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        // The playing page is a WebRTC viewer, and /metrics counts it by kind.
        let metrics = try await http("GET", host.base.appendingPathComponent("metrics"))
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(
            metrics.status == 200 && text.contains("swiftcam_viewers{kind=\"webrtc\"} 1\n")
                && text.contains("swiftcam_viewers{kind=\"mjpeg\"} 0\n"),
            "\(text)")
        // videotestsrc's SMPTE bars (full intensity in GStreamer 1.22): white, yellow, cyan, … across the top two thirds.
        let white = try await Self.pixel(browser, x: 1 / 14, y: 0.3)
        let yellow = try await Self.pixel(browser, x: 3 / 14, y: 0.3)
        let cyan = try await Self.pixel(browser, x: 5 / 14, y: 0.3)
        #expect(white.count == 3 && white.allSatisfy { $0 > 210 }, "white bar \(white)")
        #expect(yellow.count == 3 && yellow[0] > 210 && yellow[1] > 210 && yellow[2] < 50, "yellow bar \(yellow)")
        #expect(cyan.count == 3 && cyan[0] < 50 && cyan[1] > 210 && cyan[2] > 210, "cyan bar \(cyan)")
        // The picture moves (the bars' noise corner): two screenshots of the video differ.
        let first = try await browser.screenshot(of: "#preview")
        _ = try await browser.wait(
            "document.getElementById('preview').requestVideoFrameCallback(() => requestAnimationFrame(() => done(true)));")
        let second = try await browser.screenshot(of: "#preview")
        #expect(first.count > 1000 && second.count > 1000)
        #expect(first != second)
        try Self.save(try await browser.screenshot(), as: "preview.png")
        let state = try await browser.run(
            "return [swiftcam.state.status, document.getElementById('switch').disabled, document.getElementById('torch').hidden]")
        #expect("\(state)".contains("configured"))
        #expect((state as? [Any])?[1] as? Bool == false)  // two sources: switch is enabled
        #expect((state as? [Any])?[2] as? Bool == true)  // test patterns have no torch: hidden
        await browser.quit()
    }

    @Test func theShutterAddsAFileAndANewThumbnail() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        #expect(host.files(in: "captures").isEmpty)
        try await browser.click("#shutter")
        let shown = try await browser.wait(
            """
            const img = document.getElementById('thumb-img');
            const check = () => { if (!img.hidden && img.complete && img.naturalWidth > 0 && img.src.includes('/captures/')) done(decodeURIComponent(img.src.split('/captures/')[1])); else requestAnimationFrame(check); };
            check();
            """)
        let files = host.files(in: "captures")
        #expect(files.count == 1)
        #expect(files.first == shown as? String)
        // A second press: a second file, and the thumbnail follows it.
        try await browser.click("#shutter")
        let second = try await browser.wait(
            """
            const img = document.getElementById('thumb-img'); const before = arguments[0];
            const check = () => { const name = decodeURIComponent(img.src.split('/captures/')[1] || ''); if (name && name !== before && img.complete && img.naturalWidth > 0) done(name); else requestAnimationFrame(check); };
            check();
            """, [shown as? String ?? ""])
        #expect(host.files(in: "captures").count == 2)
        #expect(host.files(in: "captures").contains(second as? String ?? "?"))
        // The gallery: newest first, both there; a full view with a download link.
        try await browser.click("#thumb")
        let tiles = try await browser.wait(
            """
            const check = () => { const n = document.querySelectorAll('#grid button').length; if (!document.getElementById('gallery').hidden && n > 0) done([n, document.querySelector('#grid button').title]); else requestAnimationFrame(check); };
            check();
            """)
        #expect((tiles as? [Any])?.first as? Int == 2)
        #expect((tiles as? [Any])?.last as? String == second as? String)
        try Self.save(try await browser.screenshot(), as: "gallery.png")
        try await browser.click("#grid button")
        let download = try await browser.run(
            "return [document.getElementById('viewer').hidden, document.getElementById('download').getAttribute('href')]")
        #expect((download as? [Any])?.first as? Bool == false)
        #expect(((download as? [Any])?.last as? String)?.hasPrefix("/captures/") == true)
        await browser.quit()
    }

    @Test func anEmptyGallerySaysSo() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser()
        try await browser.open(host.base)
        try await browser.click("#thumb")
        let empty = try await browser.wait(
            """
            const check = () => { const e = document.getElementById('gallery-empty'); if (!document.getElementById('gallery').hidden && !e.hidden) done(e.textContent); else requestAnimationFrame(check); };
            check();
            """)
        #expect(empty as? String == "No photos yet")
        await browser.quit()
    }

    @Test func switchChangesThePicture() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        let before = try await Self.pixel(browser, x: 0.02, y: 0.05)
        #expect(before.allSatisfy { $0 > 140 }, "the white bar first: \(before)")
        try await browser.click("#switch")
        // The second source is a ball on black: the corner goes dark.
        let after = try await Self.waitForPixel(browser, x: 0.02, y: 0.05, "r < 50 && g < 50 && b < 50")
        #expect(after.allSatisfy { $0 < 50 })
        await browser.quit()
    }

    @Test func aTapFocusesThereAndALongPressMeters() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        // The picture's rectangle inside the element (object-fit: contain), computed here independently of the page.
        let rect = try await browser.run(
            """
            const v = document.getElementById('preview'); const b = v.getBoundingClientRect();
            const s = Math.min(b.width / v.videoWidth, b.height / v.videoHeight);
            const w = v.videoWidth * s, h = v.videoHeight * s;
            return [b.left + (b.width - w) / 2, b.top + (b.height - h) / 2, w, h];
            """)
        let r = try #require((rect as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue })
        let (tapX, tapY) = (r[0] + 0.3 * r[2], r[1] + 0.6 * r[3])
        try await browser.tap(x: tapX, y: tapY)
        let posted = try await browser.wait(
            """
            const check = () => { const reply = swiftcam.replies.find((x) => (x.command || '').startsWith('focus ')); if (reply) done(reply.command); else requestAnimationFrame(check); };
            check();
            """)
        let parts = (posted as? String ?? "").split(separator: " ").compactMap { Double($0) }
        #expect(parts.count == 2)
        #expect(abs((parts.first ?? 0) - 0.3) <= 0.01 && abs((parts.last ?? 0) - 0.6) <= 0.01, "focus \(parts) for a tap at 0.3 0.6")
        let ring = try await browser.run(
            """
            const ring = document.getElementById('ring'); const b = ring.getBoundingClientRect();
            return [ring.hidden, ring.className, b.left + b.width / 2, b.top + b.height / 2];
            """)
        let values = ring as? [Any] ?? []
        #expect(values.first as? Bool == false)
        #expect(values.count == 4 && values[1] as? String == "focus")
        if values.count == 4, let x = (values[2] as? NSNumber)?.doubleValue, let y = (values[3] as? NSNumber)?.doubleValue {
            #expect(abs(x - tapX) < 3 && abs(y - tapY) < 3, "ring at \(x),\(y), tap at \(tapX),\(tapY)")
        }
        try await browser.tap(x: r[0] + 0.7 * r[2], y: r[1] + 0.2 * r[3], holdMilliseconds: 900)
        let metered = try await browser.wait(
            """
            const check = () => { const reply = swiftcam.replies.find((x) => (x.command || '').startsWith('exposure ')); if (reply) done([reply.command, reply.ok]); else requestAnimationFrame(check); };
            check();
            """)
        let exposure = ((metered as? [Any])?.first as? String ?? "").split(separator: " ").compactMap { Double($0) }
        #expect(exposure.count == 2 && abs(exposure[0] - 0.7) <= 0.01 && abs(exposure[1] - 0.2) <= 0.01, "\(String(describing: metered))")
        #expect((metered as? [Any])?.last as? Bool == true)  // software spot metering works on any source
        await browser.quit()
    }

    @Test func wheelZoomShowsTheClampedFactor() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        try await browser.run(
            """
            const stage = document.getElementById('stage');
            for (let i = 0; i < 40; i++) stage.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true, cancelable: true }));
            """)
        let zoom = try await browser.wait(
            """
            const check = () => { const reply = swiftcam.replies.find((x) => (x.command || '').startsWith('zoom ')); if (reply) done([reply.reply, document.getElementById('zoom').textContent]); else requestAnimationFrame(check); };
            check();
            """)
        let values = zoom as? [Any] ?? []
        #expect((values.first as? String)?.hasPrefix("zoom 16.0") == true, "\(values)")
        #expect(values.last as? String == "16.0×")
        await browser.quit()
    }

    @Test func aPinchZoomsByTheFingersSpread() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        try await browser.pinch(x: 400, y: 250, from: 100, to: 300)
        let zoom = try await browser.wait(
            """
            const check = () => { const reply = swiftcam.replies.find((x) => (x.command || '').startsWith('zoom ')); if (reply) done([reply.command, document.getElementById('zoom').textContent]); else requestAnimationFrame(check); };
            check();
            """)
        let values = zoom as? [Any] ?? []
        let factor = Double((values.first as? String ?? "").split(separator: " ").last ?? "") ?? 0
        #expect(factor > 2.5 && factor < 3.5, "a pinch from 100 to 300 px: \(values)")
        #expect((values.last as? String)?.hasSuffix("×") == true)
        await browser.quit()
    }

    @Test func choosingMonoMakesTheVideoGrey() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        let yellow = try await Self.pixel(browser, x: 3 / 14, y: 0.3)
        #expect(yellow.count == 3 && yellow[0] - yellow[2] > 100, "yellow first: \(yellow)")
        // A zoom puts a software stage before the user's chain; the picker still marks the filter the user chose.
        #expect(try host.ctl("zoom 1.2").isOK)
        try await browser.click("#filters")
        _ = try await browser.wait(
            """
            const check = () => { if (document.querySelector('#filter-list button[data-name="mono"]')) done(true); else requestAnimationFrame(check); };
            check();
            """)
        try await browser.click("#filter-list button[data-name=\"mono\"]")
        let grey = try await Self.waitForPixel(browser, x: 3 / 14, y: 0.3, "Math.max(r, g, b) - Math.min(r, g, b) < 24")
        #expect(grey.count == 3)
        let stats = try host.ctl("stats")
        #expect(stats.description.contains("mono"), "\(stats)")
        let marked = try await browser.wait(
            """
            const check = () => { const b = document.querySelector('#filter-list button[aria-pressed="true"]'); if (b && swiftcam.state.filter === 'mono') done(b.dataset.name); else requestAnimationFrame(check); };
            check();
            """)
        #expect(marked as? String == "mono")
        try Self.save(try await browser.screenshot(), as: "filters.png")
        // A parameter with a unit shows it beside its value: temperature's kelvin.
        try await browser.click("#filter-list button[data-name=\"temperature\"]")
        let kelvin = try await browser.wait(
            """
            const check = () => { const o = document.querySelector('#filter-params output'); if (o) done(o.textContent); else requestAnimationFrame(check); };
            check();
            """)
        #expect(kelvin as? String == "6500 K", "\(kelvin)")
        // What the slider shows is what runs: vignette's radius=1 was applied as 0.991 (a step of a hundredth of the
        // range put 1 between steps).
        try await browser.click("#filter-list button[data-name=\"vignette\"]")
        let radius = try await browser.wait(
            """
            const check = () => { const s = document.querySelector('#filter-params input[data-key="radius"]'); if (s && swiftcam.state.filter.startsWith('vignette')) done([s.nextElementSibling.textContent, swiftcam.state.filter]); else requestAnimationFrame(check); };
            check();
            """)
        let shownAndRun = radius as? [String] ?? []
        #expect(shownAndRun.first == "1" && shownAndRun.last?.contains("radius=0.99") == false, "\(shownAndRun)")
        await browser.quit()
    }

    /// The example plugin (Examples/MyFilters) as scripts/myfilters-check.sh leaves it, or the file
    /// `SWIFTCAM_MYFILTERS_PLUGIN` names; nil when it has not been built.
    static let myFiltersPlugin: String? = {
        let environment = ProcessInfo.processInfo.environment["SWIFTCAM_MYFILTERS_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }
        let path = environment ?? WebHost.repository.appendingPathComponent(".build/myfilters/debug/libgstmyfilters.so").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }()

    /// A host with the MyFilters plugin loaded by its config, on a moving scene (videotestsrc's ball on black) that
    /// `motion` watches: the picker lists the plugin's filters like built-ins and choosing `duotone` turns the black
    /// background its dark blue; the motion shows as the marker and an entry in the event list.
    @Test(
        .enabled(
            if: myFiltersPlugin != nil,
            "the example plugin is not built: scripts/myfilters-check.sh builds it (make test does, before this stage)"))
    func aPluginsFiltersAreInThePickerAndMotionShowsInTheEventList() async throws {
        let plugin = try #require(Self.myFiltersPlugin)
        let host = try WebHost(
            config: "plugin-motion",
            json: """
                { "plugins": ["\(plugin)"], "sources": [{ "kind": "test", "pattern": "ball" }],
                  "caps": { "width": 320, "height": 240, "framerate": "30/1", "format": "I420" },
                  "analyze": [{ "motion": { "cooldown": 5 } }] }
                """)
        defer { host.stop() }
        let browser = try await Browser()
        defer { Task { await browser.quit() } }
        try await browser.open(host.base)
        let playing = try await browser.wait(Self.playingScript)
        try #require(playing as? [Any] != nil, "the page did not play WebRTC video: \(playing)")
        // The ball moves from the first frame: the marker says MOTION and the list's newest entry is its start.
        let shown =
            try await browser.wait(
                """
                const marker = document.getElementById('event-marker'), list = document.getElementById('event-list');
                const check = () => {
                  const first = list.querySelector('li');
                  if (!marker.hidden && !list.hidden && first) done([marker.textContent, first.textContent]); else requestAnimationFrame(check);
                };
                check();
                """) as? [String] ?? []
        #expect(shown.first == "MOTION", "\(shown)")
        #expect(shown.last?.hasPrefix("motion start area=") == true && shown.last?.contains(" box=") == true, "\(shown)")
        #expect(try host.ctl("stats").description.contains("motion"))
        try Self.save(try await browser.screenshot(), as: "events.png")

        // The background is black before the filter.
        let before = try await Self.pixel(browser, x: 0.02, y: 0.05)
        #expect(before.count == 3 && before.allSatisfy { $0 < 40 }, "black first: \(before)")
        try await browser.click("#filters")
        let names =
            try await browser.wait(
                """
                const check = () => {
                  const names = [...document.querySelectorAll('#filter-list button')].map((b) => b.dataset.name);
                  if (names.includes('duotone')) done(names); else requestAnimationFrame(check);
                };
                check();
                """) as? [String] ?? []
        #expect(names.contains("duotone") && names.contains("emboss") && names.contains("mono"), "\(names)")
        try await browser.click("#filter-list button[data-name=\"duotone\"]")
        // duotone's dark colour: hue 240 at 35 % value, (0, 0, 89).
        let blue = try await Self.waitForPixel(browser, x: 0.02, y: 0.05, "b > 60 && b - r > 40 && b - g > 40")
        #expect(blue.count == 3)
        #expect(try host.ctl("stats").description.contains("duotone"))
        try Self.save(try await browser.screenshot(), as: "plugin-filters.png")
    }

    @Test func recordOnAndOffLeavesAPlayableFile() async throws {
        let (host, browser) = try await Self.livePage()
        defer { host.stop() }
        try await browser.click("#record")
        _ = try await browser.wait(
            """
            const check = () => { if (document.getElementById('record').getAttribute('aria-pressed') === 'true') done(true); else requestAnimationFrame(check); };
            check();
            """)
        #expect(try host.ctl("wait 45").isOK)  // 45 more frames through the filter, while recording
        try await browser.click("#record")
        let stopped = try await browser.wait(
            """
            const check = () => { const reply = swiftcam.replies.find((x) => (x.reply || '').startsWith('recorded ')); if (reply) done(reply.reply); else requestAnimationFrame(check); };
            check();
            """)
        let files = host.files(in: "recordings")
        #expect(files.count == 1)
        let file = host.directory.appendingPathComponent("recordings/\(files.first ?? "")").path
        #expect((stopped as? String)?.hasSuffix(files.first ?? "?") == true)
        let decoded = try decodedFrames(of: file)
        #expect(decoded.frames >= 30, "\(decoded)")
        #expect(decoded.error == nil)
        // The last capture is a recording: the thumbnail shows a play sign, not an empty box.
        let thumbnail = try await browser.wait(
            """
            const check = () => { const v = document.getElementById('thumb-video'); if (v && !v.hidden) done([v.getBoundingClientRect().width > 0, document.getElementById('thumb-img').hidden]); else requestAnimationFrame(check); };
            check();
            """)
        #expect((thumbnail as? [Bool]) == [true, true], "\(String(describing: thumbnail))")
        try Self.save(try await browser.screenshot(), as: "recording-thumbnail.png")
        await browser.quit()
    }

    @Test func withoutWebRTCThePageFallsBackToMJPEGAndSaysSo() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser()
        try await browser.beforeEachPage("delete window.RTCPeerConnection;")
        try await browser.open(host.base)
        let notice = try await browser.wait(
            """
            const img = document.getElementById('mjpeg');
            const check = () => { if (swiftcam.mode === 'mjpeg' && img.complete && img.naturalWidth > 0) done(document.getElementById('notice').textContent); else requestAnimationFrame(check); };
            check();
            """)
        #expect((notice as? String)?.contains("MJPEG") == true)
        let yellow = try await Self.pixel(browser, x: 3 / 14, y: 0.3)
        #expect(yellow.count == 3 && yellow[0] > 150 && yellow[1] > 150 && yellow[2] < 80, "\(yellow)")
        let viewers = json(try await http("GET", host.base.appendingPathComponent("api/status")).body)["viewers"] as? [String: Any]
        #expect(viewers?["mjpeg"] as? Int == 1)
        #expect(viewers?["webrtc"] as? Int == 0)
        await browser.quit()
    }

    /// Chromium's answer sent with its `a=fingerprint` digest zeroed: Chromium's own DTLS check passes (the camera's
    /// certificate is the offer's), webrtcbin completes the handshake with any certificate, and only the camera's
    /// comparison of the peer's certificate with the answer stands between it and a stranger's video. The viewer is
    /// ended with the reason before any frame is sent; the page falls back to MJPEG saying why.
    @Test func anAnswerWhoseFingerprintIsNotThePeersCertificateGetsNoVideo() async throws {
        let host = try WebHost(config: "switch")
        defer { host.stop() }
        let browser = try await Browser()
        try await browser.beforeEachPage(
            """
            (() => {
            const original = WebSocket.prototype.send;
            WebSocket.prototype.send = function (data) {
              try {
                const message = JSON.parse(data);
                if (message.type === 'answer') {
                  message.sdp = message.sdp.replace(/a=fingerprint:(\\S+) ([0-9A-Fa-f:]+)/g,
                    (_, hash, digest) => 'a=fingerprint:' + hash + ' ' + digest.replace(/[0-9A-Fa-f]{2}/g, '00'));
                  data = JSON.stringify(message);
                }
              } catch (_) {}
              return original.call(this, data);
            };
            // What the peer connection received, read as the page closes it (its fallback to MJPEG).
            const close = RTCPeerConnection.prototype.close;
            RTCPeerConnection.prototype.close = function () {
              this.getStats().then((report) => {
                const received = { packets: 0, frames: 0 };
                report.forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') { received.packets = s.packetsReceived; received.frames = s.framesDecoded; } });
                window.received = received;
                close.call(this);
              });
            };
            })();
            """)
        try await browser.open(host.base)
        let outcome = try await browser.wait(
            """
            const video = document.getElementById('preview');
            const check = () => {
              if (swiftcam.mode === 'mjpeg' && window.received) done([document.getElementById('notice').textContent, window.received.packets, window.received.frames]);
              else requestAnimationFrame(check);
            };
            check();
            """)
        let values = outcome as? [Any] ?? []
        let notice = values.first as? String ?? ""
        #expect(notice.contains("does not match the answer's a=fingerprint"), "\(outcome)")
        #expect(values.count == 3 && (values[1] as? NSNumber)?.intValue == 0, "RTP packets received: \(outcome)")
        #expect(values.count == 3 && (values[2] as? NSNumber)?.intValue == 0, "frames decoded: \(outcome)")
        #expect(host.errorText.contains("does not match the answer's a=fingerprint"), "\(host.errorText.suffix(600))")
        await browser.quit()
    }

    /// Opens the page of `host` (whose camera cannot play) and waits for the banner of `status`; saves a screenshot
    /// of it as STATUS.png. Returns the banner's class and text.
    static func banner(_ status: String, of host: WebHost) async throws -> (className: String, text: String) {
        let browser = try await Browser()
        defer { Task { await browser.quit() } }
        try await browser.open(host.base)
        let banner = try await browser.wait(
            """
            const banner = document.getElementById('banner');
            const check = () => { if (!banner.hidden && banner.className === arguments[0]) done([banner.className, banner.textContent]); else requestAnimationFrame(check); };
            check();
            """, [status])
        try Self.save(try await browser.screenshot(), as: "\(status).png")
        let values = banner as? [Any] ?? []
        return (values.first as? String ?? "", values.last as? String ?? "")
    }

    /// A config whose one camera is the V4L2 node `device`.
    static func camera(_ device: String) -> String {
        """
        { "sources": [{ "kind": "v4l2", "device": "\(device)" }], "caps": { "width": 640, "height": 480 } }
        """
    }

    @Test func aMissingCameraShowsTheUnconfiguredBanner() async throws {
        let device = "/dev/video-swiftcam-missing"
        let host = try WebHost(config: "missing-camera", json: Self.camera(device), arguments: ["--no-control"])
        defer { host.stop() }
        let banner = try await Self.banner("unconfigured", of: host)
        #expect(banner.text.contains("unconfigured") && banner.text.contains(device), "\(banner)")
        #expect(host.errorText.contains("unconfigured"))
    }

    /// Records what the page does on the wire (runs before app.js): peer connections made (`peersMade`), messages sent
    /// and received on each WebSocket (`sockets`: `{ ws, sent, received, closed }`).
    static let recordWire = """
        window.peersMade = 0;
        const RealPeer = window.RTCPeerConnection;
        if (RealPeer) {
          window.RTCPeerConnection = function (...args) { window.peersMade += 1; return new RealPeer(...args); };
          window.RTCPeerConnection.prototype = RealPeer.prototype;
        }
        window.sockets = [];
        const RealSocket = window.WebSocket;
        window.WebSocket = function (url, protocols) {
          const ws = new RealSocket(url, protocols);
          const entry = { ws, sent: [], received: [], closed: null };
          window.sockets.push(entry);
          const send = ws.send.bind(ws);
          ws.send = (data) => { entry.sent.push(JSON.parse(data)); return send(data); };
          ws.addEventListener('message', (event) => entry.received.push(JSON.parse(event.data)));
          ws.addEventListener('close', (event) => { entry.closed = event.code; });
          return ws;
        };
        window.WebSocket.prototype = RealSocket.prototype;
        for (const name of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) window.WebSocket[name] = RealSocket[name];
        """

    /// The camera controls' state: disabled flags of shutter, record, filters and switch, and the zoom's aria-disabled.
    static let controlsScript = """
        return [...['shutter', 'record', 'filters', 'switch'].map((id) => document.getElementById(id).disabled),
                document.getElementById('zoom').getAttribute('aria-disabled') === 'true'];
        """

    /// With no camera the page tries no video (no peer connection, no `watch`, no MJPEG, no "Showing MJPEG" notice)
    /// and its camera controls are disabled; a `configured` state enables them and starts WebRTC, another status
    /// disables them again.
    @Test func withoutACameraThePageTriesNoVideoAndDisablesTheCameraControls() async throws {
        let host = try WebHost(config: "missing-camera", json: Self.camera("/dev/video-swiftcam-missing"), arguments: ["--no-control"])
        defer { host.stop() }
        let browser = try await Browser()
        defer { Task { await browser.quit() } }
        try await browser.beforeEachPage(Self.recordWire)
        try await browser.open(host.base)
        // The socket's state has arrived and been applied (the banner shows it): whatever the page starts on its
        // socket's opening and first state it has started by now.
        _ = try await browser.wait(
            """
            const banner = document.getElementById('banner');
            const check = () => {
              const first = window.sockets[0];
              if (first && first.received.some((m) => m.type === 'state') && !banner.hidden && banner.className === 'unconfigured') done(true);
              else requestAnimationFrame(check);
            };
            check();
            """)
        let wire =
            try await browser.run(
                """
                const mjpeg = document.getElementById('mjpeg');
                return [window.peersMade, window.sockets.flatMap((s) => s.sent.map((m) => m.type)), swiftcam.mode,
                        mjpeg.getAttribute('src') || '', document.getElementById('notice').hidden];
                """) as? [Any] ?? []
        try #require(wire.count == 5, "\(wire)")
        #expect(wire[0] as? Int == 0, "peer connections made: \(wire)")
        #expect(!((wire[1] as? [String]) ?? []).contains("watch"), "\(wire)")
        #expect(wire[2] as? String != "mjpeg" && wire[3] as? String == "" && wire[4] as? Bool == true, "\(wire)")
        #expect(try await browser.run(Self.controlsScript) as? [Bool] == [true, true, true, true, true])

        // The status becomes configured: the controls work (switch stays disabled: one source) and WebRTC starts. Each
        // state is applied and read in one script: the host's own state (still unconfigured) may arrive between two.
        let controls = Self.controlsScript.replacingOccurrences(of: "return ", with: "")
        let live =
            try await browser.run(
                """
                applyState(Object.assign({}, swiftcam.state, { status: 'configured' }));
                const controls = \(controls)
                return [window.peersMade, window.sockets[0].sent.map((m) => m.type), controls];
                """) as? [Any] ?? []
        try #require(live.count == 3, "\(live)")
        #expect(live[2] as? [Bool] == [false, false, false, true, false], "\(live)")
        #expect(live[0] as? Int == 1 && (live[1] as? [String])?.contains("watch") == true, "\(live)")
        let failed =
            try await browser.run(
                """
                applyState(Object.assign({}, swiftcam.state, { status: 'failed', message: 'failed: gone' }));
                \(Self.controlsScript)
                """) as? [Bool]
        #expect(failed == [true, true, true, true, true])
    }

    /// An open page keeps its WebSocket past the host's idle timeout: it says it is there (`ping`) within it.
    @Test func anOpenPageKeepsItsSocketPastTheIdleTimeout() async throws {
        let idle = 3
        let host = try WebHost(
            config: "missing-camera", json: Self.camera("/dev/video-swiftcam-missing"), arguments: ["--no-control"],
            environment: ["SWIFTCAM_WEB_IDLE_SECONDS": "\(idle)"])
        defer { host.stop() }
        let browser = try await Browser()
        defer { Task { await browser.quit() } }
        try await browser.beforeEachPage(Self.recordWire)
        try await browser.open(host.base)
        // Resolves at the first socket's close, or once it has sent pings spanning twice the idle time.
        let outcome =
            try await browser.wait(
                """
                const check = () => {
                  const first = window.sockets[0];
                  const pings = first ? first.sent.filter((m) => m.type === 'ping').length : 0;
                  if (first && first.closed !== null) done('closed ' + first.closed);
                  else if (pings >= 6) done('open after ' + pings + ' pings');
                  else requestAnimationFrame(check);
                };
                check();
                """, timeout: 60) as? String
        #expect(outcome == "open after 6 pings", "\(outcome ?? "nothing")")
        #expect((try await browser.run("return window.sockets.length;") as? Int) == 1)
    }

    /// A token host opened in a browser without the token shows a page that says what to do, not JSON.
    @Test func aTokenHostOpenedWithoutTheTokenSaysWhatToDo() async throws {
        let token = "test-token-0123456789"
        let host = try WebHost(config: "switch", arguments: ["--token", token])
        defer { host.stop() }
        let browser = try await Browser()
        defer { Task { await browser.quit() } }
        try await browser.open(host.base)
        let shown = try await browser.run("return [document.title, document.body.innerText];") as? [String] ?? []
        #expect(shown.first == "SwiftCam: this camera needs its token", "\(shown)")
        #expect(shown.last?.contains("?token=") == true && shown.last?.contains("swiftcam run") == true, "\(shown)")
        // The printed URL opens the camera.
        try await browser.open(try #require(URL(string: "\(host.base.absoluteString)?token=\(token)")))
        #expect(try await browser.run("return document.getElementById('preview') !== null;") as? Bool == true)
    }

    /// A camera node the user may not open (root's, mode 0600, the host run as nobody): `unauthorized`, with the
    /// fix the CLI gives (join the video group).
    @Test(.enabled(if: getuid() == 0, "runs the host as nobody: needs root")) func aForbiddenCameraShowsTheUnauthorizedBanner() async throws
    {
        let node = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-forbidden-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: node.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw WebTestError("cannot create \(node.path)")
        }
        defer { try? FileManager.default.removeItem(at: node) }
        let host = try WebHost(config: "forbidden-camera", json: Self.camera(node.path), arguments: ["--no-control"], unprivileged: true)
        defer { host.stop() }
        let banner = try await Self.banner("unauthorized", of: host)
        #expect(
            banner.text.contains("unauthorized") && banner.text.contains(node.path) && banner.text.contains("usermod -aG video"),
            "\(banner)")
        Self.expectTheCLIsMessage("unauthorized", in: banner.text, host: host)
    }

    /// The banner says what the CLI printed (`status NAME: MESSAGE; the camera screen …`), word for word, less the
    /// status prefix the banner shows as its title.
    static func expectTheCLIsMessage(_ status: String, in banner: String, host: WebHost) {
        #expect(host.errorText.contains("status \(status)"))
        let message =
            host.errorText.components(separatedBy: "status \(status): ").last?.components(separatedBy: "; the camera screen").first ?? "?"
        #expect(banner.contains(message), "\(banner) vs \(message)")
    }

    /// A node that opens but is no camera (a plain file): the session's preflight finds it before the graph starts,
    /// and the page says `failed` with the reason and what to do, as the CLI does.
    @Test func aCameraThatFailsShowsTheFailedBanner() async throws {
        let node = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-not-a-camera-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: node.path, contents: nil) else { throw WebTestError("cannot create \(node.path)") }
        defer { try? FileManager.default.removeItem(at: node) }
        let host = try WebHost(config: "failing-camera", json: Self.camera(node.path), arguments: ["--no-control"])
        defer { host.stop() }
        let banner = try await Self.banner("failed", of: host)
        #expect(
            banner.text.contains("failed") && banner.text.contains(node.path) && banner.text.contains("is not a video capture device"),
            "\(banner)")
        Self.expectTheCLIsMessage("failed", in: banner.text, host: host)
    }
}

/// The frames a recording decodes to, and the first error if decoding hit one.
func decodedFrames(of file: String) throws -> (frames: Int, error: String?) {
    let demuxer = file.hasSuffix(".mp4") ? "qtdemux" : "matroskademux"
    let pipeline = try Pipeline.parse("filesrc location=\"\(file)\" ! \(demuxer) ! decodebin ! appsink name=out sync=false")
    guard let sink = pipeline.element(named: "out", as: AppSink.self) else { throw WebTestError("no appsink") }
    let bus = pipeline.bus
    pipeline.requestState(.playing)
    var frames = 0
    while sink.pullSample(timeout: 5) != nil { frames += 1 }
    let error = bus.pop(timeout: 0, types: .error).map(\.description)
    try pipeline.setState(.null)
    return (frames, error)
}
