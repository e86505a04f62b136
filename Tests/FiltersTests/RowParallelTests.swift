import Testing
import Synchronization
@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// The row split: every row exactly once, bands aligned, and the bands on more than one thread.
@Suite struct RowParallelTests {
    @Test(arguments: [1, 2, 3, 7])
    func everyRowOnceInAlignedBands(bands: Int) {
        let seen = Mutex<[Int]>([])
        let starts = Mutex<[Int]>([])
        RowParallel.run(rows: 101, bands: bands, alignment: 2) { _, rows in
            seen.withLock { $0 += Array(rows) }
            starts.withLock { $0.append(rows.lowerBound) }
        }
        #expect(seen.withLock { $0.sorted() } == Array(0..<101))
        #expect(starts.withLock { $0 }.allSatisfy { $0 % 2 == 0 })
    }

    /// The pool's workers run bands (not the caller alone), frame after frame.
    @Test func bandsRunOnPoolThreads() {
        guard RowParallel.coreCount > 1 else { return }
        for _ in 0..<50 {
            let threads = Mutex<Set<UInt>>([])
            RowParallel.run(rows: 64, bands: 2) { _, _ in
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            }
            #expect(threads.withLock { $0.count } == 2)
        }
    }
}
