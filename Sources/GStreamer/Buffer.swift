public import CGStreamer

/// A media buffer. Holds one reference.
public final class Buffer: @unchecked Sendable {
    /// The wrapped buffer; valid for this object's lifetime.
    public let pointer: UnsafeMutablePointer<GstBuffer>

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: UnsafeMutablePointer<GstBuffer>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own (transfer none). Calls `gst_buffer_ref`.
    public convenience init(retaining pointer: UnsafeMutablePointer<GstBuffer>) {
        self.init(adopting: gst_buffer_ref(pointer))
    }

    /// A new buffer of `size` bytes from the default allocator, uninitialized. Calls `gst_buffer_new_allocate`.
    public convenience init?(size: Int) {
        GStreamer.initialize()
        guard size >= 0, let buffer = gst_buffer_new_allocate(nil, gsize(size), nil) else { return nil }
        self.init(adopting: buffer)
    }

    /// A new buffer holding a copy of `bytes`. Calls `gst_buffer_new_allocate` and `gst_buffer_fill`.
    public convenience init?(copying bytes: UnsafeRawBufferPointer) {
        self.init(size: bytes.count)
        if let base = bytes.baseAddress {
            gst_buffer_fill(pointer, 0, base, gsize(bytes.count))
        }
    }

    deinit {
        gst_buffer_unref(pointer)
    }

    /// A new buffer sharing this one's memory, with its own timestamps and metadata. Calls `gst_buffer_copy`.
    public func shallowCopy() -> Buffer? {
        gst_buffer_copy(pointer).map { Buffer(adopting: $0) }
    }

    /// Presentation time in nanoseconds, nil when unset.
    public var pts: UInt64? {
        get { pointer.pointee.pts == GstClockTime.max ? nil : UInt64(pointer.pointee.pts) }
        set { pointer.pointee.pts = newValue.map { GstClockTime($0) } ?? .max }
    }

    /// Duration in nanoseconds, nil when unset.
    public var duration: UInt64? {
        get { pointer.pointee.duration == GstClockTime.max ? nil : UInt64(pointer.pointee.duration) }
        set { pointer.pointee.duration = newValue.map { GstClockTime($0) } ?? .max }
    }

    /// Total size in bytes. Calls `gst_buffer_get_size`.
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// Whether we may write into the buffer (we hold the only reference). Calls `gst_mini_object_is_writable`.
    public var isWritable: Bool {
        gst_mini_object_is_writable(UnsafeRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self)) != 0
    }

    /// Maps the whole buffer for the closure's duration; the pointer must not escape. Calls `gst_buffer_map`.
    public func withMappedBytes<R, E: Error>(writable: Bool = false,
                                             _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws -> R {
        var info = GstMapInfo()
        let flags = writable ? GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue) : GST_MAP_READ
        guard gst_buffer_map(pointer, &info, flags) != 0 else {
            throw GStreamerError.mapFailed("a buffer of \(size) bytes for \(writable ? "writing" : "reading")")
        }
        defer { gst_buffer_unmap(pointer, &info) }
        return try body(UnsafeMutableRawBufferPointer(start: info.data, count: Int(info.size)))
    }

    /// Maps the buffer as a video frame of `info` for the closure's duration; every plane's pointer, stride and
    /// size come from the mapping (rows can be padded). Calls `gst_video_frame_map`.
    public func withMappedVideoFrame<R>(_ info: VideoInfo, writable: Bool = false,
                                        _ body: (VideoFrame) throws -> R) throws -> R {
        var frame = GstVideoFrame()
        var videoInfo = info.raw
        let flags = writable ? GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue) : GST_MAP_READ
        guard gst_video_frame_map(&frame, &videoInfo, pointer, flags) != 0 else {
            throw GStreamerError.mapFailed("a \(info.formatName) \(info.width)x\(info.height) frame from a buffer of \(size) bytes")
        }
        defer { gst_video_frame_unmap(&frame) }
        return try body(VideoFrame(mapped: frame))
    }

    /// The address of the first byte, for telling whether two buffers share memory (never to dereference).
    public var dataAddress: UInt? {
        try? withMappedBytes { UInt(bitPattern: $0.baseAddress) }
    }
}

/// A buffer with the caps that describe it.
public final class Sample: @unchecked Sendable {
    /// The wrapped sample; valid for this object's lifetime.
    public let pointer: OpaquePointer

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(pointer))
    }

    /// The sample's buffer. Calls `gst_sample_get_buffer`.
    public var buffer: Buffer? {
        gst_sample_get_buffer(pointer).map { Buffer(retaining: $0) }
    }

    /// The sample's caps. Calls `gst_sample_get_caps`.
    public var caps: Caps? {
        gst_sample_get_caps(pointer).map { Caps(retaining: $0) }
    }

    /// The video layout of the sample, when its caps are raw video.
    public var videoInfo: VideoInfo? {
        caps.flatMap { try? VideoInfo(caps: $0) }
    }
}
