import Base
import Dispatch
import Glibc
import Testing

@Suite("Condition")
struct ConditionTests {
    /// `change(wakingIf:)` wakes a waiter only when its body says so: the waiter's predicate runs once before it
    /// waits and once more when the value it wants arrives, not after every change on the way (as a change
    /// through `withLock` would have it, which is what this counts).
    @Test func changeWakesTheWaiterOnlyWhenAsked() {
        let value = Condition(0)
        let looks = Locked(0)
        let waiting = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let reached = Locked<Int?>(nil)
        DispatchQueue(label: "swiftcam.tests.condition-waiter").async {
            let result = value.wait(until: MonotonicClock.now + 20) { current -> Int? in
                if looks.withLock({ count -> Int in
                    count += 1; return count
                }) == 1 {
                    waiting.signal()
                }
                return current >= 5 ? current : nil
            }
            reached.withLock { $0 = result }
            done.signal()
        }
        guard waiting.wait(timeout: .now() + 20) == .success else {
            Issue.record("the waiter did not start within 20 s")
            return
        }
        for step in 1...5 {
            // Taking the lock means the waiter has released it, inside its wait.
            value.change { current in
                current = step
                return current >= 5
            }
            usleep(5_000)  // room for a woken waiter to look before the next change
        }
        #expect(done.wait(timeout: .now() + 20) == .success, "the waiter was not woken for 5")
        #expect(reached.withLock { $0 } == 5)
        #expect(looks.withLock { $0 } == 2, "the waiter looked after changes that did not ask to wake it")
    }

    /// A deadline past `Int`'s range in seconds (a `duration` of 1e20 from a user) is no deadline, not a trap:
    /// this converted the deadline with `Int(_:)` and died with SIGILL ("Double value cannot be converted to Int").
    @Test(arguments: [1e20, 1e308, -1e308, Double.nan])
    func farDeadlinesNeverTrap(deadline: Double) {
        let value = Condition(7)
        #expect(value.wait(until: deadline) { $0 } == 7)
        // A deadline far away but timed: it waits, and a change ends the wait.
        let done = value.wait(until: MonotonicClock.now + 1e9) { $0 }
        #expect(done == 7)
    }
}
