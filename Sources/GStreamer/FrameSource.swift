import Synchronization

/// An appsrc fed from Swift: a deterministic camera for tests and hosts that make frames themselves.
/// Non-live sources stamp frame `n` at `n / framerate`; live sources let the pipeline clock stamp them.
public final class FrameSource: Sendable {
    /// The appsrc to link into a graph.
    public let source: AppSrc
    /// The layout of every frame pushed.
    public let info: VideoInfo
    /// Whether the pipeline clock stamps the frames (a live camera) rather than the frame index.
    public let isLive: Bool
    private let index = Atomic<Int>(0)

    /// A source of `format` (GStreamer name, e.g. "NV12") frames of one size.
    public init(
        format: String, width: Int, height: Int, framerate: (Int, Int) = (30, 1),
        isLive: Bool = false, name: String? = nil
    ) throws(GStreamerError) {
        info = try VideoInfo(format: format, width: width, height: height, framerate: framerate)
        self.isLive = isLive
        guard let caps = info.caps else { throw .notVideoCaps("\(format) \(width)x\(height)") }
        source = try AppSrc.make(name: name, caps: caps, isLive: isLive)
        try source.set("do-timestamp", isLive)
        try source.set("block", true)
        try source.set("max-bytes", UInt64(info.size * 4))
    }

    /// Nanoseconds per frame (nil for a variable frame rate).
    public var frameDuration: UInt64? {
        let (numerator, denominator) = info.framerate
        guard numerator > 0 else { return nil }
        return UInt64(denominator) * 1_000_000_000 / UInt64(numerator)
    }

    /// Makes one frame: `fill` writes into the mapped planes (stride-padded), then it is queued. Blocks while the
    /// pipeline's queue is full.
    public func push(_ fill: (inout VideoFrame) throws -> Void) throws {
        guard var buffer = WritableBuffer(size: info.size) else { throw GStreamerError.mapFailed("a new frame of \(info.size) bytes") }
        try buffer.withMappedVideoFrame(info, fill)
        try push(buffer)
    }

    /// Queues a whole frame given in GStreamer's layout for `info` (`info.size` bytes).
    public func push(bytes: [UInt8]) throws {
        guard bytes.count == info.size else {
            throw GStreamerError.mapFailed(
                "a frame of \(bytes.count) bytes where \(info.formatName) \(info.width)x\(info.height) needs \(info.size)")
        }
        guard var buffer = WritableBuffer(size: info.size) else { throw GStreamerError.mapFailed("a new frame of \(info.size) bytes") }
        try buffer.withMappedBytes { $0.copyBytes(from: bytes) }
        try push(buffer)
    }

    /// Pushes each image of a sequence in turn.
    public func push<Images: Sequence>(images: Images) throws where Images.Element == [UInt8] {
        for image in images { try push(bytes: image) }
    }

    /// Stamps (unless live) and queues a frame of `info`'s layout made elsewhere; the source takes it over.
    /// Calls `gst_app_src_push_buffer`.
    public func push(_ buffer: consuming WritableBuffer) throws {
        let index = index.wrappingAdd(1, ordering: .relaxed).oldValue
        if !isLive, let duration = frameDuration {
            buffer.pts = UInt64(index) * duration
            buffer.duration = duration
        }
        try source.push(buffer)
    }

    /// Frames pushed so far.
    public var framesPushed: Int { index.load(ordering: .relaxed) }

    /// No more frames: the pipeline sees end-of-stream after the last.
    public func endOfStream() {
        source.endOfStream()
    }
}
