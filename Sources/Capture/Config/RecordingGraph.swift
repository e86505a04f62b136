public import Config
public import GStreamer

/// The pipelines of their own a session starts beside the live graph: the recording's encoder and muxer, the branch a
/// consumer hangs on the tee, and the one-frame still encoder.
extension PipelineBuilder {
    /// The recording pipeline, started on `record start`: `appsrc name=record-src` → one fixed raw format →
    /// encoder (`encoder`, else the one `recordEncoders` chooses now) → muxer → `filesink name=record-file location=…`.
    public func recordingGraph(location: String, encoder: EncoderCandidate? = nil) -> GraphDescription {
        var graph = GraphDescription()
        // Bounded and leaky: about a second of frames absorbs an encoder's stalls; one slower than the
        // camera for longer drops the oldest frames (counted as queue drops) instead of queueing without limit.
        let source = graph.add(
            "appsrc", name: "record-src",
            [
                "format": "time", "is-live": true, "do-timestamp": false,
                "max-buffers": 30, "max-bytes": 0, "leaky-type": "downstream"
            ])
        let queue = graph.add("queue", name: "encode-queue", ["max-size-buffers": 4, "max-size-bytes": 0, "max-size-time": 0])
        graph.link(source, to: queue)
        // One fixed raw format into every encoder (muxers refuse caps changes): the encoder's chain begins with it.
        let choice = recordEncoders
        let encoder = encoder ?? choice.chosen ?? choice.candidates.first ?? EncoderChoice.jpeg
        var chain = [encoder.addChain(after: queue, for: .record, to: &graph)]
        if config.record?.segment != nil {
            // Segments: the recording links this end to its `segmentSplitter` once that holds its muxer and file sink
            // (splitmuxsink takes them only before its first pad is linked, so no graph text can build it).
            chain.append(graph.add("identity", name: Self.Names.recordEncoded))
        } else {
            let (muxer, properties) = recordMuxer
            chain.append(graph.add(muxer, name: "mux", properties: properties))
            chain.append(
                graph.add("filesink", name: "record-file", properties: [("location", .string(location))] + Self.recordFileProperties))
        }
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        return graph
    }

    /// A segmented recording's end: a splitmuxsink with its muxer and file sink (whose location it sets per file), which
    /// cuts at the first key frame after `record.segment` seconds, asking the encoder for one then, and finishes each
    /// file before the next opens. Nil without `record.segment`.
    public func segmentSplitter() throws -> (splitter: Element, sink: Element)? {
        guard let segment = config.record?.segment else { return nil }
        let (factory, properties) = recordMuxer
        let muxer = try Element.make(factory, name: "mux"), sink = try Element.make("filesink", name: "record-file")
        for (property, value) in properties { try value.apply(to: muxer, property: property) }
        for (property, value) in Self.recordFileProperties { try value.apply(to: sink, property: property) }
        let splitter = try Element.make("splitmuxsink", name: Self.Names.recordSplit)
        for (property, value) in splitterProperties(segment: segment) { try value.apply(to: splitter, property: property) }
        try splitter.set("muxer", element: muxer)
        try splitter.set("sink", element: sink)
        return (splitter, sink)
    }

    /// `record.segment` is bounded by validation (at most 10⁹ s), so its nanoseconds fit.
    fileprivate func splitterProperties(segment: Double) -> [(String, GraphValue)] {
        [("max-size-time", .int(Int((segment * 1e9).rounded()))), ("send-keyframe-requests", true)]
    }

    /// The recording's muxer: both containers stay playable after a crash up to their last cluster or fragment.
    fileprivate var recordMuxer: (factory: String, properties: [(String, GraphValue)]) {
        switch config.record?.container ?? .matroska {
        case .matroska: ("matroskamux", [("min-cluster-duration", 500_000_000), ("max-cluster-duration", 1_000_000_000)])
        case .mp4: ("mp4mux", [("fragment-duration", 1000), ("streamable", true)])
        }
    }

    /// Unbuffered, so every muxed block reaches the kernel at once and `kill -9` loses at most the open cluster.
    fileprivate static let recordFileProperties: [(String, GraphValue)] = [("buffer-mode", "unbuffered"), ("sync", false), ("async", false)]

    /// The recording pipeline's gst-launch text, for `swiftcam show`.
    public func recordingLaunchDescription(location: String) -> String {
        let text = recordingGraph(location: location).launchText
        guard let segment = config.record?.segment else { return text }
        // The same splitter as gst-launch can build it: from the muxer's factory and properties (which splitmuxsink
        // only reads when it finalizes files asynchronously).
        let (muxer, properties) = recordMuxer
        let muxerProperties = properties.map { "\($0.0)=\($0.1.serialized)" }.joined(separator: ",")
        let splitter = splitterProperties(segment: segment).map { "\($0.0)=\($0.1.serialized)" }.joined(separator: " ")
        return text + " ! splitmuxsink name=\(Self.Names.recordSplit) \(splitter) async-finalize=true muxer-factory=\(muxer)"
            + " \"muxer-properties=properties,\(muxerProperties)\" location=\(GraphValue.string(location).serialized)"
    }

    /// The branch a consumer (a recording, a live encoder) hangs on the tee: a leaky queue of `backlog` frames
    /// into `appsink name=NAME-tap`, as a bin whose ghost `sink` pad links to a tee pad.
    public static func feedGraph(name: String, backlog: Int) -> GraphDescription {
        var graph = GraphDescription()
        let queue = graph.add(
            "queue", name: "\(name)-queue",
            [
                "max-size-buffers": .int(backlog), "max-size-bytes": 0,
                "max-size-time": 0, "leaky": "downstream"
            ])
        graph.chain(queue, graph.add("appsink", name: "\(name)-tap", ["sync": false]))
        graph.ghost("sink", queue, pad: "sink")
        return graph
    }

    /// The one-frame still encoder: `appsrc name=in` → `videoconvert` → JPEG or PNG → `appsink name=out`.
    public static func stillEncoderGraph(format: StillConfig.Format, quality: Int) -> GraphDescription {
        var graph = GraphDescription()
        let source = graph.add("appsrc", name: "in", ["format": "time"])
        let convert = graph.add("videoconvert")
        let sink = graph.add("appsink", name: "out", ["sync": false])
        switch format {
        case .png:
            graph.chain(source, convert, graph.add("pngenc", ["compression-level": 3, "snapshot": false]), sink)
        case .jpeg:
            // JFIF is full range. A camera's YUV is limited range (black 16, white 235) and jpegenc would write
            // it as is, washed out; through RGB, videoconvert expands the range and libjpeg writes JFIF's own.
            let rgb = graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("RGB"))]))])
            graph.chain(source, convert, rgb, graph.add("jpegenc", ["quality": .int(quality)]), sink)
        }
        return graph
    }

    /// The file extension recordings get.
    public var recordExtension: String {
        (config.record?.container ?? .matroska) == .mp4 ? "mp4" : "mkv"
    }
}
