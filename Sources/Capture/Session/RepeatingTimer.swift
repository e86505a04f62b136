import Base
import Dispatch

/// A timer that repeats on a queue until it is stopped or started again (which replaces the running one), from any
/// thread: what the periodic stills and the storage budget's checks run on.
final class RepeatingTimer: Sendable {
    /// Unchecked Sendable: a dispatch source is thread-safe, and this one is only replaced or cancelled under the lock.
    private struct Slot: @unchecked Sendable {
        var timer: DispatchSourceTimer?
    }

    private let queue: DispatchQueue
    private let slot = Locked(Slot())

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    deinit {
        stop()
    }

    /// Runs `handler` on the queue every `interval`, the first time after `delay`.
    func start(every interval: DispatchTimeInterval, after delay: DispatchTimeInterval, _ handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + delay, repeating: interval)
        timer.setEventHandler(handler: handler)
        slot.withLock { slot in
            slot.timer?.cancel()
            slot.timer = timer
        }
        timer.resume()
    }

    /// Stops the timer, if it runs; a handler already running finishes.
    func stop() {
        slot.withLock { slot in
            slot.timer?.cancel()
            slot.timer = nil
        }
    }
}
