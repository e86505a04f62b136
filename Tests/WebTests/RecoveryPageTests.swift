import Config
import Dispatch
import Foundation
import Testing
import Web

@testable import Capture

extension PageTests {
    /// Counts the frames the page's video presents from now on (`window.presented`), and remembers its peer connection.
    static let countFrames = """
        window.presented = 0;
        window.firstPeer = swiftcam.peer;
        const video = document.getElementById('preview');
        const step = () => { window.presented += 1; video.requestVideoFrameCallback(step); };
        video.requestVideoFrameCallback(step);
        done(true);
        """

    /// Resolves once the page has presented `arguments[0]` more frames over WebRTC; with whether it is still the first
    /// peer connection (no reconnect was needed).
    static let presentsMoreFrames = """
        const target = window.presented + arguments[0];
        const check = () => {
          if (swiftcam.mode === 'mjpeg') done(['fell back', document.getElementById('notice').textContent]);
          else if (window.presented >= target) done(['webrtc', swiftcam.peer === window.firstPeer]);
          else requestAnimationFrame(check);
        };
        check();
        """

    /// The session recovers (as after a camera that went and came back: the failed graph retired and torn down, the
    /// cameras reopened, a new graph built and played, the live encoder fed from its tee) while a page watches: the
    /// page's WebRTC video goes on by itself, no reload. The host runs in this process so the test can start the
    /// session's recovery itself, on its recovery queue, where a source error starts it (the hardware tests inject
    /// that error into a real driver: scripts/test-hardware.sh).
    @Test func theWebRTCVideoPlaysOnAcrossRecovery() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-recovery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try ConfigLoader.load(
            data: Data(
                """
                { "sources": [{ "kind": "test", "pattern": "smpte" }],
                  "caps": { "width": 320, "height": 240, "framerate": "30/1", "format": "I420" },
                  "preview": "none", "still": { "directory": "\(folder.path)/captures" } }
                """.utf8), file: "recovery.json")
        let session = CaptureSession(name: "recovery", config: config, builder: PipelineBuilder(config: config, hasDisplay: false))
        try session.start()
        defer { session.stop() }
        let server = WebServer(
            session: session, interpreter: CommandInterpreter(session: session) { session.requestStop() },
            options: WebOptions(host: "127.0.0.1", port: 0, token: nil), galleryDirectories: [folder.path + "/captures"])
        let recovered = DispatchSemaphore(value: 0)
        session.onEvent { event in
            server.notify(event)
            if case let .notice(text) = event, text.hasPrefix("recovered") { recovered.signal() }
        }
        try server.start()
        defer { server.stop() }
        let browser = try await Browser(width: 640, height: 480)
        defer { Task { await browser.quit() } }
        try await browser.open(try #require(URL(string: server.url)))
        let playing = try await browser.wait(Self.playingScript)
        try #require((playing as? [Any])?.count == 2, "the page did not play WebRTC video: \(playing)")
        _ = try await browser.wait(Self.countFrames)
        _ = try await browser.wait(Self.presentsMoreFrames, [10])

        let framesBefore = session.framesFiltered
        session.recoveryQueue.async { session.recover(from: .failed(element: "source0", message: "the test took the camera away")) }
        #expect(recovered.wait(timeout: .now() + 60) == .success, "the session did not recover")
        #expect(session.recoveries == 1 && session.status == .configured)

        // Frames presented after the new graph plays: the same page, still WebRTC, its video moving.
        _ = try await browser.wait(Self.countFrames)
        let after = try await browser.wait(Self.presentsMoreFrames, [60], timeout: 60) as? [Any] ?? []
        #expect(after.first as? String == "webrtc", "\(after)")
        #expect(session.framesFiltered > framesBefore)
        let bars = try await Self.pixel(browser, x: 3 / 14, y: 0.3)
        #expect(bars.count == 3 && bars[0] > 150 && bars[1] > 150 && bars[2] < 80, "yellow bar after recovery: \(bars)")
        print(
            "recovery: the page's WebRTC video plays on, \((after.last as? Bool) == true ? "same peer connection" : "reconnected by itself")"
        )
    }
}
