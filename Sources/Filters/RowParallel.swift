import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits rows into contiguous bands and runs them on a persistent pool of worker threads.
///
/// The calling thread runs band 0 itself; the pool's threads are started once per process and
/// park on a semaphore between frames. `DispatchQueue.concurrentPerform` (the previous way) starts
/// and retires its worker threads on demand: in a short run (`swiftcam bench --quick`, 8 frames)
/// the second band often waited for a thread to be created, which is how two threads could time
/// slower than one. When the pool is busy (two chains processing at once) the bands fall back to
/// `concurrentPerform`.
enum RowParallel {
    /// Below this many samples a frame is done on the calling thread: a hand-off would cost more than it saves.
    static let threshold = 128 * 1024

    /// Online cores, at least 1.
    static let coreCount: Int = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The workers, started on first use: one per core besides the caller.
    static let pool = BandPool(workers: coreCount - 1)

    /// The number of bands `threads` (0 = all cores) gives for a job of `rows` rows and `samples` samples.
    static func bands(threads: Int, rows: Int, samples: Int) -> Int {
        let wanted = threads <= 0 ? coreCount : threads
        guard wanted > 1, samples >= threshold, rows > 1 else { return 1 }
        return min(wanted, rows)
    }

    /// The rows `run` gives band `index` of `bands` (empty when there are more bands than row units).
    static func range(band index: Int, of bands: Int, rows: Int, alignment: Int = 1) -> Range<Int> {
        guard bands > 1 else { return 0..<rows }
        let units = (rows + alignment - 1) / alignment
        let start = min(rows, units * index / bands * alignment)
        let end = min(rows, units * (index + 1) / bands * alignment)
        return start..<max(start, end)
    }

    /// Calls `body(band, rows)` for `bands` consecutive row ranges covering `0..<rows`; rows start on a multiple of `alignment`.
    static func run(rows: Int, bands: Int, alignment: Int = 1, _ body: (Int, Range<Int>) -> Void) {
        guard bands > 1 else {
            body(0, 0..<rows)
            return
        }
        func band(_ index: Int) {
            let range = Self.range(band: index, of: bands, rows: rows, alignment: alignment)
            if !range.isEmpty { body(index, range) }
        }
        if pool.run(bands: bands, band) { return }
        // concurrentPerform wants a @Sendable closure; the bands write disjoint rows and the call
        // returns only when all are done, so handing the non-Sendable body across is safe.
        withoutActuallyEscaping(band) { band in
            let shared = UncheckedSendable(band)
            DispatchQueue.concurrentPerform(iterations: bands) { shared.value($0) }
        }
    }
}

/// Persistent worker threads that each run one band of a job and report back.
///
/// One job at a time: `run` returns false at once when another thread's job holds the pool.
/// The job closure is published before the start semaphores are signalled and cleared after the
/// done semaphore has been taken once per worker, so the semaphores order every access to it.
final class BandPool: @unchecked Sendable {
    private let starts: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 1)
    private var job: ((Int) -> Void)?
    private var started = false

    init(workers: Int) {
        starts = (0..<max(0, workers)).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Runs `body(0)` here and `body(1..<bands)` on the workers; false (nothing run) when the pool is
    /// busy or has too few workers.
    func run(bands: Int, _ body: (Int) -> Void) -> Bool {
        guard bands - 1 <= starts.count, idle.wait(timeout: .now()) == .success else { return false }
        defer { idle.signal() }
        if !started {
            started = true
            usable = starts.indices.allSatisfy { startWorker($0) }
        }
        guard usable else { return false }
        withoutActuallyEscaping(body) { body in
            job = body
            for index in 0..<(bands - 1) { starts[index].signal() }
            body(0)
            for _ in 0..<(bands - 1) { done.wait() }
            job = nil
        }
        return true
    }

    /// False when a worker thread could not be created; jobs then go to `concurrentPerform`.
    private var usable = false

    private func startWorker(_ index: Int) -> Bool {
        let context = Unmanaged.passRetained(WorkerContext(pool: self, index: index)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let context = Unmanaged<WorkerContext>.fromOpaque(raw).takeRetainedValue()
            context.pool.work(context.index)
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<WorkerContext>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private func work(_ index: Int) -> Never {
        while true {
            starts[index].wait()
            job?(index + 1)
            done.signal()
        }
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

/// Carries a value across a concurrency boundary the compiler cannot see is safe.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
