import Foundation
import GStreamer
import Testing

@testable import Capture

/// What one subscriber saw, filled on the encoder's streaming thread.
private final class Received: Sendable {
    struct Seen: Sendable {
        var count = 0
        var firstIsKeyFrame: Bool?
        var keyFrames = 0
        var caps: String?
        var lastPTS: UInt64?
        var ptsIncreasing = true
    }

    let seen = Condition(Seen())

    func take(_ sample: Sample) {
        let buffer = sample.buffer
        let isKey = !(buffer?.isDeltaUnit ?? true)
        seen.withLock { seen in
            if seen.firstIsKeyFrame == nil { seen.firstIsKeyFrame = isKey }
            seen.count += 1
            if isKey { seen.keyFrames += 1 }
            seen.caps = sample.caps?.description ?? seen.caps
            if let pts = buffer?.pts {
                if let last = seen.lastPTS, pts <= last { seen.ptsIncreasing = false }
                seen.lastPTS = pts
            }
        }
    }

    /// Waits until `count` samples have arrived (60 s at most, a safety net, not a limit under test).
    @discardableResult
    func wait(for count: Int) -> Int {
        seen.wait(until: MonotonicClock.now + 60) { $0.count >= count ? $0.count : nil } ?? seen.withLock { $0.count }
    }

    var value: Seen { seen.withLock { $0 } }
}

@Suite("Shared live encoder")
struct LiveEncoderTests {
    /// Two subscribers share one encoder; each stream starts at a key frame, timestamps only increase;
    /// the encoder stops after the last cancel and starts again for the next subscriber.
    @Test func oneEncoderServesEverySubscriberFromAKeyFrame() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test","pattern":"ball"}],"caps":{"width":320,"height":240,"framerate":"30/1"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let first = Received(), second = Received()
        let a = try session.subscribeLive(.video) { first.take($0) }
        #expect(first.wait(for: 40) >= 40)
        // The second joins after the first key-frame interval (30 frames): it still starts at a key frame.
        let b = try session.subscribeLive(.video) { second.take($0) }
        #expect(second.wait(for: 10) >= 10)
        let stats = session.liveStats(.video)
        #expect(stats.subscribers == 2)
        #expect(stats.codec == (Element.factoryExists("x264enc") ? .h264 : .vp8))
        a.cancel()
        b.cancel()
        b.cancel()
        for received in [first.value, second.value] {
            #expect(received.firstIsKeyFrame == true)
            #expect(received.ptsIncreasing)
            #expect(
                received.caps?.hasPrefix(stats.codec == .h264 ? "video/x-h264" : "video/x-vp8") == true, "\(received.caps ?? "no caps")")
        }
        // Encoded once: every sample either subscriber got is one of the encoder's frames.
        let encoded = session.liveStats(.video).framesEncoded
        #expect(first.value.count <= encoded && second.value.count <= encoded)
        #expect(a.delivered == first.value.count && b.delivered == second.value.count)
        #expect(session.liveStats(.video).subscribers == 0)
        // A later subscriber restarts the encoder.
        let third = Received()
        let c = try session.subscribeLive(.video) { third.take($0) }
        #expect(third.wait(for: 5) >= 5)
        c.cancel()
    }

    /// MJPEG viewers get full-range JPEG frames at most 960 wide and 15 per second, every frame a key frame.
    @Test func mjpegIsScaledAndRateLimited() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test"}],"caps":{"width":1280,"height":720,"framerate":"30/1"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let received = Received()
        let subscription = try session.subscribeLive(.mjpeg) { received.take($0) }
        received.wait(for: 16)
        subscription.cancel()
        let seen = received.value
        let caps = try #require(seen.caps)
        #expect(caps.hasPrefix("image/jpeg") && caps.contains("width=(int)960") && caps.contains("height=(int)540"), "\(caps)")
        #expect(caps.contains("framerate=(fraction)15/1"), "\(caps)")
        #expect(seen.keyFrames == seen.count)
        // Half the camera's frames are dropped before the encoder, not after it.
        let stats = session.liveStats(.mjpeg)
        #expect(stats.framesEncoded * 3 < stats.framesIn * 2, "\(stats)")
    }

    /// A subscriber may cancel from inside its own callback (e.g. when its viewer's queue reports an error);
    /// the cancel releases the callback, so one that refers to its own subscription (as here) leaks nothing
    /// (the ASan run checks that).
    @Test func cancellingFromTheCallbackDoesNotDeadlock() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test"}],"caps":{"width":160,"height":120,"framerate":"30/1"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let received = Received()
        let box = Locked<LiveSubscription?>(nil)
        let subscription = try session.subscribeLive(.mjpeg) { sample in
            received.take(sample)
            box.withLock { $0 }?.cancel()
        }
        box.withLock { $0 = subscription }
        // Keep a second subscriber so frames keep flowing; the first stops after its cancel.
        let other = Received()
        let keep = try session.subscribeLive(.mjpeg) { other.take($0) }
        other.wait(for: 10)
        keep.cancel()
        #expect(received.value.count >= 1 && received.value.count <= 2, "\(received.value.count)")
        #expect(subscription.delivered == received.value.count)
    }

    /// Recovery detaches the feed from the failed graph and attaches it to the new one: the subscriber keeps
    /// its stream, with timestamps that go on increasing.
    @Test func theStreamContinuesAcrossAReattachedFeed() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test","pattern":"ball"}],"caps":{"width":160,"height":120,"framerate":"30/1"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let received = Received()
        let subscription = try session.subscribeLive(.video) { received.take($0) }
        received.wait(for: 10)
        session.live.graphRetiring()
        session.live.graphChanged()
        received.wait(for: received.value.count + 10)
        subscription.cancel()
        #expect(received.value.ptsIncreasing)
        #expect(received.value.count >= 20)
    }

    /// A raw launch config without the tee cannot feed a live stream: subscribing says which element is missing.
    @Test func aGraphWithoutTheTeeIsRefused() throws {
        let (session, folder) = try scratchSession(#"{"launch":"videotestsrc ! fakesink"}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        #expect(throws: SessionError.missingElement(name: "split", command: "live video")) {
            try session.subscribeLive(.video) { _ in }
        }
        #expect(session.liveStats(.video).subscribers == 0)
    }
}
