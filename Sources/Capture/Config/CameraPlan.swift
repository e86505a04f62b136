import Base
public import Camera
public import Config
import GStreamer

/// How one v4l2 source becomes the config's raw frames: the camera mode asked for (`ModeChooser`), the JPEG
/// decoder when the mode is MJPEG, and the rate, crop and scale steps that bring it to the config's caps.
public struct CameraPlan: Sendable, Equatable {
    /// The camera's device node.
    public let device: String
    /// The mode asked of the camera, and why it is a compressed one when it is.
    public let choice: ModeChoice
    /// The decoder's element factory for a compressed mode (`jpegdec`, or a hardware decoder); nil for raw.
    public let decoder: String?
    /// The raw format after the source (the config's, else the camera's own or the decoder's).
    public let format: String
    /// The size and rate after the source: the config's where it names them, else the mode's.
    public let width: Int
    public let height: Int
    public let rate: FrameInterval
    /// Columns and rows cut to the asked shape before scaling.
    public let crop: Crop?

    /// Pixels cut from each edge (`videocrop`).
    public struct Crop: Sendable, Equatable {
        public let left: Int, right: Int, top: Int, bottom: Int
    }

    /// The plan for `source` under the config's `caps` on a camera offering `formats`; throws when the camera
    /// cannot serve them, naming what it can.
    public static func make(
        source: SourceConfig, caps: CapsConfig?, formats: [PixelFormatDescription],
        decoder: String? = nil
    ) throws(ModeChoiceError) -> CameraPlan {
        let device = source.device ?? "/dev/video0"
        let rate = caps?.framerate.flatMap(CapsConfig.parseFramerate).map { Double($0.0) / Double($0.1) }
        let request = ModeRequest(
            width: caps?.width, height: caps?.height, framesPerSecond: rate,
            fourcc: source.format.flatMap(ModeChooser.fourcc(named:)))
        let choice = try ModeChooser.choose(request, from: formats, path: device)
        let mode = choice.mode
        let width = caps?.width ?? mode.width, height = caps?.height ?? mode.height
        let outputRate =
            caps?.framerate.flatMap(CapsConfig.parseFramerate)
            .map { FrameInterval(numerator: UInt32(clamping: $0.1), denominator: UInt32(clamping: $0.0)) } ?? mode.interval
        let cameraFormat = ModeChooser.rawFormats[mode.fourcc]
        let format = caps?.format ?? (mode.compressed ? "I420" : cameraFormat ?? "I420")
        return CameraPlan(
            device: device, choice: choice, decoder: mode.compressed ? decoder ?? JPEGDecoder.choose() : nil, format: format,
            width: width, height: height, rate: outputRate,
            crop: crop(from: (mode.width, mode.height), to: (width, height)))
    }

    /// What to cut from a `from` picture so it has the shape of `to`: a centred band, nil when the shapes agree.
    static func crop(from: (Int, Int), to: (Int, Int)) -> Crop? {
        let (w, h) = from, (tw, th) = to
        guard w > 0, h > 0, tw > 0, th > 0, w * th != h * tw else { return nil }
        if w * th > h * tw {
            // Too wide: keep the full height, cut columns (an even count each side keeps 4:2:x chroma aligned).
            let keep = (h * tw + th - 1) / th
            let cut = ((w - keep) / 2) & ~1
            return cut > 0 ? Crop(left: cut, right: w - keep - cut, top: 0, bottom: 0) : nil
        }
        let keep = (w * th + tw - 1) / tw
        let cut = ((h - keep) / 2) & ~1
        return cut > 0 ? Crop(left: 0, right: 0, top: cut, bottom: h - keep - cut) : nil
    }

    /// Whether frames are rate-converted (the camera's rate is not the config's).
    public var changesRate: Bool { rate != choice.mode.interval && rate.numerator != 0 }

    /// Whether frames are scaled after any crop.
    public var scales: Bool {
        let mode = choice.mode
        let cropped = crop.map { (mode.width - $0.left - $0.right, mode.height - $0.top - $0.bottom) } ?? (mode.width, mode.height)
        return cropped != (width, height)
    }

    /// `camera /dev/video2: MJPG 1280x720@30 → jpegdec → NV12 1280x720@30 (raw YUYV reaches only 10 fps at 1280x720 here)`.
    public var summary: String {
        var text = "camera \(device): " + steps
        if let reason = choice.reason { text += " (\(reason))" }
        return text
    }

    /// The mode and what happens to it, without the reason: `MJPG 1280x720@30 → jpegdec → NV12 1280x720@30`.
    public var steps: String {
        if decoder == nil && !changesRate && crop == nil && !scales && ModeChooser.rawFormats[choice.mode.fourcc] == format {
            return "\(choice.mode), as the camera sends it"
        }
        var steps = [choice.mode.description]
        if let decoder { steps.append(decoder) }
        if changesRate { steps.append("\(choice.mode.interval) → \(rate) fps") }
        if let crop {
            let mode = choice.mode
            steps.append("crop to \(mode.width - crop.left - crop.right)x\(mode.height - crop.top - crop.bottom)")
        }
        if scales { steps.append("scale") }
        steps.append("\(format) \(width)x\(height)@\(rate)")
        return steps.joined(separator: " → ")
    }

    /// The source's elements into `graph`, from `v4l2src` to just before the config's caps filter: the camera's
    /// own caps (`video/x-raw` or `image/jpeg` at the mode), the decoder, rate, crop, scale and conversion.
    func addElements(named name: String, source: SourceConfig, to graph: inout GraphDescription) -> [GraphDescription.Handle] {
        let mode = choice.mode
        var properties: [(String, GraphValue)] = [("device", .string(device))]
        if let ioMode = source.ioMode { properties.append(("io-mode", .string(ioMode))) }
        var chain = [graph.add("v4l2src", name: name, properties: properties)]
        let size: [(String, CapsDescription.Value)] = [
            ("width", .int(mode.width)), ("height", .int(mode.height)),
            ("framerate", .fraction(Int(mode.interval.denominator), Int(mode.interval.numerator)))
        ]
        if let decoder {
            chain.append(graph.add("capsfilter", name: "\(name)-mode", ["caps": .caps(CapsDescription("image/jpeg", size))]))
            // Hardware decoders want whole frames with parsed headers; jpegdec parses for itself.
            if decoder != JPEGDecoder.software { chain.append(graph.add("jpegparse")) }
            chain.append(graph.add(decoder, name: "\(name)-decoder"))
        } else {
            let format = ModeChooser.rawFormats[mode.fourcc] ?? mode.fourcc
            chain.append(
                graph.add(
                    "capsfilter", name: "\(name)-mode",
                    ["caps": .caps(CapsDescription("video/x-raw", [("format", .string(format))] + size))]))
        }
        if changesRate { chain.append(graph.add("videorate")) }
        if let crop {
            chain.append(
                graph.add(
                    "videocrop",
                    [
                        "left": .int(crop.left), "right": .int(crop.right),
                        "top": .int(crop.top), "bottom": .int(crop.bottom)
                    ]))
        }
        if scales { chain.append(graph.add("videoscale")) }
        chain.append(graph.add("videoconvert"))
        return chain
    }
}

/// The JPEG decoder an MJPEG camera's frames go through: a hardware one where the machine has it, else `jpegdec`.
public enum JPEGDecoder {
    /// libjpeg's decoder, always present with gst-plugins-good.
    public static let software = "jpegdec"
    /// Hardware decoders, most preferred first: V4L2 M2M (Raspberry Pi and other SoCs), VA-API (two plugins), NVDEC.
    public static let hardware = ["v4l2jpegdec", "vajpegdec", "vaapijpegdec", "nvjpegdec"]

    private static let failed = Locked<Set<String>>([])

    /// The first hardware decoder this machine has that has not failed in this process, else `jpegdec`.
    public static func choose() -> String {
        let failed = failed.withLock { $0 }
        return hardware.first { !failed.contains($0) && Element.factoryExists($0) } ?? software
    }

    /// Stops choosing `decoder` for the rest of the process (it failed to start).
    static func markFailed(_ decoder: String) {
        guard decoder != software else { return }
        _ = failed.withLock { $0.insert(decoder) }
    }
}
