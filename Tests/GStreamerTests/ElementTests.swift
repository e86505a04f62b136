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
        #expect(try Bin.make("pipeline").factoryName == "pipeline")
        #expect(try Element.make("fakesink").factoryName == "fakesink")
        #expect(
            GStreamerError.wrongElementType(factory: "fakesink", expected: "GstAppSink", actual: "GstFakeSink")
                .description.contains("fakesink"))
    }

    /// A number of the right type outside the property's range is refused with the range (found by fuzzing
    /// the launch printer: `g_object_set_property` printed a GLib warning and kept the old value, and the
    /// typed graph built without the value it described).
    @Test func aValueOutsideThePropertysRangeIsAnError() throws {
        let source = try Element.make("fakesrc", name: "src")
        #expect(
            throws: GStreamerError.propertyValueOutOfRange(
                element: "src", property: "num-buffers", value: "-5",
                allowed: "-1…2147483647")
        ) {
            try source.set("num-buffers", -5)
        }
        #expect(try source.get("num-buffers", as: Int.self) == -1)
        try source.set("num-buffers", 7)
        #expect(try source.get("num-buffers", as: Int.self) == 7)
        let identity = try Element.make("identity", name: "id")
        #expect(throws: GStreamerError.self) { try identity.set("error-after", Int(Int32.min)) }
        var graph = GraphDescription()
        graph.add("fakesrc", name: "src", ["num-buffers": -5])
        #expect(
            throws: GStreamerError.propertyValueOutOfRange(
                element: "src", property: "num-buffers", value: "-5",
                allowed: "-1…2147483647")
        ) {
            try graph.build()
        }
    }
}
