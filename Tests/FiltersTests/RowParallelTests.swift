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

    /// A pool's workers run bands (not the caller alone), job after job. A pool of its own: the shared one
    /// may be busy with another suite's frames, and then bands fall back to `concurrentPerform`.
    @Test func bandsRunOnPoolThreads() {
        let pool = BandPool(workers: 1)
        for _ in 0..<50 {
            let threads = Mutex<Set<UInt>>([])
            let ran = pool.run(bands: 2) { _ in
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            }
            #expect(ran)
            #expect(threads.withLock { $0.count } == 2)
        }
        #expect(!pool.run(bands: 3) { _ in }, "more bands than workers + 1 is refused, not run short")
    }
}
