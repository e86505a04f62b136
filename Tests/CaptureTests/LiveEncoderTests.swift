import Base
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
        /// The positions (0 the first) of the key frames among the samples.
        var keyFrameIndices: [Int] = []
    }

    let seen = Condition(Seen())

    func take(_ sample: Sample) {
        let buffer = sample.buffer
        let isKey = !(buffer?.isDeltaUnit ?? true)
        seen.withLock { seen in
            if seen.firstIsKeyFrame == nil { seen.firstIsKeyFrame = isKey }
            if isKey { seen.keyFrameIndices.append(seen.count) }
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

    /// A viewer's PLI or FIR (`requestKeyFrame`) brings a key frame from the shared encoder within two frames, well
    /// before the next one of the key-frame interval (30 frames); a storm of them costs at most one per half second.
    @Test func aRequestedKeyFrameComesAtOnceAndAStormIsRateLimited() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test","pattern":"ball"}],"caps":{"width":320,"height":240,"framerate":"30/1"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let received = Received()
        let subscription = try session.subscribeLive(.video) { received.take($0) }
        defer { subscription.cancel() }
        /// Waits for the interval's next key frame, then `after` more frames: the next one of the interval is then
        /// 30 - `after` frames away.
        func settle(after: Int) {
            let seen = received.value
            let start = seen.count
            _ = received.seen.wait(until: MonotonicClock.now + 60) { seen in (seen.keyFrameIndices.last ?? -1) >= start ? true : nil }
            received.wait(for: (received.value.keyFrameIndices.last ?? start) + 1 + after)
        }
        // Past the half second of the subscriber's own key frame.
        received.wait(for: 20)
        settle(after: 5)
        let before = session.liveStats(.video)
        let asked = received.value.count
        subscription.requestKeyFrame()
        let key = received.seen.wait(until: MonotonicClock.now + 60) { seen in seen.keyFrameIndices.first { $0 >= asked } }
        let within = try #require(key) - asked
        #expect(within < 2, "the key frame came \(within + 1) frames after the request: \(received.value.keyFrameIndices)")
        #expect(session.liveStats(.video).keyFramesForced == before.keyFramesForced + 1)

        // A storm: a hundred requests at once are one key frame now and one at the end of the half second.
        settle(after: 5)
        let stormStart = received.value.count
        let counts = session.liveStats(.video)
        for _ in 0..<100 { subscription.requestKeyFrame() }
        received.wait(for: stormStart + 45)
        let after = session.liveStats(.video)
        #expect(after.keyFramesForced - counts.keyFramesForced == 2, "\(after)")
        #expect(after.keyFrameRequestsMerged - counts.keyFrameRequestsMerged == 98, "\(after)")
        let keys = received.value.keyFrameIndices.filter { $0 >= stormStart && $0 < stormStart + 45 }
        #expect(keys.count >= 2 && keys.count <= 3, "key frames in the 45 frames after the storm: \(keys)")
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

@Suite struct KeyFrameLimiterTests {
    @Test func theFirstIsServedAtOnceAndTheRestAtTheEndOfTheInterval() {
        var limiter = KeyFrameLimiter(interval: 0.5)
        var due: [Bool] = []
        due.append(limiter.takeDue(at: 9))
        #expect(limiter.request(at: 10) == .now)
        #expect(limiter.request(at: 10.25) == .deferred)
        #expect(limiter.request(at: 10.375) == .merged)
        #expect(limiter.request(at: 10.4375) == .merged)
        due.append(limiter.takeDue(at: 10.4375))  // not before the interval is over
        due.append(limiter.takeDue(at: 10.5))
        due.append(limiter.takeDue(at: 10.5))  // once
        #expect(due == [false, false, true, false])
        #expect(limiter.forced == 2 && limiter.merged == 2)
        // The deferred one counts as the last: the next within its interval waits again.
        #expect(limiter.request(at: 10.75) == .deferred)
        let later = limiter.takeDue(at: 11.0)
        #expect(later)
        #expect(limiter.request(at: 11.5) == .now)
        #expect(limiter.forced == 4)
    }
}
