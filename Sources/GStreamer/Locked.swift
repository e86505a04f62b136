import CGStreamer  // pthread_mutex_t comes through GStreamer's headers in a release build, as in Condition.swift
import Glibc

/// A value behind a pthread mutex, for state shared with GStreamer's streaming threads. The value must be
/// `Sendable`: it crosses threads, and a non-Sendable reference inside would escape the lock.
///
/// Not `Synchronization.Mutex`: on Linux that is a raw futex ThreadSanitizer cannot see, so every
/// properly locked access would be reported as a race and `--sanitize=thread` would prove nothing.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Wraps an initial value.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access; keep it short and never touch pixels inside.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
