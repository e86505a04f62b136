import GStreamer

/// Writes `frames` frames of test pattern as Motion JPEG in Matroska to `path`, built from typed parts.
public func writeClip(to path: String, frames: Int) throws {
    var graph = GraphDescription()
    graph.chain(
        graph.add("videotestsrc", ["num-buffers": .int(frames)]),
        graph.add(
            "capsfilter",
            [
                "caps": .caps(
                    CapsDescription(
                        "video/x-raw",
                        [
                            ("width", .int(64)), ("height", .int(48)),
                            ("framerate", .fraction(10, 1))
                        ]))
            ]),
        graph.add("jpegenc"),
        graph.add("matroskamux"),
        graph.add("filesink", ["location": .string(path)]))
    let pipeline = try graph.build()
    let bus = pipeline.bus
    try pipeline.setState(.playing)
    defer { try? pipeline.setState(.null) }
    guard case .eos? = bus.waitForEnd(timeout: 60) else { throw GStreamerError.timedOut("the clip \(path) to be written") }
}
