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

    /// A pool's worker takes pieces (not the caller alone), job after job: each of the two pieces waits for the
    /// other to have started, which the caller alone could never do. A pool of its own: the shared one may be busy
    /// with another suite's frames, and then pieces fall back to `concurrentPerform`.
    @Test func piecesRunOnPoolThreads() {
        let pool = BandPool(workers: 1)
        let caller = UInt(pthread_self())
        for _ in 0..<50 {
            let started = Atomic<Int>(0)
            let threads = Mutex<[Int: UInt]>([:])
            let ran = pool.run(pieces: 2, slots: 2) { slot, _ in
                threads.withLock { $0[slot] = UInt(pthread_self()) }
                started.add(1, ordering: .sequentiallyConsistent)
                // A safety net, not a speed limit: a worker that never comes fails the test instead of hanging it.
                let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
                while started.load(ordering: .sequentiallyConsistent) < 2, clock.now < deadline { sched_yield() }
            }
            #expect(ran)
            let seen = threads.withLock { $0 }
            #expect(seen.count == 2, "pieces ran on slots \(seen.keys.sorted())")
            #expect(seen[0] == caller, "slot 0 is the calling thread")
            #expect(seen[1] != nil && seen[1] != caller, "slot 1 is the worker")
        }
        #expect(!pool.run(pieces: 3, slots: 3) { _, _ in }, "more slots than workers + 1 is refused, not run short")
    }

    /// Every piece of every job exactly once, whichever thread takes it: a thousand jobs back to back (the worker
    /// finds most while it still looks for work, some after it parked), slots always below the job's.
    @Test func everyPieceOnceJobAfterJob() {
        let pool = BandPool(workers: 1)
        let counts = Mutex<[Int]>(Array(repeating: 0, count: 16))
        let badSlots = Atomic<Int>(0)
        for job in 0..<1000 {
            let pieces = 1 + job % 16
            #expect(pool.run(pieces: pieces, slots: 2) { slot, piece in
                if slot > 1 { badSlots.add(1, ordering: .relaxed) }
                counts.withLock { $0[piece] += 1 }
            })
            if job % 97 == 0 { usleep(300) } // now and then long enough for the worker to park
        }
        let expected = (0..<16).map { piece in (0..<1000).filter { 1 + $0 % 16 > piece }.count }
        #expect(counts.withLock { $0 } == expected)
        #expect(badSlots.load(ordering: .relaxed) == 0)
    }
}
