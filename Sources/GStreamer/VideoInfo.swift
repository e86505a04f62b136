public import CGStreamer

/// The layout of raw video: format, size, frame rate, plane offsets and strides.
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
              gst_video_info_set_format(&info, videoFormat, w, h) != 0 else {
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

/// One plane of a mapped frame: a pointer valid only inside the mapping closure.
public struct VideoPlane {
    /// First byte of the plane's first row.
    public let data: UnsafeMutableRawPointer
    /// Bytes from one row to the next (may exceed the visible row).
    public let stride: Int
    /// Samples per row in this plane (chroma planes of 4:2:0 are half width, rounded up).
    public let width: Int
    /// Rows in this plane.
    public let height: Int
    /// Bytes of one visible row.
    public let rowBytes: Int
}

/// A mapped video frame; only valid inside `Buffer.withMappedVideoFrame`.
public struct VideoFrame {
    /// The frame's layout.
    public let info: VideoInfo
    /// The planes, in GStreamer's order (Y, U, V for I420; Y, UV for NV12).
    public let planes: [VideoPlane]

    /// Reads the planes of a frame GStreamer has mapped (for example in a `GstVideoFilter` transform).
    public init(mapped frame: UnsafePointer<GstVideoFrame>) {
        self.init(mapped: frame.pointee)
    }

    init(mapped frame: GstVideoFrame) {
        info = VideoInfo(raw: frame.info)
        let formatInfo = frame.info.finfo.pointee
        let width = Int(frame.info.width), height = Int(frame.info.height)
        let data = withUnsafeBytes(of: frame.data) { Array($0.bindMemory(to: UnsafeMutableRawPointer?.self)) }
        let strides = withUnsafeBytes(of: frame.info.stride) { Array($0.bindMemory(to: gint.self)) }
        let componentPlanes = withUnsafeBytes(of: formatInfo.plane) { Array($0.bindMemory(to: guint.self)) }
        let wSub = withUnsafeBytes(of: formatInfo.w_sub) { Array($0.bindMemory(to: guint.self)) }
        let hSub = withUnsafeBytes(of: formatInfo.h_sub) { Array($0.bindMemory(to: guint.self)) }
        let pixelStrides = withUnsafeBytes(of: formatInfo.pixel_stride) { Array($0.bindMemory(to: gint.self)) }
        var planes: [VideoPlane] = []
        for plane in 0..<Int(formatInfo.n_planes) {
            guard let base = data[plane] else { continue }
            // The first component stored in this plane decides its subsampling.
            let component = (0..<Int(formatInfo.n_components)).first { Int(componentPlanes[$0]) == plane } ?? 0
            let planeWidth = -((-width) >> Int(wSub[component]))
            let planeHeight = -((-height) >> Int(hSub[component]))
            planes.append(VideoPlane(data: base, stride: Int(strides[plane]), width: planeWidth, height: planeHeight,
                                     rowBytes: planeWidth * Int(pixelStrides[component])))
        }
        self.planes = planes
    }
}

extension VideoInfo {
    init(raw: GstVideoInfo) { self.raw = raw }
}
