public import Camera
public import Config
import FoundationEssentials
import GStreamer

/// How one libcamera source becomes the config's raw frames: the stream format and size asked of libcamera, and the
/// crop, scale and conversion that bring them to the config's caps — all in a child process (`SourceProcess`), whose
/// frames reach the host through shared memory (`shmsink` there, `shmsrc` here).
///
/// The choice follows V4L2's (`CameraPlan`): the asked rate first — but libcamerasrc 0.0.3 cannot ask libcamera for a
/// rate, so the camera runs at its own and `videorate` brings it to the config's — then the smallest size the pipeline
/// can give at least as large as asked (a size within the stream's range, on the pipeline's step: vimc's multiples of
/// 6), then cropped to the asked shape and scaled.
public struct LibcameraPlan: Sendable, Equatable {
    /// The camera.
    public let camera: LibcameraCamera
    /// The stream's pixel format asked of libcamera (its name: `BGR888`) and as GStreamer calls it (`RGB`).
    public let streamFormat: String
    public let streamCaps: String
    /// The size asked of libcamera.
    public let mode: LibcameraCamera.FrameSize
    /// The raw format, size and rate the host receives (the config's where it names them, else the stream's).
    public let format: String
    public let width: Int
    public let height: Int
    /// The config's rate as (numerator, denominator); nil: the camera's own.
    public let rate: Rate?
    /// Columns and rows cut to the asked shape before scaling.
    public let crop: CameraPlan.Crop?
    /// The shared-memory control socket between the child and the host.
    public let socketPath: String

    /// A frame rate as GStreamer's fraction.
    public struct Rate: Sendable, Equatable {
        public let numerator: Int
        public let denominator: Int
    }

    /// The plan for `source` under the config's `caps` on `camera`; throws when the camera cannot serve them, naming
    /// what it can.
    public static func make(
        source: SourceConfig, caps: CapsConfig?, camera: LibcameraCamera, socketPath: String
    ) throws(ModeChoiceError) -> LibcameraPlan {
        let rate = caps?.framerate.flatMap(CapsConfig.parseFramerate).map { Rate(numerator: $0.0, denominator: $0.1) }
        let asked = [caps?.width.map { "\($0)" }, caps?.height.map { "\($0)" }].compactMap { $0 }.joined(separator: "x")
        func refuse(_ note: String) -> ModeChoiceError {
            ModeChoiceError(path: camera.label, asked: asked.isEmpty ? "its default size" : asked, offered: [], note: note)
        }
        let usable = camera.formats.filter { LibcameraFormats.gstreamer[$0.pixelFormat] != nil }
        guard !usable.isEmpty else {
            throw refuse("it offers no format GStreamer takes raw (\(camera.formats.map(\.pixelFormat).joined(separator: ", ")))")
        }
        let stream: LibcameraCamera.StreamFormat
        if let wanted = source.format {
            let match = usable.first { $0.pixelFormat == wanted || LibcameraFormats.gstreamer[$0.pixelFormat] == wanted }
            guard let match else {
                throw refuse("it has no format \(wanted); it offers \(usable.map(\.pixelFormat).joined(separator: ", "))")
            }
            stream = match
        } else {
            stream = usable.first { $0.pixelFormat == camera.defaultFormat } ?? usable[0]
        }
        let step = camera.sizeStep
        // libcamerasrc 0.0.3 attaches no video meta, so GStreamer assumes its default stride (rows of 4-byte multiples):
        // a 24-bit RGB row must be one already, or every frame is read skewed (642 pixels wide came out black).
        let widthStep = packedRGB.contains(stream.pixelFormat) ? step * 4 / gcd(step, 4) : step
        let size: LibcameraCamera.FrameSize
        if let width = caps?.width, let height = caps?.height {
            // The smallest size on the pipeline's step at least as large as asked (the asked shape, rounded up).
            let up = LibcameraCamera.FrameSize(width: roundUp(width, widthStep), height: roundUp(height, step))
            guard up.width <= stream.maximum.width, up.height <= stream.maximum.height else {
                throw refuse("it offers \(stream.pixelFormat) from \(stream.minimum) to \(stream.maximum)")
            }
            size = .init(
                width: max(up.width, roundUp(stream.minimum.width, widthStep)),
                height: max(up.height, roundUp(stream.minimum.height, step)))
        } else {
            let base = camera.defaultSize ?? stream.maximum
            size = .init(width: base.width / widthStep * widthStep, height: base.height / step * step)
        }
        let width = caps?.width ?? size.width, height = caps?.height ?? size.height
        let gstreamer = LibcameraFormats.gstreamer[stream.pixelFormat] ?? "RGB"
        return LibcameraPlan(
            camera: camera, streamFormat: stream.pixelFormat, streamCaps: gstreamer, mode: size, format: caps?.format ?? gstreamer,
            width: width, height: height, rate: rate, crop: CameraPlan.crop(from: (size.width, size.height), to: (width, height)),
            socketPath: socketPath)
    }

    private static func roundUp(_ value: Int, _ step: Int) -> Int { (value + step - 1) / step * step }
    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
    /// libcamera's formats of 3 bytes a pixel.
    private static let packedRGB: Set<String> = ["BGR888", "RGB888"]

    /// Whether the picture is scaled after any crop.
    public var scales: Bool {
        let cropped = crop.map { (mode.width - $0.left - $0.right, mode.height - $0.top - $0.bottom) } ?? (mode.width, mode.height)
        return cropped != (width, height)
    }

    /// `camera Sensor B (libcamera): BGR888 648x360 → crop to 640x360 → NV12 640x360@25, in a child process`.
    public var summary: String {
        var steps = ["\(streamFormat) \(mode)"]
        if let crop { steps.append("crop to \(mode.width - crop.left - crop.right)x\(mode.height - crop.top - crop.bottom)") }
        if scales { steps.append("scale") }
        let rateText = rate.map { "@\(FailureContext.rate("\($0.numerator)/\($0.denominator)"))" } ?? ""
        steps.append("\(format) \(width)x\(height)\(rateText)")
        return "camera \(camera.label): " + steps.joined(separator: " → ") + ", in a child process (a crash in libcamera restarts it)"
    }

    /// The child's graph before the host's caps: `libcamerasrc` at the mode → crop → scale → convert.
    var headGraph: GraphDescription {
        var graph = GraphDescription()
        var chain = [
            graph.add("libcamerasrc", name: "camera", properties: [("camera-name", .string(camera.id))]),
            graph.add(
                "capsfilter", name: "camera-mode",
                [
                    "caps": .caps(
                        CapsDescription(
                            "video/x-raw",
                            [("format", .string(streamCaps)), ("width", .int(mode.width)), ("height", .int(mode.height))]))
                ])
        ]
        if let crop {
            chain.append(
                graph.add(
                    "videocrop", ["left": .int(crop.left), "right": .int(crop.right), "top": .int(crop.top), "bottom": .int(crop.bottom)]))
        }
        if scales { chain.append(graph.add("videoscale")) }
        chain.append(graph.add("videoconvert"))
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        return graph
    }

    /// The child process: this head, then the host's caps and `shmsink`.
    public var child: ChildSource {
        ChildSource(
            label: camera.label, libcameraCamera: camera.id, head: headGraph.launchLines.flatMap { $0 }, format: format, width: width,
            height: height, rate: rate.map { .init(numerator: $0.numerator, denominator: $0.denominator) }, socketPath: socketPath)
    }
}
