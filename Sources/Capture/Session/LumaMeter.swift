import GStreamer

/// Measures the mean luma (0…255) of a square region of a raw frame, for software spot metering.
enum LumaMeter {
    /// Where the luma of a pixel lives in a format's first plane.
    enum Layout: Equatable {
        /// One byte per pixel (the Y plane of NV12, I420, YV12, …; GRAY8).
        case planar
        /// Packed 4:2:2: luma at `offset` of every 2-byte pixel (YUY2 0, UYVY 1).
        case packed422(offset: Int)
        /// Packed RGB with `bytes` per pixel and the red, green and blue byte offsets.
        case rgb(bytes: Int, r: Int, g: Int, b: Int)

        /// The layout of a GStreamer format name, or nil when this meter does not read it.
        init?(format: String) {
            switch format {
            case "NV12", "NV21", "I420", "YV12", "Y42B", "Y444", "NV16", "NV24", "GRAY8", "Y41B": self = .planar
            case "YUY2", "YVYU": self = .packed422(offset: 0)
            case "UYVY", "VYUY": self = .packed422(offset: 1)
            case "RGBx", "RGBA": self = .rgb(bytes: 4, r: 0, g: 1, b: 2)
            case "BGRx", "BGRA": self = .rgb(bytes: 4, r: 2, g: 1, b: 0)
            case "xRGB", "ARGB": self = .rgb(bytes: 4, r: 1, g: 2, b: 3)
            case "xBGR", "ABGR": self = .rgb(bytes: 4, r: 3, g: 2, b: 1)
            case "RGB": self = .rgb(bytes: 3, r: 0, g: 1, b: 2)
            case "BGR": self = .rgb(bytes: 3, r: 2, g: 1, b: 0)
            default: return nil
            }
        }
    }

    /// The square around a normalized point: a side of an eighth of the shorter dimension (at least 8 pixels),
    /// kept inside the frame. Returns (left, top, side).
    static func region(x: Double, y: Double, width: Int, height: Int) -> (left: Int, top: Int, side: Int) {
        let side = Swift.max(Swift.min(Swift.max(Swift.min(width, height) / 8, 8), Swift.min(width, height)), 1)
        let cx = Int((x.isFinite ? Swift.min(Swift.max(x, 0), 1) : 0.5) * Double(width))
        let cy = Int((y.isFinite ? Swift.min(Swift.max(y, 0), 1) : 0.5) * Double(height))
        let left = Swift.min(Swift.max(cx - side / 2, 0), Swift.max(width - side, 0))
        let top = Swift.min(Swift.max(cy - side / 2, 0), Swift.max(height - side, 0))
        return (left, top, side)
    }

    /// Mean luma of the region around (x, y) of one plane; nil when the plane is too small for the region.
    static func mean(
        layout: Layout, plane: UnsafeRawPointer, stride: Int, width: Int, height: Int,
        rowBytes: Int, x: Double, y: Double
    ) -> Double? {
        guard width > 0, height > 0, stride > 0 else { return nil }
        let (left, top, side) = region(x: x, y: y, width: width, height: height)
        var sum = 0.0
        var count = 0
        for row in top..<(top + side) {
            let line = plane.advanced(by: row * stride)
            for column in left..<(left + side) {
                switch layout {
                case .planar:
                    guard column < rowBytes else { continue }
                    sum += Double(line.load(fromByteOffset: column, as: UInt8.self))
                case let .packed422(offset):
                    let index = column * 2 + offset
                    guard index < rowBytes else { continue }
                    sum += Double(line.load(fromByteOffset: index, as: UInt8.self))
                case let .rgb(bytes, r, g, b):
                    let base = column * bytes
                    guard base + bytes <= rowBytes else { continue }
                    let red = Double(line.load(fromByteOffset: base + r, as: UInt8.self))
                    let green = Double(line.load(fromByteOffset: base + g, as: UInt8.self))
                    let blue = Double(line.load(fromByteOffset: base + b, as: UInt8.self))
                    sum += 0.299 * red + 0.587 * green + 0.114 * blue
                }
                count += 1
            }
        }
        return count > 0 ? sum / Double(count) : nil
    }

    /// Mean luma of the region around (x, y) of a frame from an appsink; nil for formats it cannot read.
    static func mean(of sample: Sample, x: Double, y: Double) -> Double? {
        guard let caps = sample.caps, let buffer = sample.buffer, let info = try? VideoInfo(caps: caps),
            let layout = Layout(format: info.formatName)
        else { return nil }
        return try? buffer.withMappedVideoFrame(info) { frame -> Double? in
            guard let plane = frame.planes.first else { return nil }
            return frame.withPlane(0) { bytes in
                bytes.withUnsafeBytes { data in
                    data.baseAddress.flatMap {
                        mean(
                            layout: layout, plane: $0, stride: plane.stride,
                            width: info.width, height: info.height, rowBytes: plane.rowBytes, x: x, y: y)
                    }
                }
            }
        }
    }
}
