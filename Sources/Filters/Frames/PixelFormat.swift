/// A pixel layout the filter engine can process natively.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable {
    /// Packed 8-bit R, G, B, A.
    case rgba
    /// Packed 8-bit B, G, R, A.
    case bgra
    /// Packed 8-bit R, G, B and one unused byte.
    case rgbx
    /// Packed 8-bit B, G, R and one unused byte.
    case bgrx
    /// Packed 8-bit A, R, G, B.
    case argb
    /// Packed one unused byte, then 8-bit R, G, B.
    case xrgb
    /// Planar 4:2:0: a Y plane, then U and V planes at half width and height (rounded up).
    case i420
    /// Semi-planar 4:2:0: a Y plane, then one interleaved U/V plane at half width and height (rounded up).
    case nv12
    /// Packed 4:2:2: Y0 U Y1 V per pair of pixels.
    case yuy2

    /// Creates a format from its GStreamer video-format name ("RGBA", "BGRx", "I420", …).
    public init?(gstName: String) {
        guard let format = PixelFormat.allCases.first(where: { $0.gstName == gstName }) else { return nil }
        self = format
    }

    /// The GStreamer video-format name of this format ("RGBA", "BGRx", "I420", …).
    public var gstName: String {
        switch self {
        case .rgba: "RGBA"
        case .bgra: "BGRA"
        case .rgbx: "RGBx"
        case .bgrx: "BGRx"
        case .argb: "ARGB"
        case .xrgb: "xRGB"
        case .i420: "I420"
        case .nv12: "NV12"
        case .yuy2: "YUY2"
        }
    }

    /// The number of planes a frame of this format has.
    public var planeCount: Int {
        switch self {
        case .i420: 3
        case .nv12: 2
        default: 1
        }
    }

    /// True for the four-byte packed RGB family.
    public var isRGB: Bool {
        switch self {
        case .rgba, .bgra, .rgbx, .bgrx, .argb, .xrgb: true
        case .i420, .nv12, .yuy2: false
        }
    }

    /// True for the Y'CbCr formats (I420, NV12, YUY2), whose colour matrix and range matter.
    public var isYUV: Bool { !isRGB }

    /// The number of visible bytes in one row of `plane` for a frame `width` pixels wide.
    ///
    /// Chroma sizes round up, so odd widths are valid; for YUY2 an odd width still ends with a whole
    /// Y/U/Y/V group, whose last Y is padding.
    public func rowBytes(plane: Int, width: Int) -> Int {
        let chromaWidth = (width + 1) / 2
        switch self {
        case .rgba, .bgra, .rgbx, .bgrx, .argb, .xrgb: return width * 4
        case .yuy2: return chromaWidth * 4
        case .i420: return plane == 0 ? width : chromaWidth
        case .nv12: return plane == 0 ? width : chromaWidth * 2
        }
    }

    /// The number of rows of `plane` for a frame `height` pixels tall (4:2:0 chroma rounds up).
    public func rows(plane: Int, height: Int) -> Int {
        switch self {
        case .i420, .nv12: return plane == 0 ? height : (height + 1) / 2
        default: return height
        }
    }

    /// Byte offsets of R, G, B and the fourth (alpha or unused) byte inside a pixel, for the RGB family.
    public var rgbOffsets: (r: Int, g: Int, b: Int, a: Int) {
        switch self {
        case .rgba, .rgbx: (0, 1, 2, 3)
        case .bgra, .bgrx: (2, 1, 0, 3)
        case .argb, .xrgb: (1, 2, 3, 0)
        case .i420, .nv12, .yuy2: (0, 1, 2, 3)
        }
    }
}
