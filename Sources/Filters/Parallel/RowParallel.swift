import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits rows into pieces and runs them on the calling thread and a persistent pool of worker threads.
///
/// A frame's rows are cut into several pieces per thread, and every thread takes the next piece until none
/// is left. Waking a parked thread can cost as long as a whole 1080p point pass takes in cache (most of all in a
/// virtual machine): with one fixed band per thread the
/// caller finished its half and then waited for the other half to begin, and two threads timed no faster
/// than one. Now the caller starts at once, takes the pieces a late worker has not reached, and a worker
/// that has just finished a frame keeps looking for the next one for a moment before it parks.
enum RowParallel {
    /// Below this many samples a frame is done on the calling thread: a hand-off would cost more than it saves.
    static let threshold = 128 * 1024

    /// Pieces per thread for `run`: enough for a late thread's share to be taken by the others, few enough that
    /// taking one costs nothing beside its rows.
    static let piecesPerBand = 8

    /// Online cores, at least 1.
    static let coreCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The workers, started on first use: one per core besides the caller.
    static let pool = BandPool(workers: coreCount - 1)

    /// The number of threads `threads` (0 = all cores) gives a job of `rows` rows and `samples` samples: the
    /// slots a kernel keeps scratch for.
    static func bands(threads: Int, rows: Int, samples: Int) -> Int {
        let wanted = threads <= 0 ? coreCount : threads
        guard wanted > 1, samples >= threshold, rows > 1 else { return 1 }
        return min(wanted, rows)
    }

    /// The rows piece `index` of `count` covers (empty when there are more pieces than row units).
    static func range(band index: Int, of count: Int, rows: Int, alignment: Int = 1) -> Range<Int> {
        guard count > 1 else { return 0..<rows }
        let units = (rows + alignment - 1) / alignment
        let start = min(rows, units * index / count * alignment)
        let end = min(rows, units * (index + 1) / count * alignment)
        return start..<max(start, end)
    }

    /// Calls `body(slot, rows)` for pieces of `0..<rows` that start on a multiple of `alignment`, on up to `bands`
    /// threads; `slot` (below `bands`) names the thread, for its scratch, and one slot may get several pieces.
    static func run(rows: Int, bands: Int, alignment: Int = 1, _ body: (_ slot: Int, _ rows: Range<Int>) -> Void) {
        let units = (rows + alignment - 1) / alignment
        let pieces = bands > 1 ? min(units, bands * piecesPerBand) : 1
        run(pieces: pieces, bands: bands) { slot, piece in
            let range = Self.range(band: piece, of: pieces, rows: rows, alignment: alignment)
            if !range.isEmpty { body(slot, range) }
        }
    }

    /// Calls `body(slot, piece)` once for each of `pieces` pieces, on up to `bands` threads; `slot` is below `bands`.
    static func run(pieces: Int, bands: Int, _ body: (_ slot: Int, _ piece: Int) -> Void) {
        guard bands > 1, pieces > 1 else {
            for piece in 0..<max(pieces, 0) { body(0, piece) }
            return
        }
        if pool.run(pieces: pieces, slots: bands, body) { return }
        // The pool is busy (two chains at once) or could not start: thread b takes every bands-th piece.
        // concurrentPerform wants a @Sendable closure; the pieces write disjoint rows and the call returns only
        // when all are done, so handing the non-Sendable body across is safe.
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { slot in
                for piece in stride(from: slot, to: pieces, by: bands) { shared.value(slot, piece) }
            }
        }
    }
}

/// Persistent worker threads that take pieces of one job at a time beside the calling thread.
///
/// A job is published in `ticket`: a generation, the threads allowed in, the number of pieces and the next
/// piece to take, one 64-bit word, so taking a piece is one compare-and-exchange and a thread that wakes late
/// for a finished job takes nothing. The job closure is written before its ticket is published and kept until
/// every piece is done, so a thread that holds a piece always sees the closure of that piece's job.
/// Unchecked Sendable: the counters are atomics, `started`, `usable`, `allowedCPUs` and `keptOff` are touched only
/// by the caller holding `busy`, and `job` is written under `busy` before its ticket is published and read by a
/// worker only for a piece it took from that ticket.
final class BandPool: @unchecked Sendable {
    private let workers: [Worker]
    private let ticket = Atomic<UInt64>(0)
    private let finished = Atomic<Int>(0)
    private let busy = Atomic<Bool>(false)
    /// Posted by the worker that finishes the last piece, for a caller that did not.
    private let done = DispatchSemaphore(value: 0)
    private var job: ((Int, Int) -> Void)?
    private var started = false
    /// The CPUs the first calling thread may run on (read when it starts the workers, which inherit its mask; a later
    /// `taskset -p` is undone when the caller next moves), and the CPU each worker is kept off: the one the calling
    /// thread was on when it last handed that worker a job (−1: none). Both are the caller's, under `busy`.
    private var allowedCPUs: [Int32] = []
    private var keptOff: [Int32]
    /// False when a worker thread could not be created; jobs then go to `concurrentPerform`.
    private var usable = false

    /// How long a thread keeps looking for work (a worker for the next job, the caller for the last piece)
    /// before it sleeps: about the cost of being woken.
    static let spin: Duration = .microseconds(100)

    init(workers: Int) {
        self.workers = (0..<max(0, workers)).map { _ in Worker() }
        keptOff = Array(repeating: -1, count: self.workers.count)
    }

    /// Runs `body(slot, piece)` for `pieces` pieces here (slot 0) and on up to `slots − 1` workers; false (nothing
    /// run) when the pool is busy with another job or has too few workers.
    func run(pieces: Int, slots: Int, _ body: (Int, Int) -> Void) -> Bool {
        guard slots - 1 <= workers.count, pieces > 0, pieces <= Ticket.maxPieces,
            busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return false }
        defer { busy.store(false, ordering: .releasing) }
        if !started {
            started = true
            usable = workers.indices.allSatisfy { startWorker($0) }
            allowedCPUs = CPUSet.ofThisThread()
        }
        guard usable else { return false }
        keepWorkersOffCallersCPU(slots - 1)
        withoutActuallyEscaping(body) { body in
            job = body
            finished.store(0, ordering: .relaxed)
            let generation = Ticket(ticket.load(ordering: .relaxed)).generation &+ 1
            ticket.store(Ticket(generation: generation, slots: slots, pieces: pieces).raw, ordering: .sequentiallyConsistent)
            for worker in workers.prefix(slots - 1) where worker.parked.exchange(false, ordering: .sequentiallyConsistent) {
                worker.wake.signal()
            }
            var last = false
            while let (piece, _) = take(slot: 0) {
                body(0, piece)
                last = finish(pieces) || last
            }
            if !last {
                // A worker holds the last piece: look for its end for a moment, then sleep until it posts.
                let clock = ContinuousClock(), deadline = clock.now + Self.spin
                while finished.load(ordering: .acquiring) < pieces, clock.now < deadline { sched_yield() }
                done.wait()
                // The pieces' writes are ordered before this load by the workers' acquiring-and-releasing adds, not
                // only by the semaphore (which ThreadSanitizer may not see).
                _ = finished.load(ordering: .acquiring)
            }
            job = nil
        }
        return true
    }

    /// Lets the first `count` workers run on every allowed CPU but the caller's.
    ///
    /// A worker that slept through a camera's frame interval is woken onto the CPU of the thread that woke it: in a
    /// virtual machine an idle virtual CPU is halted on the host and the scheduler does not pick it, so the worker
    /// queued behind the caller and the second core did nothing (nearly every wake-up at a camera's frame interval).
    /// Kept off the caller's CPU it wakes on another. The mask changes only when the caller has moved to another CPU,
    /// so a caller that stays put makes no system call; with one allowed CPU nothing is restricted. A worker whose CPU
    /// is busy (an encoder's thread) cannot move to the caller's: the caller then takes the pieces itself, and at most
    /// the worker's piece in flight waits. Letting each woken worker run anywhere again (two calls per wake-up) read
    /// paced RGBA blur 1.55–1.59× instead of 1.60–2.03× (three alternating runs), so the mask stays.
    private func keepWorkersOffCallersCPU(_ count: Int) {
        guard allowedCPUs.count > 1 else { return }
        guard let cpu = CPUSet.current() else { return }
        guard allowedCPUs.contains(cpu) else { return }
        for index in 0..<min(count, workers.count) where keptOff[index] != cpu {
            guard let thread = workers[index].thread else { continue }
            // Refused (a CPU gone offline, a smaller cpuset): not asked again until the caller moves.
            _ = CPUSet.restrict(thread, to: allowedCPUs.filter { $0 != cpu })
            keptOff[index] = cpu
        }
    }

    /// Takes the next piece of the current job for `slot` (and says how many pieces the job has), or nil when none
    /// is left or the slot is not in it.
    private func take(slot: Int) -> (piece: Int, of: Int)? {
        var current = ticket.load(ordering: .acquiring)
        while true {
            let t = Ticket(current)
            guard slot < t.slots, t.next < t.pieces else { return nil }
            let (exchanged, original) = ticket.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return (t.next, t.pieces) }
            current = original
        }
    }

    /// A worker's piece: the job is read (and its context retained and released) inside this call, before the
    /// piece counts as done, so the caller's `withoutActuallyEscaping` never sees it held.
    @inline(never)
    private func perform(slot: Int, piece: Int) {
        job?(slot, piece)
    }

    /// Counts a piece done; true when it was the last of `pieces`.
    private func finish(_ pieces: Int) -> Bool {
        finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == pieces
    }

    private func hasWork(slot: Int) -> Bool {
        let t = Ticket(ticket.load(ordering: .sequentiallyConsistent))
        return slot < t.slots && t.next < t.pieces
    }

    private func work(_ index: Int) -> Never {
        let worker = workers[index], slot = index + 1
        let clock = ContinuousClock()
        while true {
            // Look for the next job for a moment, then park: set the flag, look once more (a job published before
            // the flag was seen gets no post), and sleep until a caller clears the flag and posts.
            let deadline = clock.now + Self.spin
            while !hasWork(slot: slot), clock.now < deadline { sched_yield() }
            if !hasWork(slot: slot) {
                worker.parked.store(true, ordering: .sequentiallyConsistent)
                if !hasWork(slot: slot) || !worker.parked.exchange(false, ordering: .sequentiallyConsistent) {
                    worker.wake.wait()
                }
            }
            while let (piece, pieces) = take(slot: slot) {
                perform(slot: slot, piece: piece)
                if finish(pieces) { done.signal() }
            }
        }
    }

    private func startWorker(_ index: Int) -> Bool {
        let context = Unmanaged.passRetained(WorkerContext(pool: self, index: index)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let context = Unmanaged<WorkerContext>.fromOpaque(raw).takeRetainedValue()
                context.pool.work(context.index)
            }, context)
        guard created == 0 else {
            Unmanaged<WorkerContext>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        workers[index].thread = thread
        return true
    }

    /// One worker's parking place: `parked` is set while it sleeps on `wake` (or is about to); `thread` is set once,
    /// by the first caller, before any job.
    /// Unchecked Sendable: `parked` is an atomic, and `thread` is written once by the first caller holding the pool's
    /// `busy` flag and read only by later callers holding it.
    private final class Worker: @unchecked Sendable {
        let parked = Atomic<Bool>(false)
        let wake = DispatchSemaphore(value: 0)
        var thread: pthread_t?
    }

    /// The job word: generation (24 bits), slots (8), pieces (16), next piece (16).
    struct Ticket {
        static let maxPieces = 0xFFFF
        let raw: UInt64
        init(_ raw: UInt64) { self.raw = raw }
        init(generation: UInt64, slots: Int, pieces: Int) {
            raw = (generation & 0xFF_FFFF) << 40 | UInt64(min(slots, 0xFF)) << 32 | UInt64(pieces) << 16
        }
        var generation: UInt64 { raw >> 40 }
        var slots: Int { Int((raw >> 32) & 0xFF) }
        var pieces: Int { Int((raw >> 16) & 0xFFFF) }
        var next: Int { Int(raw & 0xFFFF) }
    }
}

private final class WorkerContext {
    let pool: BandPool
    let index: Int
    init(pool: BandPool, index: Int) {
        self.pool = pool
        self.index = index
    }
}

/// A thread's CPU affinity as a list of CPU numbers.
///
/// glibc declares these calls only for `_GNU_SOURCE`, which the Swift overlay does not define; they are looked up
/// by name instead (absent elsewhere: then nothing is read or restricted).
enum CPUSet {
    private static let bitsPerWord = UInt64.bitWidth
    private static let getCPU = symbol("sched_getcpu", as: (@convention(c) () -> Int32).self)
    private static let getAffinity = symbol("sched_getaffinity", as: (@convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32).self)
    private static let setAffinity = symbol(
        "pthread_setaffinity_np",
        as: (@convention(c) (pthread_t, Int, UnsafeRawPointer) -> Int32).self)

    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }

    /// The CPU the calling thread runs on now, or nil.
    static func current() -> Int32? {
        guard let cpu = getCPU?(), cpu >= 0 else { return nil }
        return cpu
    }

    /// The CPUs the calling thread may run on; empty when that cannot be read.
    static func ofThisThread() -> [Int32] {
        var set = cpu_set_t()
        guard let getAffinity, getAffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 else { return [] }
        // A loop with typed steps: the same as a compactMap in one expression, which Debian's arm64 Swift (an
        // assertions build, under emulation) gave up type-checking.
        return withUnsafeBytes(of: &set) { (raw: UnsafeRawBufferPointer) -> [Int32] in
            let words: UnsafeBufferPointer<UInt64> = raw.bindMemory(to: UInt64.self)
            var cpus: [Int32] = []
            for cpu in 0..<(words.count * bitsPerWord) {
                let bit: UInt64 = 1 << UInt64(cpu % bitsPerWord)
                if words[cpu / bitsPerWord] & bit != 0 { cpus.append(Int32(cpu)) }
            }
            return cpus
        }
    }

    /// Lets `thread` run only on `cpus`; false when the system refused (the thread keeps its affinity).
    static func restrict(_ thread: pthread_t, to cpus: [Int32]) -> Bool {
        var set = cpu_set_t()
        let capacity = MemoryLayout<cpu_set_t>.size * 8
        withUnsafeMutableBytes(of: &set) { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for cpu in cpus where cpu >= 0 && Int(cpu) < capacity {
                words[Int(cpu) / bitsPerWord] |= 1 << UInt64(Int(cpu) % bitsPerWord)
            }
        }
        guard let setAffinity else { return false }
        return setAffinity(thread, MemoryLayout<cpu_set_t>.size, &set) == 0
    }
}

/// Carries a value across a concurrency boundary the compiler cannot see is safe.
/// Unchecked Sendable: nothing in the type makes it safe; each use must, and the one use (`RowParallel.run`) shares
/// a body whose pieces write disjoint rows, inside a `concurrentPerform` that returns only when all are done.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
