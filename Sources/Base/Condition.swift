import CBase  // pthread types through <pthread.h>, as for Locked
import Glibc

/// A value behind a pthread mutex with a condition variable: threads wait for the value to reach a state
/// (with a deadline), and whoever changes it wakes them. The waiting thread holds no lock while it waits.
///
/// pthread rather than `Synchronization.Mutex` for the reason `Locked` gives: ThreadSanitizer sees it.
/// Unchecked Sendable: `value` is read and written only with `mutex` held, and `condition` is a pthread
/// condition variable, which is made to be waited on and signalled from any thread.
public final class Condition<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex = PthreadMutex()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Wraps an initial value.
    public init(_ value: Value) {
        self.value = value
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Deadlines are on the monotonic clock, so a wall-clock step cannot stretch or cut a wait.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Reads or changes the value; waiters are woken afterwards, so they see the change.
    /// Keep `body` short: no waiting, encoding or state changes inside.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        mutex.lock()
        defer {
            pthread_cond_broadcast(condition)
            mutex.unlock()
        }
        return try body(&value)
    }

    /// Changes the value like `withLock`, but wakes the waiters only when `body` returns true: for a value that
    /// changes far more often than its waiters care (a frame count waited on for one number), where a wake-up per
    /// change would put a thread on a CPU each time for nothing.
    public func change(wakingIf body: (inout Value) -> Bool) {
        mutex.lock()
        if body(&value) { pthread_cond_broadcast(condition) }
        mutex.unlock()
    }

    /// Monotonic seconds past which a deadline is no deadline (about 31 700 years of uptime): far inside `Int`'s range.
    public static var farthestDeadline: Double { 1e12 }

    /// Blocks until `done` returns a result for the value, or until `deadline` (monotonic seconds, see
    /// `MonotonicClock.now`) passes; returns nil on the deadline. `done` runs under the lock and may change
    /// the value (to claim what it waited for).
    public func wait<Result>(until deadline: Double = .infinity, for done: (inout Value) -> Result?) -> Result? {
        mutex.lock()
        defer {
            pthread_cond_broadcast(condition)
            mutex.unlock()
        }
        // A deadline past `farthestDeadline` (or NaN) waits without one: `Int(_:)` of a Double past Int's range
        // traps, and nothing that far away is a deadline anyone means. Clamped below at 0: already passed.
        let bounded = deadline.isNaN ? Double.infinity : deadline
        let timed = bounded < Self.farthestDeadline
        var limit = timespec()
        if timed {
            let clamped = max(bounded, 0)
            limit.tv_sec = Int(clamped)
            limit.tv_nsec = Int((clamped - Double(Int(clamped))) * 1e9)
        }
        while true {
            if let result = done(&value) { return result }
            if timed {
                if pthread_cond_timedwait(condition, mutex.pointer, &limit) == ETIMEDOUT { return done(&value) }
            } else {
                pthread_cond_wait(condition, mutex.pointer)
            }
        }
    }
}

/// Seconds on the monotonic clock, the clock every deadline in SwiftCam is on.
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary start. Calls `clock_gettime(CLOCK_MONOTONIC)`.
    public static var now: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
