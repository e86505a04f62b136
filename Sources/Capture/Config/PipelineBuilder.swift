import Filters
import Foundation
public import GStreamer
import SwiftFilterElement

/// Turns a config into a gst-launch description with named elements, and builds it.
///
/// Structured graphs read: sources → caps → [input-selector] → [videoflip] → `swiftfilter name=filter` →
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
        public static func source(_ index: Int) -> String { "source\(index)" }
        public static func sourceCaps(_ index: Int) -> String { "source\(index)-caps" }
    }

    /// The config being built.
    public let config: PipelineConfig
    /// Whether a display exists for `preview: auto`.
    public let hasDisplay: Bool

    public init(config: PipelineConfig, hasDisplay: Bool = PipelineBuilder.displayAvailable) {
        self.config = config
        self.hasDisplay = hasDisplay
    }

    /// Whether an X11 or Wayland display is reachable (from the environment).
    public static var displayAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        return !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// The gst-launch text of the graph (what `swiftcam show` prints).
    public var launchDescription: String {
        if let launch = config.launch { return launch }
        var lines: [String] = []
        let sources = config.sources ?? []
        let caps = capsText
        if sources.count > 1 {
            lines.append("input-selector name=\(Names.selector) sync-streams=false cache-buffers=false")
            lines.append("  ! \(afterSelector)")
            for (index, source) in sources.enumerated() {
                lines.append("\(sourceText(source, index: index)) ! \(caps) name=\(Names.sourceCaps(index))\(perSourceMirror(source)) ! queue max-size-buffers=2 leaky=downstream ! \(Names.selector).sink_\(index)")
            }
        } else if let source = sources.first {
            lines.append("\(sourceText(source, index: 0)) ! \(caps) name=\(Names.sourceCaps(0))\(perSourceMirror(source))")
            lines.append("  ! \(afterSelector)")
        }
        for branch in branches {
            lines.append("\(Names.tee). ! \(leakyQueue(branch.queue, buffers: branch.buffers)) ! \(branch.tail)")
        }
        return lines.joined(separator: "\n")
    }

    /// Parses the description into a pipeline (registering `swiftfilter` first).
    /// The built graph, paused so caps are negotiated, as Graphviz text (`show --dot`).
    public func dotGraph() throws -> String {
        let pipeline = try build()
        defer { try? pipeline.setState(.null) }
        try pipeline.setState(.paused, timeout: 5)
        return pipeline.dotDescription()
    }

    public func build() throws -> Pipeline {
        SwiftFilterElement.register()
        return try Pipeline.parse(launchDescription)
    }

    /// The recording pipeline's encoding part (after its appsrc), started on `record start`.
    public func recordBranchDescription(location: String) -> String {
        let record = config.record
        let encoder: String
        switch record?.encoder ?? .vp8 {
        case .vp8: encoder = "vp8enc deadline=1 cpu-used=8 threads=2 lag-in-frames=0 keyframe-max-dist=30 end-usage=cbr target-bitrate=2000000"
        case .mjpeg: encoder = "jpegenc quality=85"
        case .h264:
            encoder = Element.factoryExists("x264enc") ? "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse"
                                                      : "openh264enc ! h264parse"
        }
        let muxer: String
        switch record?.container ?? .matroska {
        case .matroska: muxer = "matroskamux name=mux min-cluster-duration=500000000 max-cluster-duration=1000000000"
        case .mp4: muxer = "mp4mux name=mux fragment-duration=1000 streamable=true"
        }
        let quoted = location.replacingOccurrences(of: "\"", with: "\\\"")
        // One fixed raw format into every encoder (muxers refuse caps changes); unbuffered, so every muxed
        // block reaches the kernel at once and `kill -9` loses at most the open cluster.
        return "queue name=encode-queue max-size-buffers=30 max-size-bytes=0 max-size-time=0 ! videoconvert "
            + "! video/x-raw,format=I420 ! \(encoder) ! \(muxer) "
            + "! filesink name=record-file location=\"\(quoted)\" buffer-mode=unbuffered sync=false async=false"
    }

    /// The file extension recordings get.
    public var recordExtension: String {
        (config.record?.container ?? .matroska) == .mp4 ? "mp4" : "mkv"
    }

    // MARK: - Pieces

    private var capsText: String {
        var fields = ["video/x-raw"]
        let caps = config.caps
        if let format = caps?.format { fields.append("format=\(format)") }
        if let width = caps?.width { fields.append("width=\(width)") }
        if let height = caps?.height { fields.append("height=\(height)") }
        if let framerate = caps?.framerate, let (numerator, denominator) = parseFramerate(framerate) {
            fields.append("framerate=\(numerator)/\(denominator)")
        }
        return "capsfilter caps=\"\(fields.joined(separator: ","))\""
    }

    private func sourceText(_ source: SourceConfig, index: Int) -> String {
        let name = Names.source(index)
        switch source.kind {
        case .test:
            // Live, like a camera: frames come at the frame rate, not as fast as possible.
            return "videotestsrc name=\(name) is-live=true pattern=\(source.pattern ?? "smpte")"
        case .v4l2:
            var text = "v4l2src name=\(name) device=\(source.device ?? "/dev/video0")"
            if let mode = source.ioMode { text += " io-mode=\(mode)" }
            if let format = source.format { text += " ! video/x-raw,format=\(format)" }
            return text + " ! videoconvert"
        case .file:
            let location = source.path ?? ""
            let uri = location.contains("://") ? location : URL(fileURLWithPath: location).absoluteString
            return "uridecodebin name=\(name) uri=\"\(uri)\" ! videoconvert ! videoscale ! videorate"
        }
    }

    private func perSourceMirror(_ source: SourceConfig) -> String {
        source.mirror == true ? " ! videoflip method=horizontal-flip" : ""
    }

    /// Orientation, the filter and the tee.
    private var afterSelector: String {
        var parts: [String] = []
        if config.mirror == true { parts.append("videoflip name=mirror method=horizontal-flip") }
        switch config.rotate ?? 0 {
        case 90: parts.append("videoflip name=rotate method=clockwise")
        case 180: parts.append("videoflip name=rotate method=rotate-180")
        case 270: parts.append("videoflip name=rotate method=counterclockwise")
        default: break
        }
        let chain = (try? FilterChain(parsing: config.filter ?? "").description) ?? ""
        parts.append("\(SwiftFilterElement.factoryName) name=\(Names.filter) chain=\"\(chain)\"")
        parts.append("tee name=\(Names.tee) allow-not-linked=true")
        return parts.joined(separator: " ! ")
    }

    private struct Branch {
        var queue: String
        var buffers: Int
        var tail: String
    }

    private var branches: [Branch] {
        var result: [Branch] = []
        switch config.preview ?? .auto {
        case .window:
            result.append(Branch(queue: "preview-queue", buffers: 2, tail: "videoconvert ! autovideosink name=\(Names.preview) sync=false"))
        case .auto where hasDisplay:
            result.append(Branch(queue: "preview-queue", buffers: 2, tail: "videoconvert ! autovideosink name=\(Names.preview) sync=false"))
        case .auto, .none:
            // Headless: the preview still runs (and is counted) into a fake sink.
            if config.preview != PreviewMode.none {
                result.append(Branch(queue: "preview-queue", buffers: 2, tail: "fakesink name=\(Names.preview) sync=false"))
            }
        }
        // Raw frames only: a still is encoded when asked for, never per frame.
        result.append(Branch(queue: "still-queue", buffers: 1, tail: "appsink name=\(Names.stillFrames) sync=false max-buffers=1 drop=true"))
        if config.tap == true {
            result.append(Branch(queue: "tap-queue", buffers: 2, tail: "appsink name=\(Names.tap) sync=false max-buffers=1 drop=true"))
        }
        return result
    }

    private func leakyQueue(_ name: String, buffers: Int) -> String {
        "queue name=\(name) max-size-buffers=\(buffers) max-size-bytes=0 max-size-time=0 leaky=downstream"
    }
}
