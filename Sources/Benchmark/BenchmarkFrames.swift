public import GStreamer

/// Frames made once before timing and pushed again and again: a natural-looking image (SMPTE bars under a soft
/// shading and per-pixel noise, a different noise seed per frame) so no filter meets a flat colour it could
/// shortcut, and the source costs nothing while a case runs.
/// Unchecked Sendable: it is a value whose buffers and caps are reference-counted GStreamer objects, only read
/// (mapped for reading, or pushed) once the frames are made.
public struct BenchmarkFrames: @unchecked Sendable {
    /// The layout of every frame.
    public let info: VideoInfo
    /// The frames, pushed in turn and cycled; each holds `info.size` bytes (compressed frames: their own size).
    public let buffers: [Buffer]
    /// The caps of compressed frames (`image/jpeg`), whose bytes do not follow `info`; nil for raw frames.
    public var compressedCaps: Caps?

    /// The caps the frames are pushed with.
    public var caps: Caps? { compressedCaps ?? info.caps }

    init(info: VideoInfo, buffers: [Buffer], compressedCaps: Caps? = nil) {
        self.info = info
        self.buffers = buffers
        self.compressedCaps = compressedCaps
    }

    /// The input name of JPEG frames, as an MJPEG webcam sends them: 4:2:2, quality 85.
    public static let jpeg = "JPEG"

    /// `count` RGBA frames: `videotestsrc pattern=smpte` rendered once, then shaded and noised per frame.
    public static func rgba(width: Int, height: Int, count: Int) throws -> BenchmarkFrames {
        let info = try VideoInfo(format: "RGBA", width: width, height: height)
        let pattern = try render(info)
        let stride = info.stride(plane: 0)
        var buffers: [Buffer] = []
        for index in 0..<max(count, 1) {
            var bytes = pattern
            var random = UInt64(0x9E37_79B9_7F4A_7C15) &* UInt64(index + 1)
            bytes.withUnsafeMutableBufferPointer { pixels in
                for y in 0..<height {
                    let row = y * stride
                    // A diagonal light falloff that moves a little from frame to frame.
                    let shadeY = (y * 48) / max(height, 1)
                    for x in 0..<width {
                        random ^= random << 13; random ^= random >> 7; random ^= random << 17
                        let shade = shadeY + ((x + index * 7) * 48) / max(width, 1) - 48
                        let at = row + x * 4
                        for channel in 0..<3 {
                            let noise = Int((random >> UInt64(8 * channel)) & 31) - 16
                            let value = Int(pixels[at + channel]) + shade + noise
                            pixels[at + channel] = UInt8(clamping: value)
                        }
                    }
                }
            }
            guard let buffer = bytes.withUnsafeBytes({ Buffer(copying: $0) }) else {
                throw GStreamerError.mapFailed("a new frame of \(bytes.count) bytes")
            }
            buffers.append(buffer)
        }
        return BenchmarkFrames(info: info, buffers: buffers)
    }

    /// The same pictures in another format, converted once by `videoconvert`.
    public func converted(to format: String) throws -> BenchmarkFrames {
        if format == info.formatName { return self }
        let compressed = format == Self.jpeg
        let target = compressed ? info : try VideoInfo(format: format, width: info.width, height: info.height)
        let encoder =
            compressed ? "videoconvert ! video/x-raw,format=Y42B ! jpegenc quality=85" : "videoconvert ! video/x-raw,format=\(format)"
        let pipeline = try Pipeline.parse("appsrc name=in ! \(encoder) ! appsink name=out sync=false")
        guard let source = pipeline.element(named: "in", as: AppSrc.self),
            let sink = pipeline.element(named: "out", as: AppSink.self)
        else {
            throw GStreamerError.padNotFound(element: "converter pipeline", pad: "in/out")
        }
        source.caps = info.caps
        try source.set("format", "time")
        try source.set("max-bytes", UInt64(0))
        pipeline.requestState(.playing)
        for buffer in buffers { try source.push(buffer) }
        source.endOfStream()
        var result: [Buffer] = []
        while result.count < buffers.count, let sample = sink.pullSample(timeout: 30) {
            // A copy of our own, so the converter's pool gets its buffer back.
            guard let buffer = sample.buffer,
                let copy = try buffer.withMappedBytes({ Buffer(copying: UnsafeRawBufferPointer($0)) })
            else {
                throw GStreamerError.mapFailed("a converted \(format) frame")
            }
            result.append(copy)
        }
        try pipeline.setState(.null)
        guard result.count == buffers.count else {
            throw GStreamerError.timedOut("videoconvert to turn \(buffers.count) frames into \(format) (got \(result.count))")
        }
        guard compressed else { return BenchmarkFrames(info: target, buffers: result) }
        let caps = try Caps(
            CapsDescription(
                "image/jpeg",
                [
                    ("width", .int(info.width)), ("height", .int(info.height)),
                    ("framerate", .fraction(30, 1))
                ]))
        return BenchmarkFrames(info: target, buffers: result, compressedCaps: caps)
    }

    /// One frame of the SMPTE pattern as packed bytes of `info`'s layout.
    private static func render(_ info: VideoInfo) throws -> [UInt8] {
        let pipeline = try Pipeline.parse(
            """
            videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,format=\(info.formatName),\
            width=\(info.width),height=\(info.height) ! appsink name=out sync=false
            """)
        guard let sink = pipeline.element(named: "out", as: AppSink.self) else {
            throw GStreamerError.padNotFound(element: "videotestsrc pipeline", pad: "out")
        }
        pipeline.requestState(.playing)
        guard let sample = sink.pullSample(timeout: 30), let buffer = sample.buffer else {
            throw GStreamerError.timedOut("videotestsrc to render one \(info.formatName) frame")
        }
        let bytes = try buffer.withMappedBytes { Array(UnsafeRawBufferPointer($0)) }
        try pipeline.setState(.null)
        guard bytes.count >= info.size else {
            throw GStreamerError.mapFailed("a test frame of \(bytes.count) bytes where \(info.size) were expected")
        }
        return Array(bytes.prefix(info.size))
    }
}
