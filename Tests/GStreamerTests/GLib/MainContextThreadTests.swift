import Base
import GStreamer
import Glibc
import Testing

@Suite("MainContextThread")
struct MainContextThreadTests {
    /// `start` runs its set-up on the new thread; `invoke` and `sync` from elsewhere run there too.
    @Test func invokeRunsOnTheThread() throws {
        let thread = MainContextThread(name: "swiftcam-test-context")
        let own = try thread.start { (pthread_self(), thread.isCurrent) }
        defer { thread.stop() }
        #expect(own.1, "set-up did not run with the context held")
        #expect(pthread_equal(own.0, pthread_self()) == 0, "set-up ran on the caller's thread")
        let seen = Condition<pthread_t?>(nil)
        thread.invoke { seen.withLock { $0 = pthread_self() } }
        let invoked = seen.wait(until: MonotonicClock.now + 30) { $0 }
        #expect(invoked.map { pthread_equal($0, own.0) != 0 } == true, "invoke ran elsewhere than the loop's thread")
        #expect(thread.sync { pthread_equal(pthread_self(), own.0) != 0 && thread.isCurrent })
        #expect(!thread.isCurrent)
    }

    /// `stop` returns once the thread is past the end of its loop, and work handed over before it has all run by then.
    @Test func stopJoinsTheThread() throws {
        let thread = MainContextThread(name: "swiftcam-test-stop")
        try thread.start { () }
        #expect(thread.isRunning)
        let count = Locked(0)
        for _ in 0..<100 { thread.invoke { count.withLock { $0 += 1 } } }
        thread.stop()
        #expect(!thread.isRunning, "stop returned before the thread ended")
        #expect(count.withLock { $0 } == 100, "stop returned before the work handed over ran")
        thread.stop()  // idempotent
    }

    /// A set-up that throws ends the thread, and the error comes back from `start`.
    @Test func failedSetUpRethrows() {
        struct SetUpFailed: Error {}
        let thread = MainContextThread(name: "swiftcam-test-failed")
        #expect(throws: SetUpFailed.self) { try thread.start { throw SetUpFailed() } }
        thread.stop()
        #expect(throws: MainContextError.alreadyStarted(name: "swiftcam-test-failed")) { try thread.start { () } }
    }

    /// A repeating source runs on the thread until its work says stop; a cancelled one stops at once.
    @Test func repeatingSourceRunsUntilDone() throws {
        let thread = MainContextThread(name: "swiftcam-test-timer")
        thread.start()
        defer { thread.stop() }
        let ticks = Condition(0)
        let source = thread.repeating(every: 0.001) {
            ticks.withLock {
                $0 += 1
                return $0 < 3
            }
        }
        #expect(ticks.wait(until: MonotonicClock.now + 30) { $0 == 3 ? true : nil } == true)
        source.cancel()
        #expect(thread.sync { ticks.withLock { $0 } } == 3, "the source ran after it said stop")
    }
}
