import Synchronization
import Testing

@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// The row split: every row exactly once, pieces aligned, and pieces on more than one thread.
///
/// The bodies write plain memory, each piece its own: under ThreadSanitizer a piece run twice, or run while the caller
/// reads the results, is a race it reports. (A `Mutex` here would hide nothing but confuse it: its lock is in the
/// toolchain's uninstrumented library.)
@Suite struct RowParallelTests {
    @Test(arguments: [1, 2, 3, 7])
    func everyRowOnceInAlignedPieces(bands: Int) {
        let seen = UnsafeMutableBufferPointer<Int>.allocate(capacity: 101)
        seen.initialize(repeating: 0)
        defer { seen.deallocate() }
        let misaligned = Atomic<Int>(0)
        RowParallel.run(rows: 101, bands: bands, alignment: 2) { slot, rows in
            if rows.lowerBound % 2 != 0 || slot >= bands { misaligned.add(1, ordering: .relaxed) }
            for row in rows { seen[row] += 1 }
        }
        #expect(Array(seen) == Array(repeating: 1, count: 101))
        #expect(misaligned.load(ordering: .relaxed) == 0)
    }

    /// A pool's worker takes pieces (not the caller alone), job after job: each of the two pieces waits for the
    /// other to have started, which the caller alone could never do. A pool of its own: the shared one may be busy
    /// with another suite's frames, and then pieces fall back to `concurrentPerform`.
    @Test func piecesRunOnPoolThreads() {
        let pool = BandPool(workers: 1)
        let caller = UInt(pthread_self())
        let threads = UnsafeMutableBufferPointer<UInt>.allocate(capacity: 2)
        defer { threads.deallocate() }
        for _ in 0..<50 {
            threads.initialize(repeating: 0)
            let started = Atomic<Int>(0)
            let ran = pool.run(pieces: 2, slots: 2) { slot, _ in
                threads[slot] = UInt(pthread_self())
                started.add(1, ordering: .sequentiallyConsistent)
                // A safety net, not a speed limit: a worker that never comes fails the test instead of hanging it.
                let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
                while started.load(ordering: .sequentiallyConsistent) < 2, clock.now < deadline { sched_yield() }
            }
            #expect(ran)
            #expect(threads[0] == caller, "slot 0 is the calling thread")
            #expect(threads[1] != 0 && threads[1] != caller, "slot 1 is the worker")
        }
        #expect(!pool.run(pieces: 3, slots: 3) { _, _ in }, "more slots than workers + 1 is refused, not run short")
    }

    /// A worker woken after a camera's frame interval runs on another CPU than the caller: a virtual machine's halted
    /// CPU is not where the scheduler puts a woken thread, and without being kept off the caller's CPU the worker
    /// queued behind it (here 39 of 40 such wake-ups). Both pieces wait for each other, so both threads run at once.
    /// The caller may be moved between CPUs by the scheduler now and then, hence most jobs, not every one.
    @Test(.enabled(if: CPUSet.ofThisThread().count > 1 && CPUSet.current() != nil, "needs two CPUs"))
    func wokenWorkerRunsBesideTheCaller() {
        let pool = BandPool(workers: 1)
        let cpus = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 2)
        defer { cpus.deallocate() }
        var apart = 0
        for _ in 0..<12 {
            usleep(33_000)  // a 30 fps camera's frame interval: long enough for the worker to park and its CPU to halt
            cpus.initialize(repeating: -1)
            let started = Atomic<Int>(0)
            let ran = pool.run(pieces: 2, slots: 2) { slot, _ in
                cpus[slot] = CPUSet.current() ?? -1
                started.add(1, ordering: .sequentiallyConsistent)
                let clock = ContinuousClock(), deadline = clock.now + .seconds(60)
                while started.load(ordering: .sequentiallyConsistent) < 2, clock.now < deadline { sched_yield() }
            }
            #expect(ran)
            if cpus[0] >= 0, cpus[1] >= 0, cpus[0] != cpus[1] { apart += 1 }
        }
        #expect(apart > 6, "the worker ran on the caller's CPU in \(12 - apart) of 12 jobs")
    }

    /// The affinity calls, looked up by name, read back what they set.
    @Test func cpuSetReadsWhatItSets() throws {
        let allowed = CPUSet.ofThisThread()
        try #require(!allowed.isEmpty)
        if let cpu = CPUSet.current() { #expect(allowed.contains(cpu)) }
        defer { _ = CPUSet.restrict(pthread_self(), to: allowed) }
        #expect(CPUSet.restrict(pthread_self(), to: [allowed[0]]))
        #expect(CPUSet.ofThisThread() == [allowed[0]])
        #expect(CPUSet.current() == allowed[0], "moved onto the one CPU it may use")
        #expect(CPUSet.restrict(pthread_self(), to: allowed))
        #expect(CPUSet.ofThisThread() == allowed)
    }

    /// Every piece of every job exactly once, whichever thread takes it: a thousand jobs back to back (the worker
    /// finds most while it still looks for work, some after it parked), slots always below the job's.
    @Test func everyPieceOnceJobAfterJob() {
        let pool = BandPool(workers: 1)
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: 16)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let badSlots = Atomic<Int>(0)
        for job in 0..<1000 {
            let pieces = 1 + job % 16
            let ran = pool.run(pieces: pieces, slots: 2) { slot, piece in
                if slot > 1 { badSlots.add(1, ordering: .relaxed) }
                counts[piece] += 1
            }
            #expect(ran)
            if job % 97 == 0 { usleep(300) }  // now and then long enough for the worker to park
        }
        let expected = (0..<16).map { piece in (0..<1000).filter { 1 + $0 % 16 > piece }.count }
        #expect(Array(counts) == expected)
        #expect(badSlots.load(ordering: .relaxed) == 0)
    }
}
