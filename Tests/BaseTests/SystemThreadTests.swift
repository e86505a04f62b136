import Base
import Foundation
import Testing

@Suite struct SystemThreadTests {
    /// The body runs on a thread of its own whose name is the given one cut to the kernel's 15 bytes, never inside a
    /// character.
    @Test func runsTheBodyUnderItsName() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var seen: (name: String, thread: UInt)? = nil
        let started = SystemThread.detached(name: "swiftcam-cafeeé-long") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen = (name.trimmingCharacters(in: .newlines), UInt(pthread_self()))
            done.signal()
        }
        #expect(started)
        done.wait()
        #expect(seen?.name == "swiftcam-cafee")  // the 15th byte is the first of é
        #expect(seen?.thread != UInt(pthread_self()))
    }

    /// `join` returns once the body has returned, and a second `join` does nothing.
    @Test func joinWaitsForTheBody() throws {
        let release = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        let thread = try #require(
            SystemThread.joinable(name: "swiftcam-join") {
                release.wait()
                finished.withLock { $0 = true }
            })
        #expect(!thread.isCurrent)
        release.signal()
        thread.join()
        #expect(finished.withLock { $0 })
        thread.join()
    }

    /// Joined from its own body (a bus watch cancelled by its handler) the thread detaches instead of waiting for
    /// itself, and ends.
    @Test func joinFromItselfDetaches() throws {
        let ended = DispatchSemaphore(value: 0)
        let handle = Locked<SystemThread?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = try #require(
            SystemThread.joinable(name: "swiftcam-self") {
                ready.wait()
                let me = handle.withLock { $0 }
                #expect(me?.isCurrent == true)
                me?.join()
                ended.signal()
            })
        handle.withLock { $0 = thread }
        ready.signal()
        ended.wait()
        thread.join()
    }
}
