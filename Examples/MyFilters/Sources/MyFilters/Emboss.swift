import Filters

/// A 3×3 relief of the luma, lit from the top left: flat areas become mid grey, edges light or dark.
///
/// `out = 128 + strength·(−Y[↖] − Y[↑] − Y[←] + Y[→] + Y[↓] + Y[↘])`, edges extended; the picture becomes grey
/// (R = G = B, or neutral chroma), alpha is kept.
public struct Emboss: FrameFilter, DeclaredFilter, Equatable {
    /// The `strength` key: how deep the relief is.
    public static let strength = NumberParameter("strength", default: 1, in: 0...8, "depth of the relief (0 = flat grey)")
    /// The filter's name, summary and keys, each bound to the property that holds it.
    public static let declaration = FilterDeclaration<Emboss>(
        name: "emboss", summary: "3×3 relief of the luma, as grey",
        defaults: Emboss(), parameters: [.bind(strength, to: \.strength)])

    /// Depth of the relief.
    public var strength: Double

    /// Creates the filter; `strength` clamps into 0...8.
    public init(strength: Double = Emboss.strength.defaultValue) {
        self.strength = Self.strength.clamp(strength)
    }

    /// Reads the luma of `input` into scratch, writes the relief into every plane of `output`.
    public func apply(_ input: Frame, to output: Frame, context: FrameContext) {
        let (width, height) = (input.width, input.height)
        let luma = context.scratch(0, bytes: width * height).assumingMemoryBound(to: UInt8.self)
        Self.readLuma(input, into: luma)
        if input.format.isRGB {
            // Alpha (or the unused byte) goes through: copy the rows, then write R, G and B over them.
            for y in 0..<height {
                (output.planes[0].base + y * output.planes[0].stride)
                    .copyMemory(from: input.planes[0].base + y * input.planes[0].stride, byteCount: input.rowBytes(plane: 0))
            }
        }
        let gain = Int32((strength * 256).rounded())
        context.forEachBand(rows: height, samplesPerRow: width) { rows in
            for y in rows {
                let above = luma + max(y - 1, 0) * width, row = luma + y * width, below = luma + min(y + 1, height - 1) * width
                for x in 0..<width {
                    let l = max(x - 1, 0), r = min(x + 1, width - 1)
                    let lit = Int32(row[r]) + Int32(below[x]) + Int32(below[r])
                    let shaded = Int32(above[l]) + Int32(above[x]) + Int32(row[l])
                    let relief = lit - shaded
                    let value = 128 + (relief * gain + (relief >= 0 ? 128 : -128)) / 256
                    Self.write(UInt8(clamping: value), x: x, y: y, to: output)
                }
            }
        }
        Self.neutralChroma(output)
    }

    /// Luma 0...255 of every pixel: the Y plane as it is, or BT.601 weights of R, G, B.
    static func readLuma(_ frame: Frame, into luma: UnsafeMutablePointer<UInt8>) {
        let plane = frame.planes[0]
        for y in 0..<frame.height {
            let row = (plane.base + y * plane.stride).assumingMemoryBound(to: UInt8.self)
            let out = luma + y * frame.width
            switch frame.format {
            case .i420, .nv12:
                out.update(from: row, count: frame.width)
            case .yuy2:
                for x in 0..<frame.width { out[x] = row[2 * x] }
            default:
                let o = frame.format.rgbOffsets
                for x in 0..<frame.width {
                    let p = row + 4 * x
                    let r = 77 * Int(p[o.r]), g = 150 * Int(p[o.g]), b = 29 * Int(p[o.b])
                    out[x] = UInt8(truncatingIfNeeded: (r + g + b + 128) >> 8)
                }
            }
        }
    }

    @inline(__always)
    static func write(_ value: UInt8, x: Int, y: Int, to frame: Frame) {
        let row = (frame.planes[0].base + y * frame.planes[0].stride).assumingMemoryBound(to: UInt8.self)
        switch frame.format {
        case .i420, .nv12: row[x] = value
        case .yuy2: row[2 * x] = value
        default:
            let o = frame.format.rgbOffsets
            row[4 * x + o.r] = value
            row[4 * x + o.g] = value
            row[4 * x + o.b] = value
        }
    }

    /// Grey output: chroma planes (and YUY2's U and V bytes) at 128; alpha is left as the input had it.
    static func neutralChroma(_ frame: Frame) {
        switch frame.format {
        case .i420, .nv12:
            for index in 1..<frame.planes.count {
                for y in 0..<frame.rows(plane: index) {
                    (frame.planes[index].base + y * frame.planes[index].stride).initializeMemory(
                        as: UInt8.self, repeating: 128, count: frame.rowBytes(plane: index))
                }
            }
        case .yuy2:
            for y in 0..<frame.height {
                let row = (frame.planes[0].base + y * frame.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                for x in stride(from: 1, to: frame.rowBytes(plane: 0), by: 2) { row[x] = 128 }
            }
        default:
            break
        }
    }
}
