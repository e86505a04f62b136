import Base
import GStreamer

/// Counts the buffers that reach a pad and lets the timing thread sleep until a count is reached.
/// Unchecked Sendable: its fields are immutable, and the count the probe changes on the streaming thread is behind
/// `CounterState`'s condition.
final class BenchmarkFrameCounter: @unchecked Sendable {
    private let state: CounterState
    private let pad: Pad
    private let probe: UInt

    /// Attaches a buffer probe to `pad` (normally the sink pad of `fakesink`).
    init(counting pad: Pad) throws(GStreamerError) {
        let state = CounterState()
        probe = pad.onBuffer { _ in state.increment() }
        guard probe != 0 else { throw .padNotFound(element: "fakesink", pad: "\(pad.name) (no probe)") }
        self.state = state
        self.pad = pad
    }

    deinit {
        pad.removeProbe(probe)
    }

    /// Buffers seen so far.
    var count: Int { state.current }

    /// Sleeps until `target` buffers have arrived or `seconds` pass; returns the count reached.
    func wait(for target: Int, seconds: Double) -> Int {
        state.wait(for: target, seconds: seconds)
    }
}

/// The count, in a `Condition` the probe changes and the timing thread waits on. The probe wakes the timing
/// thread only when the count it waits for is reached: woken at every frame, it was put on a CPU 24 times a
/// repetition (4 warm-up frames, 20 timed), which can be the one a filter's second thread is working on.
private final class CounterState: Sendable {
    private struct Counts {
        var seen = 0
        /// What the timing thread waits for (0: nothing).
        var wanted = 0
    }

    private let value = Condition(Counts())

    var current: Int { value.withLock { $0.seen } }

    func increment() {
        value.change { counts in
            counts.seen += 1
            return counts.wanted > 0 && counts.seen >= counts.wanted
        }
    }

    func wait(for wanted: Int, seconds: Double) -> Int {
        let reached = value.wait(until: MonotonicClock.now + max(seconds, 0)) { counts -> Int? in
            guard counts.seen < wanted else {
                counts.wanted = 0
                return counts.seen
            }
            counts.wanted = wanted
            return nil
        }
        return reached ?? current
    }
}
