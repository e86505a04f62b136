import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits rows into contiguous bands and runs them on `DispatchQueue.concurrentPerform`.
enum RowParallel {
    /// Below this many samples a frame is done on the calling thread: dispatch would cost more than it saves.
    static let threshold = 128 * 1024

    /// Online cores, at least 1.
    static let coreCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The number of bands `threads` (0 = all cores) gives for a job of `rows` rows and `samples` samples.
    static func bands(threads: Int, rows: Int, samples: Int) -> Int {
        let wanted = threads <= 0 ? coreCount : threads
        guard wanted > 1, samples >= threshold, rows > 1 else { return 1 }
        return min(wanted, rows)
    }

    /// Calls `body(band, rows)` for `bands` consecutive row ranges covering `0..<rows`; rows start on a multiple of `alignment`.
    static func run(rows: Int, bands: Int, alignment: Int = 1, _ body: (Int, Range<Int>) -> Void) {
        guard bands > 1 else {
            body(0, 0..<rows)
            return
        }
        let units = (rows + alignment - 1) / alignment
        // concurrentPerform wants a @Sendable closure; the bands write disjoint rows and the call
        // returns only when all are done, so handing the non-Sendable body across is safe.
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let start = min(rows, units * band / bands * alignment)
                let end = min(rows, units * (band + 1) / bands * alignment)
                if start < end { shared.value(band, start..<end) }
            }
        }
    }
}

/// Carries a value across a concurrency boundary the compiler cannot see is safe.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
