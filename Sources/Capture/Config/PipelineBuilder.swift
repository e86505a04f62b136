public import Camera
public import Config
public import Filters
import FoundationEssentials
public import GStreamer
import Glibc
import SwiftFilterElement

/// Turns a config into a typed graph (`GraphDescription`) with named elements, builds it, and prints it.
///
/// A structured config's values go into element properties through typed setters and caps through typed
/// fields; none is ever parsed as graph syntax. Only a raw `"launch"` config is launch text, because the
/// user wrote it. Structured graphs read: sources → caps → [input-selector] → [videoflip] → `swiftfilter name=filter` →
/// `tee name=split` → one leaky queue per branch (preview, still frames, tap). The filter sits before the
/// tee, so every branch sees filtered frames; recordings attach to the tee while running.
public struct PipelineBuilder: Sendable {
    /// Element names the session looks up.
    public enum Names {
        public static let filter = "filter"
        public static let tee = "split"
        public static let selector = "selector"
        public static let stillFrames = "still-frames"
        public static let tap = "tap"
        public static let preview = "preview"
        /// The splitmuxsink of a segmented recording, and the end of the encoder's chain it links to.
        public static let recordSplit = "record-split"
        public static let recordEncoded = "record-encoded"
        /// The clocked identity that plays a `file` source in real time.
        public static func pace(_ index: Int) -> String { "pace\(index)" }
        public static func source(_ index: Int) -> String { "source\(index)" }
        public static func sourceCaps(_ index: Int) -> String { "source\(index)-caps" }
    }

    /// The config being built.
    public let config: PipelineConfig
    /// Whether a display exists for `preview: auto`.
    public let hasDisplay: Bool

    /// How each v4l2 source (by index) reaches the config's caps, for the cameras present when it was resolved.
    public private(set) var cameraPlans: [Int: CameraPlan] = [:]
    /// How each libcamera source (by index) does, in its child process, for the cameras libcamera listed.
    public private(set) var libcameraPlans: [Int: LibcameraPlan] = [:]
    /// Each `launch` source (by index) as its child process runs it.
    public private(set) var launchSources: [Int: ChildSource] = [:]

    /// Every source (by index) that runs in a child process: libcamera's and `launch` sources.
    public var childSources: [Int: ChildSource] {
        libcameraPlans.mapValues(\.child).merging(launchSources) { first, _ in first }
    }

    public init(config: PipelineConfig, hasDisplay: Bool = PipelineBuilder.displayAvailable) {
        self.config = config
        self.hasDisplay = hasDisplay
    }

    /// This builder with a plan for every v4l2 source whose camera opens: its modes read, the one that serves
    /// the config chosen. A camera that is absent or cannot be opened gets no plan (starting reports why);
    /// one that cannot serve the config throws, naming what it can.
    public func resolvingCameras() throws(ModeChoiceError) -> PipelineBuilder {
        var resolved = self
        resolved.cameraPlans = [:]
        resolved.libcameraPlans = [:]
        resolved.launchSources = [:]
        for (index, source) in (config.sources ?? []).enumerated() {
            switch source.kind {
            case .v4l2:
                guard let formats = try? CameraDevice(path: source.device ?? "/dev/video0").formats() else { continue }
                resolved.cameraPlans[index] = try CameraPlan.make(source: source, caps: config.caps, formats: formats)
            case .libcamera:
                // Listed by a child process (`cam`); a camera libcamera does not list gets no plan, and starting says so.
                guard let camera = try? LibcameraDiscovery.camera(id: source.camera) else { continue }
                resolved.libcameraPlans[index] = try LibcameraPlan.make(
                    source: source, caps: config.caps, camera: camera, socketPath: ChildSource.socketPath(index))
            case .launch:
                resolved.launchSources[index] = ChildSource.launch(
                    source.launch ?? "", index: index, caps: config.caps, socketPath: ChildSource.socketPath(index))
            case .test, .file:
                continue
            }
        }
        return resolved
    }

    /// One line per planned camera: the mode chosen, its decoder and steps, and why (`CameraPlan.summary`).
    public var cameraSummaries: [String] {
        (Set(cameraPlans.keys).union(libcameraPlans.keys)).sorted().compactMap { cameraPlans[$0]?.summary ?? libcameraPlans[$0]?.summary }
    }

    /// Whether an X11 or Wayland display answers (`DisplayProbe`): a stale `DISPLAY` is no display.
    public static var displayAvailable: Bool { display.isAvailable }

    /// The displays the environment names, probed once per process (a connection each, closed at once).
    public static let display = DisplayProbe()

    /// The typed graph of a structured config; nil for a raw `"launch"` config.
    public var graph: GraphDescription? {
        config.launch == nil ? structuredGraph() : nil
    }

    /// The gst-launch text of the graph: the user's own for a `"launch"` config, else printed from `graph`.
    public var launchDescription: String {
        config.launch ?? structuredGraph().launchText
    }

    /// The shell line `swiftcam show` prints; pasted into a shell it runs this graph.
    public var launchCommand: String {
        if let launch = config.launch { return "gst-launch-1.0 \(launch)" }
        return structuredGraph().shellCommand()
    }

    /// The built graph, paused so caps are negotiated, as Graphviz text (`show --dot`).
    public func dotGraph() throws -> String {
        let pipeline = try build()
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.paused, timeout: 5)
        return pipeline.dotDescription()
    }

    /// Builds the graph (registering `swiftfilter` first): from factories and typed properties, or, for a
    /// `"launch"` config, by parsing the user's text.
    public func build() throws -> Pipeline {
        SwiftFilterElement.register()
        if let launch = config.launch { return try Pipeline.parse(launch) }
        // The filter gets the config's chain as a value, not as text to parse again.
        let pipeline = try structuredGraph(chainText: false).build()
        if let filter = pipeline.element(named: Names.filter) { SwiftFilterElement.setChain(filterChain, on: filter) }
        return pipeline
    }

    // MARK: - The live graph

    /// The config's filter chain as a value: parsed by the loader (a config decoded without it is parsed here).
    public var filterChain: FilterChain {
        config.filterChain ?? config.filter.flatMap { try? FilterChain(parsing: $0) } ?? FilterChain([])
    }

    /// Sources → caps → [input-selector] → [mirror, rotate] → swiftfilter → tee → leaky branches. With `chainText`
    /// the filter's `chain` property holds the chain's text, as a printed line needs; a graph built to run leaves it
    /// out and `build` hands the filter the chain itself.
    func structuredGraph(chainText: Bool = true) -> GraphDescription {
        var graph = GraphDescription()
        let sources = config.sources ?? []
        if sources.count > 1 {
            let selector = graph.add("input-selector", name: Names.selector, ["sync-streams": false, "cache-buffers": false])
            let tee = addProcessing(after: selector, chainText: chainText, to: &graph)
            for (index, source) in sources.enumerated() {
                let tail = addSource(source, index: index, to: &graph)
                let queue = graph.add("queue", ["max-size-buffers": 2, "leaky": "downstream"])
                graph.link(tail, to: queue)
                graph.link(queue, to: selector, sinkPad: "sink_\(index)")
            }
            addBranches(from: tee, to: &graph)
        } else if let source = sources.first {
            let tail = addSource(source, index: 0, to: &graph)
            let tee = addProcessing(after: tail, chainText: chainText, to: &graph)
            addBranches(from: tee, to: &graph)
        }
        return graph
    }

    /// The raw format every source is brought to, from the config's typed fields.
    private var caps: CapsDescription {
        var fields: [(String, CapsDescription.Value)] = []
        let caps = config.caps
        if let format = caps?.format { fields.append(("format", .string(format))) }
        if let width = caps?.width { fields.append(("width", .int(width))) }
        if let height = caps?.height { fields.append(("height", .int(height))) }
        if let framerate = caps?.framerate, let (numerator, denominator) = CapsConfig.parseFramerate(framerate) {
            fields.append(("framerate", .fraction(numerator, denominator)))
        }
        return CapsDescription("video/x-raw", fields)
    }

    /// One source up to its caps filter (and its own mirror); returns the last element.
    private func addSource(_ source: SourceConfig, index: Int, to graph: inout GraphDescription) -> GraphDescription.Handle {
        let name = Names.source(index)
        var chain: [GraphDescription.Handle]
        switch source.kind {
        case .test:
            // Live, like a camera: frames come at the frame rate, not as fast as possible.
            chain = [graph.add("videotestsrc", name: name, ["is-live": true, "pattern": .string(source.pattern ?? "smpte")])]
        case .v4l2:
            if let plan = cameraPlans[index] {
                chain = plan.addElements(named: name, source: source, to: &graph)
                break
            }
            // No camera to ask (`show` on another machine): the camera's format if the config names one, and
            // every conversion, so the line still plays on whatever modes the camera has.
            var properties: [(String, GraphValue)] = [("device", .string(source.device ?? "/dev/video0"))]
            if let mode = source.ioMode { properties.append(("io-mode", .string(mode))) }
            chain = [graph.add("v4l2src", name: name, properties: properties)]
            if let fourcc = source.format.flatMap(ModeChooser.fourcc(named:)) {
                if let raw = ModeChooser.rawFormats[fourcc] {
                    chain.append(graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string(raw))]))]))
                } else {
                    chain.append(graph.add("capsfilter", ["caps": .caps(CapsDescription("image/jpeg"))]))
                    chain.append(graph.add(JPEGDecoder.software))
                }
            }
            chain += [graph.add("videorate"), graph.add("videoscale"), graph.add("videoconvert")]
        case .libcamera:
            if let plan = libcameraPlans[index] {
                chain = plan.child.addHostElements(named: name, to: &graph)
                break
            }
            // No camera to ask (`show` on a machine without it): libcamerasrc in process, every conversion after it.
            var properties: [(String, GraphValue)] = []
            if let camera = source.camera { properties.append(("camera-name", .string(camera))) }
            chain = [
                graph.add("libcamerasrc", name: name, properties: properties), graph.add("videorate"), graph.add("videoscale"),
                graph.add("videoconvert")
            ]
        case .launch:
            // Unresolved (`graph` before `resolvingCameras`): the same child, its socket named but not yet made.
            let child = launchSources[index] ?? ChildSource.launch(source.launch ?? "", index: index, caps: config.caps, socketPath: "")
            chain = child.addHostElements(named: name, to: &graph)
        case .file:
            let location = source.path ?? ""
            let uri = location.contains("://") ? location : URL(fileURLWithPath: location).absoluteString
            chain = [
                graph.add("uridecodebin", name: name, ["uri": .string(uri)]),
                graph.add("videoconvert"), graph.add("videoscale"), graph.add("videorate")
            ]
            // A file decodes as fast as the CPU allows, and every sink here is sync=false (a camera paces itself):
            // without a clock of its own it would play in a burst and the branch queues would drop most of it.
            // `identity sync=true` waits for each frame's time on the pipeline clock, as a camera would deliver it.
            if source.realtime ?? true { chain.append(graph.add("identity", name: Names.pace(index), ["sync": true])) }
        }
        chain.append(graph.add("capsfilter", name: Names.sourceCaps(index), ["caps": .caps(caps)]))
        // `video-direction`, not the deprecated `method`: gst-launch-1.0 1.22 sets properties at construction,
        // where videoflip's `video-direction` default then overwrites `method`, and the printed line would not flip.
        if source.mirror == true { chain.append(graph.add("videoflip", ["video-direction": "horiz"])) }
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        return chain[chain.count - 1]
    }

    /// Orientation, the filter and the tee after `upstream`; returns the tee.
    private func addProcessing(
        after upstream: GraphDescription.Handle, chainText: Bool, to graph: inout GraphDescription
    ) -> GraphDescription.Handle {
        var chain = [upstream]
        if config.mirror == true { chain.append(graph.add("videoflip", name: "mirror", ["video-direction": "horiz"])) }
        switch config.rotate ?? 0 {
        case 90: chain.append(graph.add("videoflip", name: "rotate", ["video-direction": "90r"]))
        case 180: chain.append(graph.add("videoflip", name: "rotate", ["video-direction": "180"]))
        case 270: chain.append(graph.add("videoflip", name: "rotate", ["video-direction": "90l"]))
        default: break
        }
        let text: [(String, GraphValue)] = chainText ? [("chain", .string(filterChain.description))] : []
        chain.append(graph.add(SwiftFilterElement.factoryName, name: Names.filter, properties: text))
        chain.append(graph.add("tee", name: Names.tee, ["allow-not-linked": true]))
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        return chain[chain.count - 1]
    }

    /// One leaky queue per branch off the tee: preview, still frames, tap.
    private func addBranches(from tee: GraphDescription.Handle, to graph: inout GraphDescription) {
        func branch(_ queue: String, buffers: Int, _ tail: [GraphDescription.Handle]) {
            let head = graph.add(
                "queue", name: queue,
                [
                    "max-size-buffers": .int(buffers), "max-size-bytes": 0,
                    "max-size-time": 0, "leaky": "downstream"
                ])
            graph.link(tee, to: head)
            for (upstream, downstream) in zip([head] + tail, tail) { graph.link(upstream, to: downstream) }
        }
        switch config.preview ?? .auto {
        case .window:
            branch(
                "preview-queue", buffers: 2, [graph.add("videoconvert"), graph.add("autovideosink", name: Names.preview, ["sync": false])])
        case .auto where hasDisplay:
            branch(
                "preview-queue", buffers: 2, [graph.add("videoconvert"), graph.add("autovideosink", name: Names.preview, ["sync": false])])
        case .auto:
            // Headless: the preview still runs (and is counted) into a fake sink.
            branch("preview-queue", buffers: 2, [graph.add("fakesink", name: Names.preview, ["sync": false])])
        case .none:
            break
        }
        // Raw frames only: a still is encoded when asked for, never per frame. The session takes every sample
        // as it arrives; with nobody pulling (the same graph under gst-launch-1.0) an appsink that waited on EOS
        // for its queue to drain would never end the stream.
        let frames: KeyValuePairs<String, GraphValue> = ["sync": false, "max-buffers": 1, "drop": true, "wait-on-eos": false]
        branch("still-queue", buffers: 1, [graph.add("appsink", name: Names.stillFrames, frames)])
        if config.tap == true {
            branch("tap-queue", buffers: 2, [graph.add("appsink", name: Names.tap, frames)])
        }
    }
}
