import CV4L2
import Glibc

/// A frame size a format offers.
public enum FrameSize: Hashable, Sendable, Codable, CustomStringConvertible {
    /// One fixed size.
    case discrete(width: UInt32, height: UInt32)
    /// Any size in the ranges, in steps (continuous ranges have step 1).
    case stepwise(
        minWidth: UInt32, maxWidth: UInt32, widthStep: UInt32,
        minHeight: UInt32, maxHeight: UInt32, heightStep: UInt32)

    /// `640x480` or `16x16-1920x1080 step 2x2`.
    public var description: String {
        switch self {
        case let .discrete(width, height): return "\(width)x\(height)"
        case let .stepwise(minW, maxW, stepW, minH, maxH, stepH):
            return "\(minW)x\(minH)-\(maxW)x\(maxH) step \(stepW)x\(stepH)"
        }
    }

    /// The largest size (the size itself when discrete).
    public var largest: (width: UInt32, height: UInt32) {
        switch self {
        case let .discrete(width, height): return (width, height)
        case let .stepwise(_, maxW, _, _, maxH, _): return (maxW, maxH)
        }
    }
}

/// A frame interval (seconds per frame) as a fraction.
public struct FrameInterval: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Seconds per frame, numerator.
    public let numerator: UInt32
    /// Seconds per frame, denominator.
    public let denominator: UInt32

    /// Creates an interval of `numerator/denominator` seconds.
    public init(numerator: UInt32, denominator: UInt32) {
        (self.numerator, self.denominator) = (numerator, denominator)
    }

    /// Frames per second (0 for a zero numerator).
    public var framesPerSecond: Double {
        numerator == 0 ? 0 : Double(denominator) / Double(numerator)
    }

    /// The rate with up to three decimals, e.g. `12.5`.
    public var description: String {
        let fps = framesPerSecond
        let rounded = (fps * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}

/// The frame rates offered at one size.
public enum FrameRates: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A list of fixed intervals.
    case discrete([FrameInterval])
    /// Any interval in the range, in steps.
    case stepwise(min: FrameInterval, max: FrameInterval, step: FrameInterval)

    /// `60, 30, 25 fps` or `1-30 fps`.
    public var description: String {
        switch self {
        case let .discrete(intervals):
            if intervals.isEmpty { return "rate unknown" }
            let sorted = intervals.sorted { $0.framesPerSecond > $1.framesPerSecond }
            return sorted.map(\.description).joined(separator: ", ") + " fps"
        case let .stepwise(min, max, _):
            return "\(max)-\(min) fps"
        }
    }
}

/// One size of a format with its frame rates.
public struct FrameSizeRates: Hashable, Sendable, Codable {
    /// The size.
    public let size: FrameSize
    /// The rates at that size (for stepwise sizes: at the largest size).
    public let rates: FrameRates
}

/// A pixel format from `VIDIOC_ENUM_FMT` with its sizes and rates.
public struct PixelFormatDescription: Hashable, Sendable, Codable {
    /// The four-character code, e.g. `YUYV`, `NV12`, `MJPG` (`-BE` appended for big-endian variants).
    public let fourcc: String
    /// The raw `V4L2_PIX_FMT_*` code.
    public let code: UInt32
    /// The driver's name for it, e.g. `YUYV 4:2:2`.
    public let name: String
    /// True for compressed formats (MJPEG, H.264).
    public let compressed: Bool
    /// True when libv4l or the driver emulates it in software.
    public let emulated: Bool
    /// Sizes with their frame rates.
    public let sizes: [FrameSizeRates]

    /// Renders a V4L2 fourcc code as its four characters.
    public static func fourcc(_ code: UInt32) -> String {
        let bigEndian = code & (1 << 31) != 0
        let chars = (0..<4).map { shift -> Character in
            let byte = UInt8(truncatingIfNeeded: (code & 0x7fff_ffff) >> (8 * UInt32(shift)))
            return (0x20...0x7e).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
        }
        let text = String(chars).trimmingSuffixSpaces()
        return bigEndian ? text + "-BE" : text
    }
}

extension String {
    fileprivate func trimmingSuffixSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// Format, size and interval enumeration.
extension DeviceNode {
    /// `VIDIOC_ENUM_FMT` → `VIDIOC_ENUM_FRAMESIZES` → `VIDIOC_ENUM_FRAMEINTERVALS` for one buffer type.
    func formats(bufferType: UInt32) throws(DeviceError) -> [PixelFormatDescription] {
        var query = v4l2_fmtdesc()
        query.type = bufferType
        let descriptions = try enumerate(CV4L2_VIDIOC_ENUM_FMT, "VIDIOC_ENUM_FMT", query, index: \.index, endingOn: [EINVAL])
        var result: [PixelFormatDescription] = []
        for desc in descriptions {
            result.append(
                PixelFormatDescription(
                    fourcc: PixelFormatDescription.fourcc(desc.pixelformat), code: desc.pixelformat,
                    name: cString(desc.description),
                    compressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                    emulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                    sizes: try sizes(of: desc.pixelformat)))
        }
        return result
    }

    private func sizes(of pixelFormat: UInt32) throws(DeviceError) -> [FrameSizeRates] {
        // Stepwise and continuous sizes come as a single entry.
        var query = v4l2_frmsizeenum()
        query.pixel_format = pixelFormat
        let sizes = try enumerate(
            CV4L2_VIDIOC_ENUM_FRAMESIZES, "VIDIOC_ENUM_FRAMESIZES", query, index: \.index,
            stopAfter: { $0.type != V4L2_FRMSIZE_TYPE_DISCRETE.rawValue })
        var result: [FrameSizeRates] = []
        for size in sizes {
            let frameSize: FrameSize
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                frameSize = .discrete(width: size.discrete.width, height: size.discrete.height)
            } else {
                let s = size.stepwise
                frameSize = .stepwise(
                    minWidth: s.min_width, maxWidth: s.max_width, widthStep: s.step_width,
                    minHeight: s.min_height, maxHeight: s.max_height, heightStep: s.step_height)
            }
            let largest = frameSize.largest
            result.append(
                FrameSizeRates(
                    size: frameSize,
                    rates: try rates(of: pixelFormat, width: largest.width, height: largest.height)))
        }
        return result
    }

    private func rates(of pixelFormat: UInt32, width: UInt32, height: UInt32) throws(DeviceError) -> FrameRates {
        // A stepwise or continuous range comes as a single entry.
        var query = v4l2_frmivalenum()
        query.pixel_format = pixelFormat
        query.width = width
        query.height = height
        let intervals = try enumerate(
            CV4L2_VIDIOC_ENUM_FRAMEINTERVALS, "VIDIOC_ENUM_FRAMEINTERVALS", query, index: \.index,
            stopAfter: { $0.type != V4L2_FRMIVAL_TYPE_DISCRETE.rawValue })
        if let range = intervals.last, range.type != V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
            let s = range.stepwise
            return .stepwise(
                min: FrameInterval(numerator: s.min.numerator, denominator: s.min.denominator),
                max: FrameInterval(numerator: s.max.numerator, denominator: s.max.denominator),
                step: FrameInterval(numerator: s.step.numerator, denominator: s.step.denominator))
        }
        return .discrete(intervals.map { FrameInterval(numerator: $0.discrete.numerator, denominator: $0.discrete.denominator) })
    }
}
