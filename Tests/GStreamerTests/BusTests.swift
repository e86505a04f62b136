import Base
import Dispatch
import GStreamer
import Testing

@Suite("Bus watches")
struct BusTests {
    @Test func watchRunsWithoutMainLoopAndStops() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=5 ! fakesink")
        let ends = Counter()
        let ended = DispatchSemaphore(value: 0)
        let watch = pipeline.bus.watch { message in
            if case .eos = message {
                ends.add()
                ended.signal()
            }
        }
        try pipeline.setState(.playing)
        #expect(ended.wait(timeout: .now() + 20) == .success, "no end of stream within 20 s")
        #expect(finishes(within: 10, "cancel() of a running watch") { watch.cancel() })
        #expect(ends.value == 1)
        try pipeline.setState(.null)
    }

    /// In NULL the bus is flushing: the wake-up `cancel()` posts is dropped, and only the watch's own
    /// deadline can end its wait (the recorder's error paths stop the pipeline before cancelling).
    @Test func watchCancelledAfterThePipelineReachedNullReturns() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=3 ! fakesink")
        let ended = DispatchSemaphore(value: 0)
        let watch = pipeline.bus.watch { message in
            if case .eos = message { ended.signal() }
        }
        try pipeline.setState(.playing)
        #expect(ended.wait(timeout: .now() + 20) == .success, "no end of stream within 20 s")
        try pipeline.setState(.null)
        #expect(finishes(within: 10, "cancel() after NULL") { watch.cancel() })
    }

    @Test func watchReleasedWithoutCancelAfterNullReturns() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=1 ! fakesink")
        try pipeline.setState(.playing)
        try pipeline.setState(.null)
        let bus = pipeline.bus
        #expect(
            finishes(within: 10, "a watch's deinit after NULL") {
                _ = bus.watch { _ in }  // dropped at once: deinit cancels
            })
    }

    /// setState names the failing element's message without taking it from under the watch that owns the bus:
    /// the watch still sees every error. (filesink posts its own error, then GstBaseSink a second one.)
    @Test func stateChangeFailureLeavesTheErrorsToTheWatch() throws {
        let pipeline = try Pipeline.parse("fakesrc ! filesink name=file location=/nonexistent/directory/file")
        let errors = Locked<[String]>([])
        let posted = DispatchSemaphore(value: 0)
        let watch = pipeline.bus.watch { message in
            if case let .error(source, text, debug, _) = message {
                errors.withLock { $0.append("\(source): \(text) \(debug ?? "")") }
                posted.signal()
            }
        }
        #expect {
            try pipeline.setState(.playing)
        } throws: { error in
            guard case let .stateChangeFailed(element, state, message)? = error as? GStreamerError else { return false }
            return element == "file" && state == .playing && message.contains("nonexistent")
        }
        // Wait for the file's error on the watch, at most 10 s in all.
        let deadline = DispatchTime.now() + 10
        while !errors.withLock({ $0.contains { $0.contains("nonexistent") } }), posted.wait(timeout: deadline) == .success {}
        #expect(
            errors.withLock { $0.contains { $0.hasPrefix("file: ") && $0.contains("nonexistent") } },
            "the watch never saw the file's error: \(errors.withLock { $0 })")
        try pipeline.setState(.null)
        #expect(finishes(within: 10, "cancel() after a failed start") { watch.cancel() })
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it: a hang becomes a recorded issue
/// (the stuck thread is left behind) instead of a test run that never ends.
func finishes(within seconds: Double, _ what: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    // A serial queue of its own overcommits: a body that never returns takes no thread another test needs.
    DispatchQueue(label: "swiftcam.tests.watchdog").async {
        body()
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        Issue.record("\(what) did not return within \(seconds) s")
        return false
    }
    return true
}
