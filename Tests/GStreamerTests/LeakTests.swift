import GStreamer
import Testing

@Suite("Ownership")
struct LeakTests {
    /// Under `--sanitize=address` LeakSanitizer reports anything these lose; without it they still must not crash.
    @Test func thousandPipelinesBuiltAndDropped() throws {
        for index in 0..<1000 {
            let pipeline = try Pipeline.parse("videotestsrc is-live=\(index % 2 == 0) ! video/x-raw,width=16,height=16 ! tee name=t ! queue ! fakesink t. ! queue ! appsink name=s")
            _ = pipeline.element(named: "s", as: AppSink.self)?.maxBuffers
            _ = pipeline.bus
            switch index % 10 {
            case 0: try pipeline.setState(.playing)   // dropped while PLAYING: deinit sets NULL first
            case 1: try pipeline.setState(.paused)
            default: break                              // never started
            }
        }
    }
}
