import CBase  // pthread_mutex_t through <pthread.h>: Swift's Glibc module alone does not always show it
import Glibc

/// A value behind a pthread mutex, for state shared with GStreamer's streaming threads. The value must be
/// `Sendable`: it crosses threads, and a non-Sendable reference inside would escape the lock.
///
/// Not `Synchronization.Mutex`: on Linux that is a raw futex ThreadSanitizer cannot see, so every
/// properly locked access would be reported as a race and `--sanitize=thread` would prove nothing.
/// Unchecked Sendable: `value` is read and written only inside `withLock`, with `mutex` held.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex = PthreadMutex()

    /// Wraps an initial value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access; keep it short and never touch pixels inside.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}

/// A pthread mutex at a fixed address (pthread forbids moving one), destroyed with its owner: the lock of
/// `Locked` and `Condition`.
struct PthreadMutex: ~Copyable {
    /// The mutex itself, for `pthread_cond_wait`.
    let pointer: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: pthread_mutex_t())
        pthread_mutex_init(pointer, nil)
    }

    deinit {
        pthread_mutex_destroy(pointer)
        pointer.deallocate()
    }

    /// Calls `pthread_mutex_lock`.
    func lock() { pthread_mutex_lock(pointer) }

    /// Calls `pthread_mutex_unlock`.
    func unlock() { pthread_mutex_unlock(pointer) }
}
