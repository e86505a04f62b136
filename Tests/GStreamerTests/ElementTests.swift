import GStreamer
import Testing

@Suite("Elements")
struct ElementTests {
    /// A wrapper never stands for an element of another type: its methods would read the wrong C struct.
    @Test func makeChecksTheElementType() throws {
        #expect(throws: GStreamerError.wrongElementType(factory: "fakesink", expected: "GstAppSink", actual: "GstFakeSink")) {
            try AppSink.make("fakesink")
        }
        #expect(throws: GStreamerError.wrongElementType(factory: "appsink", expected: "GstAppSrc", actual: "GstAppSink")) {
            try AppSrc.make("appsink")
        }
        #expect(throws: GStreamerError.wrongElementType(factory: "queue", expected: "GstBin", actual: "GstQueue")) {
            try Bin.make("queue")
        }
        #expect(try AppSink.make("appsink").factoryName == "appsink")
        #expect(try Bin.make("pipeline") is Bin)
        #expect(try Element.make("fakesink").factoryName == "fakesink")
        #expect(GStreamerError.wrongElementType(factory: "fakesink", expected: "GstAppSink", actual: "GstFakeSink")
            .description.contains("fakesink"))
    }
}
