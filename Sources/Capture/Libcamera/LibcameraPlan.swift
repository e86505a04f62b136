public import Camera
import Foundation
public import GStreamer

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
        let rate = caps?.framerate.flatMap(parseFramerate).map { Rate(numerator: $0.0, denominator: $0.1) }
        let asked = [caps?.width.map { "\($0)" }, caps?.height.map { "\($0)" }].compactMap { $0 }.joined(separator: "x")
        func refuse(_ note: String) -> ModeChoiceError {
            ModeChoiceError(path: camera.label, asked: asked.isEmpty ? "its default size" : asked, offered: [], note: note)
        }
        let usable = camera.formats.filter { LibcameraListing.gstreamerFormats[$0.pixelFormat] != nil }
        guard !usable.isEmpty else {
            throw refuse("it offers no format GStreamer takes raw (\(camera.formats.map(\.pixelFormat).joined(separator: ", ")))")
        }
        let stream: LibcameraCamera.StreamFormat
        if let wanted = source.format {
            let match = usable.first { $0.pixelFormat == wanted || LibcameraListing.gstreamerFormats[$0.pixelFormat] == wanted }
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
        let gstreamer = LibcameraListing.gstreamerFormats[stream.pixelFormat] ?? "RGB"
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

    /// Shared memory for eight frames as the host receives them: the host's queues hold a few while the child writes on.
    var sharedMemoryBytes: Int {
        let frame = width * height * 4
        return max(8 * frame, 4 << 20)
    }

    /// The child's graph: `libcamerasrc` at the mode → crop → scale → convert → the host's caps → `shmsink`.
    public var childGraph: GraphDescription {
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
        chain.append(graph.add("capsfilter", name: "host-caps", ["caps": .caps(hostCaps(rate: false))]))
        // Never waits for the host: frames written while nobody reads are dropped, and a host that restarts reconnects.
        chain.append(
            graph.add(
                "shmsink", name: "to-host",
                [
                    "socket-path": .string(socketPath), "shm-size": .int(sharedMemoryBytes), "wait-for-connection": false,
                    "sync": false, "async": false
                ]))
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        return graph
    }

    /// The child's command line as a shell reads it (`swiftcam show`).
    public var childCommand: String { childGraph.shellCommand("gst-launch-1.0 -f") }

    /// The frames as they cross: the host's format and size; the rate is the camera's, unknown to the caps (0/1).
    private func hostCaps(rate: Bool) -> CapsDescription {
        var fields: [(String, CapsDescription.Value)] = [("format", .string(format)), ("width", .int(width)), ("height", .int(height))]
        if rate { fields.append(("framerate", .fraction(0, 1))) }
        return CapsDescription("video/x-raw", fields)
    }

    /// The host's side into `graph`: `shmsrc` (live, stamped on arrival) → the frames' caps → `videorate` when the config
    /// names a rate; the caller links the config's caps filter after it.
    func addHostElements(named name: String, to graph: inout GraphDescription) -> [GraphDescription.Handle] {
        var chain = [
            graph.add(
                "shmsrc", name: name, properties: [("socket-path", .string(socketPath)), ("is-live", true), ("do-timestamp", true)]),
            graph.add("capsfilter", name: "\(name)-mode", ["caps": .caps(hostCaps(rate: true))])
        ]
        if rate != nil { chain.append(graph.add("videorate")) }
        return chain
    }
}
