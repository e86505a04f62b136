import Base
import Filters
import GStreamer
import Glibc
import Synchronization

/// Per-element state behind the C object, split the gst-plugins-rs way: `settings` is what the properties hold (set
/// from any thread, under its lock), `lifecycle` what starting and stopping decide, `stream` what negotiation made
/// (touched on the streaming thread only), and `counters` the statistics (atomics). A frame takes one lock: the
/// settings', to pick its chain.
final class FilterState: Sendable {
    /// What the properties hold: the chain (as a value and compiled, swapped as a whole so a frame sees one chain from
    /// start to end) and the thread count it was compiled for.
    struct Settings {
        var chain = FilterChain([])
        var compiled: CompiledChain = FilterChain([]).compile(threads: 0)
        var threads = 0
    }

    /// Whether the element streams, and a chain text that failed to parse before it did (`start` turns it into an ERROR).
    struct Lifecycle {
        var started = false
        var rejected: String?
    }

    let settings = Locked(Settings())
    let lifecycle = Locked(Lifecycle())
    let stream = StreamState()
    let counters = FilterCounters()
}

/// What negotiation made and the chain chosen for the buffer in flight. GStreamer calls `set_info`, `prepare` and
/// `transform` on the element's streaming thread, one at a time, so this needs no lock: that thread is its only user.
/// Unchecked Sendable: its fields are touched only on the element's streaming thread, by the `set_info`, `prepare`
/// and `transform` callbacks.
final class StreamState: @unchecked Sendable {
    /// The negotiated format, nil before caps.
    var format: PixelFormat?
    var color = ColorDescription()
    /// The chain picked when the buffer's output was prepared and used by its transform, so both see the same chain
    /// even when `chain` changes in between.
    var inFlight: CompiledChain?
}

/// The statistics the `stats` property reports, counted per frame without a lock.
final class FilterCounters: Sendable {
    private let frames = Atomic<Int>(0)
    private let totalNanoseconds = Atomic<UInt64>(0)
    private let maxNanoseconds = Atomic<UInt64>(0)
    /// Frames the base class dropped for lateness, as its last QoS message counted them.
    private let dropped = Atomic<Int>(0)

    /// The counts now (each read on its own: a frame counted meanwhile may be in one and not yet in another).
    var now: (frames: Int, totalNanoseconds: UInt64, maxNanoseconds: UInt64, dropped: Int) {
        (
            frames.load(ordering: .relaxed), totalNanoseconds.load(ordering: .relaxed), maxNanoseconds.load(ordering: .relaxed),
            dropped.load(ordering: .relaxed)
        )
    }

    /// Takes the dropped count from a QoS message.
    func setDropped(_ count: Int) {
        dropped.store(count, ordering: .relaxed)
    }

    /// Counts a processed frame that took `nanoseconds`.
    func record(_ nanoseconds: UInt64) {
        _ = frames.wrappingAdd(1, ordering: .relaxed)
        _ = totalNanoseconds.wrappingAdd(nanoseconds, ordering: .relaxed)
        var slowest = maxNanoseconds.load(ordering: .relaxed)
        while nanoseconds > slowest {
            let (exchanged, original) = maxNanoseconds.compareExchange(
                expected: slowest, desired: nanoseconds, ordering: .relaxed)
            if exchanged { break }
            slowest = original
        }
    }

    func reset() {
        frames.store(0, ordering: .relaxed)
        totalNanoseconds.store(0, ordering: .relaxed)
        maxNanoseconds.store(0, ordering: .relaxed)
        dropped.store(0, ordering: .relaxed)
    }
}

/// Monotonic nanoseconds for per-frame timing.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
