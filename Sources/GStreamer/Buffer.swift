public import CGStreamer

/// A media buffer as GStreamer shares it: a sample, a queue or an element may hold the same one, so it is
/// read-only here. Holds one reference. To change timestamps or bytes, take it as a `WritableBuffer`, which
/// copies it first when it is shared (gstreamer-rs `make_mut`).
/// Unchecked Sendable: `pointer` is immutable after init, the buffer is only read through it, and GStreamer's
/// refcounting is atomic.
public final class Buffer: @unchecked Sendable {
    /// The wrapped buffer; valid for this object's lifetime. Never write through it: others may hold it.
    public let pointer: UnsafeMutablePointer<GstBuffer>

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: UnsafeMutablePointer<GstBuffer>) {
        self.pointer = pointer
    }

    /// Adds a reference of our own (transfer none). Calls `gst_buffer_ref`.
    public convenience init(retaining pointer: UnsafeMutablePointer<GstBuffer>) {
        self.init(adopting: gst_buffer_ref(pointer))
    }

    /// Shares a buffer whose writing is done; takes over its reference.
    public convenience init(_ buffer: consuming WritableBuffer) {
        self.init(adopting: buffer.release())
    }

    /// A new buffer holding a copy of `bytes`. Calls `gst_buffer_new_allocate` and `gst_buffer_fill`.
    public convenience init?(copying bytes: UnsafeRawBufferPointer) {
        guard let buffer = WritableBuffer(copying: bytes) else { return nil }
        self.init(buffer)
    }

    deinit {
        gst_buffer_unref(pointer)
    }

    /// Presentation time in nanoseconds, nil when unset. Reads `GST_BUFFER_PTS`.
    public var pts: UInt64? { clockTime(pointer.pointee.pts) }

    /// Duration in nanoseconds, nil when unset. Reads `GST_BUFFER_DURATION`.
    public var duration: UInt64? { clockTime(pointer.pointee.duration) }

    /// Decoding time in nanoseconds, nil when unset. Reads `GST_BUFFER_DTS`.
    public var dts: UInt64? { clockTime(pointer.pointee.dts) }

    /// Total size in bytes. Calls `gst_buffer_get_size`.
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// Whether the buffer depends on earlier ones (an encoded frame that is not a key frame).
    /// Reads `GST_BUFFER_FLAG_DELTA_UNIT`.
    public var isDeltaUnit: Bool {
        pointer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue != 0
    }

    /// Maps the whole buffer for reading for the closure's duration; the pointer must not escape.
    /// Calls `gst_buffer_map`.
    public func withMappedBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws -> R {
        try mapBytes(pointer, flags: GST_MAP_READ) { try body(UnsafeRawBufferPointer($0)) }
    }

    /// Maps the buffer as a video frame of `info` for reading and lends it to the closure; the frame and its
    /// planes' spans cannot outlive the closure. Calls `gst_video_frame_map`.
    public func withMappedVideoFrame<R>(_ info: VideoInfo, _ body: (borrowing VideoFrame) throws -> R) throws -> R {
        try mapFrame(pointer, info, flags: GST_MAP_READ) { frame in try body(frame) }
    }

    /// The address of the first byte, for telling whether two buffers share memory (never to dereference).
    /// Calls `gst_buffer_map`.
    public var dataAddress: UInt? {
        try? withMappedBytes { UInt(bitPattern: $0.baseAddress) }
    }
}

/// A buffer only we hold, so its timestamps and bytes may change. `~Copyable`: it cannot be shared by
/// accident; `Buffer(_:)` shares it when it is done and `AppSrc.push` hands it over. Holds one reference.
/// Unchecked Sendable: it is `~Copyable` and holds the buffer's only reference, so sending it moves sole ownership
/// to the receiving thread.
public struct WritableBuffer: ~Copyable, @unchecked Sendable {
    /// The wrapped buffer, writable: ours is its only reference.
    let pointer: UnsafeMutablePointer<GstBuffer>

    /// A new buffer of `size` bytes from the default allocator, uninitialized. Calls `gst_buffer_new_allocate`.
    public init?(size: Int) {
        GStreamer.initialize()
        guard size >= 0, let buffer = gst_buffer_new_allocate(nil, gsize(size), nil) else { return nil }
        pointer = buffer
    }

    /// A new buffer holding a copy of `bytes`. Calls `gst_buffer_new_allocate` and `gst_buffer_fill`.
    public init?(copying bytes: UnsafeRawBufferPointer) {
        self.init(size: bytes.count)
        if let base = bytes.baseAddress {
            gst_buffer_fill(pointer, 0, base, gsize(bytes.count))
        }
    }

    /// Takes a buffer for writing: the same buffer when ours was its last reference, else a copy with its own
    /// timestamps and metadata whose memory is shared until written (a write map copies shared memory), so
    /// no other holder ever sees a change. Calls `gst_mini_object_make_writable` (`gst_buffer_make_writable`).
    public init(_ buffer: consuming Buffer) {
        let raw: UnsafeMutablePointer<GstBuffer> = gst_buffer_ref(buffer.pointer)
        _ = consume buffer  // drop our wrapper first: when it held the last other reference, no copy is made
        // Never NULL for a buffer: it returns the buffer itself or a new copy.
        let writable: UnsafeMutablePointer<GstMiniObject> =
            gst_mini_object_make_writable(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self))
        pointer = UnsafeMutableRawPointer(writable).assumingMemoryBound(to: GstBuffer.self)
    }

    deinit {
        gst_buffer_unref(pointer)
    }

    /// Gives up our reference to whoever takes it over (transfer full), without dropping it.
    consuming func release() -> UnsafeMutablePointer<GstBuffer> {
        let pointer = pointer
        discard self
        return pointer
    }

    /// Presentation time in nanoseconds, nil when unset. Writes `GST_BUFFER_PTS`.
    public var pts: UInt64? {
        get { clockTime(pointer.pointee.pts) }
        set { pointer.pointee.pts = newValue.map { GstClockTime($0) } ?? .max }
    }

    /// Duration in nanoseconds, nil when unset. Writes `GST_BUFFER_DURATION`.
    public var duration: UInt64? {
        get { clockTime(pointer.pointee.duration) }
        set { pointer.pointee.duration = newValue.map { GstClockTime($0) } ?? .max }
    }

    /// Decoding time in nanoseconds, nil when unset. Writes `GST_BUFFER_DTS`.
    public var dts: UInt64? {
        get { clockTime(pointer.pointee.dts) }
        set { pointer.pointee.dts = newValue.map { GstClockTime($0) } ?? .max }
    }

    /// Whether the buffer is a delta unit (not a key frame). Reads `GST_BUFFER_FLAG_DELTA_UNIT`.
    public var isDeltaUnit: Bool { pointer.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue != 0 }

    /// Total size in bytes. Calls `gst_buffer_get_size`.
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// Maps the whole buffer for reading and writing for the closure's duration; the pointer must not escape.
    /// Calls `gst_buffer_map`.
    public mutating func withMappedBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws -> R {
        try mapBytes(pointer, flags: GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue), body)
    }

    /// Maps the buffer as a video frame of `info` for reading and writing and lends it to the closure; the
    /// frame and its planes' spans cannot outlive the closure. Calls `gst_video_frame_map`.
    public mutating func withMappedVideoFrame<R>(_ info: VideoInfo, _ body: (inout VideoFrame) throws -> R) throws -> R {
        // NO_REF: a reference of the mapping's own would make the buffer read-only while it is mapped.
        let flags = GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue | GST_VIDEO_FRAME_MAP_FLAG_NO_REF.rawValue)
        return try mapFrame(pointer, info, flags: flags) { frame in
            var frame = frame
            return try body(&frame)
        }
    }

    /// The address of the first byte, for telling whether two buffers share memory (never to dereference).
    /// Calls `gst_buffer_map`.
    public var dataAddress: UInt? {
        var info = GstMapInfo()
        guard gst_buffer_map(pointer, &info, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(pointer, &info) }
        return UInt(bitPattern: info.data)
    }
}

/// A clock time field as Swift: nil for `GST_CLOCK_TIME_NONE`.
private func clockTime(_ value: GstClockTime) -> UInt64? {
    value == GstClockTime.max ? nil : UInt64(value)
}

/// Maps a whole buffer for the closure's duration. Calls `gst_buffer_map` and `gst_buffer_unmap`.
private func mapBytes<R, E: Error>(
    _ buffer: UnsafeMutablePointer<GstBuffer>, flags: GstMapFlags,
    _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
) throws -> R {
    var info = GstMapInfo()
    guard gst_buffer_map(buffer, &info, flags) != 0 else {
        let writing = flags.rawValue & GST_MAP_WRITE.rawValue != 0
        throw GStreamerError.mapFailed("a buffer of \(gst_buffer_get_size(buffer)) bytes for \(writing ? "writing" : "reading")")
    }
    defer { gst_buffer_unmap(buffer, &info) }
    return try body(UnsafeMutableRawBufferPointer(start: info.data, count: Int(info.size)))
}

/// Maps a buffer as a video frame for the closure's duration; every plane's address, stride and size come
/// from the mapping (rows can be padded). Calls `gst_video_frame_map` and `gst_video_frame_unmap`.
private func mapFrame<R>(
    _ buffer: UnsafeMutablePointer<GstBuffer>, _ info: VideoInfo, flags: GstMapFlags,
    _ body: (consuming VideoFrame) throws -> R
) throws -> R {
    var frame = GstVideoFrame()
    var videoInfo = info.raw
    guard gst_video_frame_map(&frame, &videoInfo, buffer, flags) != 0 else {
        throw GStreamerError.mapFailed(
            "a \(info.formatName) \(info.width)x\(info.height) frame from a buffer of \(gst_buffer_get_size(buffer)) bytes")
    }
    defer { gst_video_frame_unmap(&frame) }
    return try body(VideoFrame(mapped: frame))
}

/// A buffer with the caps that describe it.
/// Unchecked Sendable: `pointer` is immutable after init, the `GstSample` is only read through it, and GStreamer's
/// refcounting is atomic.
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

    /// `time` (a buffer timestamp of this sample's stream) as running time in the sample's segment: what an encoder's
    /// output is stamped with is not its input's (x264enc starts its stream an hour on), its running time is. Nil
    /// without a time segment or outside it. Calls `gst_sample_get_segment` and `gst_segment_to_running_time`.
    public func runningTime(of time: UInt64) -> UInt64? {
        guard let segment = gst_sample_get_segment(pointer), segment.pointee.format == GST_FORMAT_TIME else { return nil }
        let value = UInt64(gst_segment_to_running_time(segment, GST_FORMAT_TIME, guint64(time)))
        return value == UInt64.max ? nil : value
    }

    /// The video layout of the sample, when its caps are raw video.
    public var videoInfo: VideoInfo? {
        caps.flatMap { try? VideoInfo(caps: $0) }
    }
}
