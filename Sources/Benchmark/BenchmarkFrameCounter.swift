import Glibc
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

/// The count, under a pthread mutex with a condition the probe signals.
private final class CounterState: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value = 0
    private var target = Int.max

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    var current: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    func increment() {
        pthread_mutex_lock(mutex)
        value += 1
        if value >= target { pthread_cond_signal(condition) }
        pthread_mutex_unlock(mutex)
    }

    func wait(for wanted: Int, seconds: Double) -> Int {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(max(seconds, 0).truncatingRemainder(dividingBy: 1) * 1e9)
        deadline.tv_sec += Int(max(seconds, 0)) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        target = wanted
        while value < wanted {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        target = Int.max
        return value
    }
}
