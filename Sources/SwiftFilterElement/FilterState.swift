import CGstSwiftFilter
import Filters
import GStreamer
import Glibc

/// Per-element state behind the C object: settings under a lock, statistics, and the running chain.
/// Property setters run on application threads, transforms on the streaming thread; they meet only
/// through `settings` and `counters`, each locked briefly and never while pixels are touched.
final class FilterState: Sendable {
    /// Everything a frame needs, swapped as a whole so a frame sees one chain from start to end.
    struct Settings {
        var text = ""
        var compiled: CompiledChain = FilterChain([]).compile(threads: 0)
        var threads = 0
        var format: PixelFormat?
        var color = ColorDescription()
        var started = false
        /// A chain text that failed to parse before streaming started: `start` turns it into an ERROR.
        var rejected: String?
    }

    struct Counters {
        var frames = 0
        var totalNanoseconds: UInt64 = 0
        var maxNanoseconds: UInt64 = 0
        /// Frames the base class dropped for lateness, as its last QoS message counted them.
        var dropped = 0
    }

    let settings = Locked(Settings())
    let counters = Locked(Counters())
    /// The chain chosen for the buffer in flight: picked when its output is prepared, used by its transform,
    /// so both see the same chain even when `chain` changes in between (both run on the streaming thread).
    let inFlight = Locked<CompiledChain?>(nil)
}

/// Monotonic nanoseconds for per-frame timing.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}
