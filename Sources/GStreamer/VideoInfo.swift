public import CGStreamer

/// The layout of raw video: format, size, frame rate, plane offsets and strides.
/// Unchecked Sendable: it is a value copy of a `GstVideoInfo`, whose one pointer, `finfo`, points into GStreamer's
/// static format table, which is never written.
public struct VideoInfo: @unchecked Sendable {
    /// The C description; `finfo` points at GStreamer's static format table.
    var raw: GstVideoInfo

    /// Reads raw-video caps. Calls `gst_video_info_from_caps`.
    public init(caps: Caps) throws(GStreamerError) {
        var info = GstVideoInfo()
        guard gst_video_info_from_caps(&info, caps.pointer) != 0 else { throw .notVideoCaps(caps.description) }
        raw = info
    }

    /// Describes a format (by GStreamer name such as "RGBA", "NV12") and size. Calls `gst_video_info_set_format`.
    public init(format: String, width: Int, height: Int, framerate: (Int, Int) = (30, 1)) throws(GStreamerError) {
        GStreamer.initialize()
        let videoFormat = gst_video_format_from_string(format)
        var info = GstVideoInfo()
        guard videoFormat != GST_VIDEO_FORMAT_UNKNOWN, width > 0, height > 0,
            let w = guint(exactly: width), let h = guint(exactly: height),
            gst_video_info_set_format(&info, videoFormat, w, h) != 0
        else {
            throw .notVideoCaps("video/x-raw,format=\(format),width=\(width),height=\(height)")
        }
        info.fps_n = gint(framerate.0)
        info.fps_d = gint(framerate.1)
        raw = info
    }

    /// The format's GStreamer name, e.g. "I420". Calls `gst_video_format_to_string`.
    public var formatName: String {
        String(borrowingCString: gst_video_format_to_string(raw.finfo.pointee.format)) ?? "unknown"
    }

    /// Width in pixels.
    public var width: Int { Int(raw.width) }
    /// Height in pixels.
    public var height: Int { Int(raw.height) }
    /// Frames per second as numerator/denominator (0/1 for variable).
    public var framerate: (numerator: Int, denominator: Int) { (Int(raw.fps_n), Int(raw.fps_d)) }
    /// Bytes in one frame, padding included.
    public var size: Int { Int(raw.size) }
    /// Number of planes.
    public var planeCount: Int { Int(raw.finfo.pointee.n_planes) }

    /// Row stride of a plane in bytes.
    public func stride(plane: Int) -> Int {
        guard plane >= 0, plane < planeCount else { return 0 }
        return withUnsafeBytes(of: raw.stride) { Int($0.load(fromByteOffset: plane * MemoryLayout<gint>.stride, as: gint.self)) }
    }

    /// Byte offset of a plane from the start of the frame.
    public func offset(plane: Int) -> Int {
        guard plane >= 0, plane < planeCount else { return 0 }
        return withUnsafeBytes(of: raw.offset) { Int($0.load(fromByteOffset: plane * MemoryLayout<gsize>.stride, as: gsize.self)) }
    }

    /// Bytes a plane occupies: up to the next plane, or the frame's end for the last.
    public func planeSize(plane: Int) -> Int {
        guard plane >= 0, plane < planeCount else { return 0 }
        return (plane + 1 < planeCount ? offset(plane: plane + 1) : size) - offset(plane: plane)
    }

    /// Wraps a C description (for example a `GstVideoFilter`'s negotiated info).
    public init(borrowing info: UnsafePointer<GstVideoInfo>) {
        raw = info.pointee
    }

    /// Whether the colour matrix is BT.709 (else BT.601 for YUV). Reads `colorimetry.matrix`.
    public var isBT709: Bool { raw.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709 }

    /// Whether YUV values use the full 0–255 range rather than 16–235. Reads `colorimetry.range`.
    public var isFullRange: Bool { raw.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 }

    /// Caps that describe this layout. Calls `gst_video_info_to_caps`.
    public var caps: Caps? {
        var copy = raw
        return gst_video_info_to_caps(&copy).map { Caps(adopting: $0) }
    }
}

/// Where one plane of a mapped frame lies: its geometry only. Its bytes are lent by `VideoFrame.withPlane`.
public struct VideoPlane: Sendable, Equatable {
    /// Bytes from one row to the next (may exceed the visible row): row `y` starts at `y * stride`.
    public let stride: Int
    /// Samples per row in this plane (chroma planes of 4:2:0 are half width, rounded up).
    public let width: Int
    /// Rows in this plane.
    public let height: Int
    /// Bytes of one visible row: up to the end of its last sample of any component. For packed 4:2:2 at an
    /// odd width that is the whole last Y/U/Y/V group (34 for YUY2 at width 16 or 17), past `width` × 2.
    public let rowBytes: Int

    /// Bytes the plane's span covers: every row at its stride, the last one to its visible end.
    public var byteCount: Int { height > 0 ? stride * (height - 1) + rowBytes : 0 }

    /// The planes of a mapped frame, in GStreamer's order, with their first bytes.
    static func planes(of frame: GstVideoFrame) -> [(data: UnsafeMutableRawPointer, plane: VideoPlane)] {
        let formatInfo = frame.info.finfo.pointee
        let width = Int(frame.info.width), height = Int(frame.info.height)
        let data = withUnsafeBytes(of: frame.data) { Array($0.bindMemory(to: UnsafeMutableRawPointer?.self)) }
        let strides = withUnsafeBytes(of: frame.info.stride) { Array($0.bindMemory(to: gint.self)) }
        let componentPlanes = withUnsafeBytes(of: formatInfo.plane) { Array($0.bindMemory(to: guint.self)) }
        let wSub = withUnsafeBytes(of: formatInfo.w_sub) { Array($0.bindMemory(to: guint.self)) }
        let hSub = withUnsafeBytes(of: formatInfo.h_sub) { Array($0.bindMemory(to: guint.self)) }
        let pixelStrides = withUnsafeBytes(of: formatInfo.pixel_stride) { Array($0.bindMemory(to: gint.self)) }
        var planes: [(data: UnsafeMutableRawPointer, plane: VideoPlane)] = []
        for plane in 0..<Int(formatInfo.n_planes) {
            guard let base = data[plane] else { continue }
            let components = (0..<Int(formatInfo.n_components)).filter { Int(componentPlanes[$0]) == plane }
            // Subsampled sizes round up; the first component stored in this plane decides its size in samples.
            func samples(_ size: Int, _ shift: guint) -> Int { -((-size) >> Int(shift)) }
            let first = components.first ?? 0
            // A row ends with the last sample of whichever component reaches furthest (YUY2's V, not its Y).
            let rowBytes = components.map { samples(width, wSub[$0]) * Int(pixelStrides[$0]) }.max() ?? 0
            planes.append(
                (
                    base,
                    VideoPlane(
                        stride: Int(strides[plane]), width: samples(width, wSub[first]),
                        height: samples(height, hSub[first]), rowBytes: rowBytes)
                ))
        }
        return planes
    }
}

/// A mapped video frame, lent to the closure of `withMappedVideoFrame`. It cannot be copied or kept
/// (`~Copyable`, lent borrowed or `inout`), and it lends its bytes plane by plane as spans, which cannot
/// leave their closure: nothing of it outlives the mapping.
public struct VideoFrame: ~Copyable {
    /// The frame's layout.
    public let info: VideoInfo
    /// The planes' geometry, in GStreamer's order (Y, U, V for I420; Y, UV for NV12).
    public let planes: [VideoPlane]
    private let data: [UnsafeMutableRawPointer]

    init(mapped frame: GstVideoFrame) {
        info = VideoInfo(raw: frame.info)
        let mapped = VideoPlane.planes(of: frame)
        planes = mapped.map(\.plane)
        data = mapped.map(\.data)
    }

    /// Lends plane `index`'s bytes, `planes[index].byteCount` of them (row `y` starts at `y * stride`).
    /// An index past the planes is a programming error, like an array's.
    public func withPlane<R, E: Error>(_ index: Int, _ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        precondition(planes.indices.contains(index), "plane \(index) of a frame with \(planes.count)")
        let bytes = UnsafeBufferPointer(start: data[index].assumingMemoryBound(to: UInt8.self), count: planes[index].byteCount)
        return try body(bytes.span)
    }

    /// Lends plane `index`'s bytes for writing. Only a frame mapped for writing
    /// (`WritableBuffer.withMappedVideoFrame`) is lent `inout`, so only it can be written.
    public mutating func withMutablePlane<R, E: Error>(_ index: Int, _ body: (inout MutableSpan<UInt8>) throws(E) -> R) throws(E) -> R {
        precondition(planes.indices.contains(index), "plane \(index) of a frame with \(planes.count)")
        let bytes = UnsafeMutableBufferPointer(start: data[index].assumingMemoryBound(to: UInt8.self), count: planes[index].byteCount)
        var span = bytes.mutableSpan
        return try body(&span)
    }
}

/// A plane of a frame that C code mapped and will unmap (an element's transform), for kernels that need
/// addresses. Unsafe: valid only until that mapping ends; everywhere else use `withMappedVideoFrame`.
public struct UnsafeVideoPlane {
    /// The first byte of the plane's first row.
    public let baseAddress: UnsafeMutableRawPointer
    /// The plane's geometry.
    public let layout: VideoPlane

    /// The planes of a frame GStreamer mapped (for example the frames a `GstVideoFilter` transform gets).
    public static func planes(of frame: UnsafePointer<GstVideoFrame>) -> [UnsafeVideoPlane] {
        VideoPlane.planes(of: frame.pointee).map { UnsafeVideoPlane(baseAddress: $0.data, layout: $0.plane) }
    }

    /// How an element's buffer is mapped.
    public enum Access: Sendable {
        /// The input of a transform: read only.
        case read
        /// A new output buffer: written only.
        case write
        /// An input the transform changes in place.
        case readWrite

        var flags: GstMapFlags {
            switch self {
            case .read: GST_MAP_READ
            case .write: GST_MAP_WRITE
            case .readWrite: GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)
            }
        }
    }

    /// Maps a buffer C code lends (an element's input or output in its transform) as a frame of `info` for the closure's
    /// duration and lends its planes, which must not escape it. The mapping takes no reference of its own
    /// (`GST_VIDEO_FRAME_MAP_FLAG_NO_REF`), so a buffer that was writable stays writable while mapped. Calls
    /// `gst_video_frame_map`.
    public static func withMappedPlanes<R>(
        of buffer: UnsafeMutablePointer<GstBuffer>, _ info: VideoInfo, access: Access, _ body: ([UnsafeVideoPlane]) throws -> R
    ) throws -> R {
        var frame = GstVideoFrame()
        var videoInfo = info.raw
        let flags = GstMapFlags(rawValue: access.flags.rawValue | GST_VIDEO_FRAME_MAP_FLAG_NO_REF.rawValue)
        guard gst_video_frame_map(&frame, &videoInfo, buffer, flags) != 0 else {
            throw GStreamerError.mapFailed(
                "a \(info.formatName) \(info.width)x\(info.height) frame from a buffer of \(gst_buffer_get_size(buffer)) bytes")
        }
        defer { gst_video_frame_unmap(&frame) }
        return try withUnsafePointer(to: frame) { try body(planes(of: $0)) }
    }
}

extension VideoInfo {
    init(raw: GstVideoInfo) { self.raw = raw }
}
