import Base
import GStreamer
import Synchronization

// Waiting on a session: for a stop request, for the stream to end, for frames to leave the filter. Every wait is
// on the session's `state` condition with a deadline; the frame probe wakes it only while someone waits for frames.

extension CaptureSession {
    /// Asks `waitUntilDone` to return (a `quit` command, a signal); the caller then calls `stop`.
    public func requestStop() {
        state.withLock { $0.stopRequested = true }
    }

    /// Blocks until `requestStop` is called (Ctrl-C, SIGTERM, `quit`), whatever the stream did meanwhile: a host
    /// whose camera failed at start keeps its camera screen up, showing why, until then.
    public func waitForStopRequest() {
        _ = state.wait(until: .infinity) { state -> Bool? in state.stopRequested ? true : nil }
    }

    /// Blocks until the stream ends or fails, `frames` frames have left the filter, `duration` seconds have
    /// passed, or `requestStop` is called.
    public func waitUntilDone(frames: Int? = nil, duration: Double? = nil) {
        let deadline = duration.map { MonotonicClock.now + $0 } ?? .infinity
        if frames != nil { frameGoal.waiters.add(1, ordering: .relaxed) }
        defer { if frames != nil { frameGoal.waiters.subtract(1, ordering: .relaxed) } }
        _ = state.wait(until: deadline) { state -> Bool? in
            if state.ended || state.stopRequested { return true }
            if let frames, state.framesFiltered >= frames { return true }
            return nil
        }
    }

    /// Blocks until `count` more frames have left the filter, the stream ends, `timeout` seconds pass or `requester`
    /// goes away; returns how many frames it saw (`wait N` on the control socket: scripts and tests wait on frames,
    /// not clocks).
    public func waitForFrames(_ count: Int, timeout: Double = 60, requester: Requester = .present) -> Int {
        let start = framesFiltered
        frameGoal.waiters.add(1, ordering: .relaxed)
        defer { frameGoal.waiters.subtract(1, ordering: .relaxed) }
        let state = state
        return requester.watching(onGone: { state.withLock { _ in } }) {
            state.wait(until: MonotonicClock.now + timeout) { state -> Int? in
                let seen = state.framesFiltered - start
                return seen >= count || state.ended || requester.isGone ? seen : nil
            }
        } ?? framesFiltered - start
    }

    /// Calls `handler` for every frame that leaves the filter, on GStreamer's streaming thread (keep it short, never
    /// block); nil stops it. Graphs without `swiftfilter` (a `launch` config without one) call it never.
    public func onFilteredFrame(_ handler: (@Sendable () -> Void)?) {
        frameGoal.observer.withLock { $0 = handler }
    }

    /// Whether the playing graph has `swiftfilter`, so `onFilteredFrame` hears its frames.
    public var filtersFrames: Bool { graph?.filter != nil }
}

/// How many threads wait for a frame count, so the frame probe wakes waiters only then; and who else hears each
/// filtered frame (a service manager's readiness and watchdog).
final class FrameGoal: Sendable {
    let waiters = Atomic(0)
    let observer = Locked<(@Sendable () -> Void)?>(nil)
}
