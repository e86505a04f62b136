import Base
import Foundation
import Testing

@Suite struct DetachedThreadTests {
    /// The body runs on a thread of its own whose name is the given one cut to the kernel's 15 bytes, never inside a
    /// character.
    @Test func runsTheBodyUnderItsName() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var seen: (name: String, thread: UInt)? = nil
        let started = DetachedThread.start(name: "swiftcam-cafeeé-long") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen = (name.trimmingCharacters(in: .newlines), UInt(pthread_self()))
            done.signal()
        }
        #expect(started)
        done.wait()
        #expect(seen?.name == "swiftcam-cafee")  // the 15th byte is the first of é
        #expect(seen?.thread != UInt(pthread_self()))
    }
}
