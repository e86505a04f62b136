import Base
import CGStreamer
import Foundation
import GStreamer
import Publish
import Synchronization

/// A stand-in for the session's shared live encoder: `videotestsrc is-live ! x264enc tune=zerolatency ! appsink`,
/// started with the first subscriber and stopped after the last; a subscription forces a key frame.
final class TestStream: LiveStream, @unchecked Sendable {
    let encodingName = "H264"
    private struct State {
        var subscribers: [Int: @Sendable (Sample) -> Void] = [:]
        var next = 0
        var pipeline: Pipeline?
    }
    private let state = Locked(State())
    /// Times the encoder pipeline was started.
    let encoderStarts = Atomic<Int>(0)
    /// Frames encoded, and a condition tests wait on for a count.
    let frames = Condition(0)
    let width: Int, height: Int, fps: Int

    init(width: Int = 320, height: Int = 240, fps: Int = 30) {
        self.width = width
        self.height = height
        self.fps = fps
    }

    final class Subscription: LiveStreamSubscription, @unchecked Sendable {
        let cancelBody: @Sendable () -> Void
        let done = Atomic<Bool>(false)
        init(_ cancel: @escaping @Sendable () -> Void) { cancelBody = cancel }
        func cancel() { if !done.exchange(true, ordering: .relaxed) { cancelBody() } }
    }

    func subscribe(_ onSample: @escaping @Sendable (Sample) -> Void) throws -> any LiveStreamSubscription {
        let (id, pipeline, start) = try state.withLock { state -> (Int, Pipeline, Bool) in
            state.next += 1
            state.subscribers[state.next] = onSample
            if let pipeline = state.pipeline { return (state.next, pipeline, false) }
            let pipeline = try Pipeline.parse(
                "videotestsrc is-live=true pattern=ball ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1 ! x264enc name=enc tune=zerolatency speed-preset=ultrafast key-int-max=\(fps * 2) ! video/x-h264,profile=constrained-baseline ! appsink name=out sync=false"
            )
            state.pipeline = pipeline
            return (state.next, pipeline, true)
        }
        if start {
            guard let sink = pipeline.element(named: "out", as: AppSink.self) else {
                throw GStreamerError.padNotFound(element: "out", pad: "sink")
            }
            let state = state, frames = frames
            sink.onSample { sample in
                frames.withLock { $0 += 1 }
                for handler in state.withLock({ Array($0.subscribers.values) }) { handler(sample) }
            }
            encoderStarts.add(1, ordering: .relaxed)
            try pipeline.setState(.playing)
        } else if let encoder = pipeline.element(named: "enc") {
            _ = try? encoder.staticPad("src").sendEvent(gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0))
        }
        return Subscription { [weak self] in self?.unsubscribe(id) }
    }

    private func unsubscribe(_ id: Int) {
        let stopping = state.withLock { state -> Pipeline? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.pipeline = nil }
            return state.pipeline
        }
        try? stopping?.setState(.null)
    }

    /// Waits until `count` more frames were encoded (at most `timeout` seconds, a safety net).
    @discardableResult
    func waitForFrames(_ count: Int, timeout: Double = 60) -> Bool {
        let start = frames.withLock { $0 }
        return frames.wait(until: MonotonicClock.now + timeout) { $0 - start >= count ? true : nil } ?? false
    }
}
