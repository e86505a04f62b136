import GStreamer

/// Counts the buffers that reach a pad and lets the timing thread sleep until a count is reached.
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

/// The count, in a `Condition` the probe changes and the timing thread waits on.
private final class CounterState: Sendable {
    private let value = Condition(0)

    var current: Int { value.withLock { $0 } }

    func increment() {
        value.withLock { $0 += 1 }
    }

    func wait(for wanted: Int, seconds: Double) -> Int {
        value.wait(until: MonotonicClock.now + max(seconds, 0)) { $0 >= wanted ? $0 : nil } ?? current
    }
}
