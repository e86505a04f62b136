/// A 3D LUT on packed RGB in fixed point with tetrahedral interpolation, the point chain before
/// it baked into the cube.
///
/// Taken when a program is curves and matrices (no vignette: it depends on position) followed by
/// one cube. The baked cube has the cube's own size when nothing comes before it (then its entries
/// are the file's, exactly), else at least 33 points per axis, each entry the float pass's value at
/// that grid point (the chain, then the trilinear cube); in between the chain is interpolated with
/// the cube, which is where baking differs from the per-pixel float pass (within a few codes for
/// smooth chains such as gamma or contrast; `LutKernelTests`).
///
/// Per pixel: one table lookup per channel gives the cell's offset and the Q8 fraction, the
/// fractions' order picks one of six tetrahedra, and four entries (RGB in one 4-lane vector) are
/// blended with three weights: out = c₀ + f₁(c₁ − c₀) + f₂(c₂ − c₁) + f₃(c₃ − c₂). The blend is in
/// Float lanes (mulps) on entries and weights that are whole Q8 numbers, so every product and sum
/// is exact (< 2²⁴): the fixed-point result, without SSE2's missing 32-bit lane multiply.
/// Tetrahedral like ffmpeg's `lut3d interp=tetrahedral` and most colour tools; it equals trilinear
/// on cubes that are linear per cell (identity, matrices, inversions).
final class RGBLutKernel {
    /// Entries (RGB in 0...255 rounded to multiples of 1/256, lane 3 unused), red fastest.
    private let cube: [SIMD4<Float>]
    /// Per channel and input byte: cell offset (entries) << 9 | Q8 fraction (0...256).
    private let axes: [[UInt32]]
    private let strides: (Int, Int, Int)

    init?(_ program: PointProgram, stages: UnsafeBufferPointer<RGBPointKernel.Stage>) {
        guard let last = stages.last, last.kind == .lut3D, case let .lut3D(original)? = program.steps.last,
              stages.dropLast().allSatisfy({ $0.kind == .affine || $0.kind == .curve }) else { return nil }
        let n = stages.count == 1 ? original.size : max(original.size, 33)
        // Offsets are packed above 9 fraction bits in a UInt32.
        guard n <= 64 else { return nil }
        var entries = [SIMD4<Float>](repeating: .zero, count: n * n * n)
        let step = Float(255) / Float(n - 1)
        for b in 0..<n {
            for g in 0..<n {
                // One row of grid points through the float pass's own code, four at a time.
                var r = 0
                while r < n {
                    var rr = Lanes<Float>(), gg = Lanes<Float>(repeating: Float(g) * step), bb = Lanes<Float>(repeating: Float(b) * step)
                    for lane in 0..<laneCount { rr[lane] = Float(min(r + lane, n - 1)) * step }
                    RGBPointKernel.applyAll(stages, &rr, &gg, &bb, 0, 0)
                    for lane in 0..<laneCount where r + lane < n {
                        entries[(b * n + g) * n + r + lane] = SIMD4(Self.q8(rr[lane]), Self.q8(gg[lane]), Self.q8(bb[lane]), 0)
                    }
                    r += laneCount
                }
            }
        }
        cube = entries
        strides = (1, n, n * n)
        // Input byte v sits at v·(n − 1)/255 grid units on every axis.
        var axis = [UInt32](repeating: 0, count: 256)
        for v in 0..<256 {
            let t = Double(v) * Double(n - 1) / 255
            let cell = min(Int(t), n - 2)
            let fraction = UInt32(((t - Double(cell)) * 256).rounded())
            axis[v] = UInt32(cell) << 9 | fraction
        }
        axes = [1, n, n * n].map { stride in axis.map { (($0 >> 9) * UInt32(stride)) << 9 | ($0 & 511) } }
    }

    /// `v` clamped to 0...255 and rounded to a multiple of 1/256 (products with Q8 weights stay exact).
    /// Clamping the entries instead of the result differs from the float pass only for cubes with
    /// entries outside 0...1, between such an entry and its neighbours.
    private static func q8(_ v: Float) -> Float {
        let c = v > 0 ? (v < 255 ? v : 255) : 0
        return (c * 256).rounded() / 256
    }

    /// Rows `rows` from `source` to `destination` (may be the same memory); alpha/padding bytes kept.
    func run(source: Plane, destination: Plane, format: PixelFormat, width: Int, rows: Range<Int>) {
        let o = format.rgbOffsets
        let shiftR = UInt32(o.r * 8), shiftG = UInt32(o.g * 8), shiftB = UInt32(o.b * 8)
        let keep = UInt32(0xFF) << UInt32(o.a * 8)
        let (sg, sb) = (strides.1, strides.2)
        cube.withUnsafeBufferPointer { cube in
            axes[0].withUnsafeBufferPointer { ar in
            axes[1].withUnsafeBufferPointer { ag in
            axes[2].withUnsafeBufferPointer { ab in
                let c = cube.baseAddress!
                for y in rows {
                    let src = (source.base + y * source.stride).assumingMemoryBound(to: UInt32.self)
                    let dst = (destination.base + y * destination.stride).assumingMemoryBound(to: UInt32.self)
                    for x in 0..<width {
                        let v = src[x]
                        let tr = ar[Int((v &>> shiftR) & 0xFF)], tg = ag[Int((v &>> shiftG) & 0xFF)], tb = ab[Int((v &>> shiftB) & 0xFF)]
                        let fr = Int32(tr & 511), fg = Int32(tg & 511), fb = Int32(tb & 511)
                        let p = c + Int((tr >> 9) + (tg >> 9) + (tb >> 9))
                        // The tetrahedron: walk from the cell's origin to its far corner, largest fraction first.
                        let c0 = p[0], c3 = p[1 + sg + sb]
                        let c1: SIMD4<Float>, c2: SIMD4<Float>, f1: Int32, f2: Int32, f3: Int32
                        if fr >= fg {
                            if fg >= fb {        // r ≥ g ≥ b
                                c1 = p[1]; c2 = p[1 + sg]; f1 = fr; f2 = fg; f3 = fb
                            } else if fr >= fb { // r ≥ b > g
                                c1 = p[1]; c2 = p[1 + sb]; f1 = fr; f2 = fb; f3 = fg
                            } else {             // b > r ≥ g
                                c1 = p[sb]; c2 = p[1 + sb]; f1 = fb; f2 = fr; f3 = fg
                            }
                        } else {
                            if fb > fg {         // b > g > r
                                c1 = p[sb]; c2 = p[sg + sb]; f1 = fb; f2 = fg; f3 = fr
                            } else if fb > fr {  // g ≥ b > r
                                c1 = p[sg]; c2 = p[sg + sb]; f1 = fg; f2 = fb; f3 = fr
                            } else {             // g > r ≥ b
                                c1 = p[sg]; c2 = p[1 + sg]; f1 = fg; f2 = fr; f3 = fb
                            }
                        }
                        // Q16 sum (c·256 times weights out of 256), rounded by adding 1.5·2²³ after scaling to 0...255.
                        var out = c0 * 256
                        out += (c1 - c0) * SIMD4(repeating: Float(f1))
                        out += (c2 - c1) * SIMD4(repeating: Float(f2))
                        out += (c3 - c2) * SIMD4(repeating: Float(f3))
                        // Entries are within 0...255 and the blend is convex, so no clamp is needed.
                        let bits = unsafeBitCast(out * (1 / 256) + 12_582_912.0, to: SIMD4<UInt32>.self) & SIMD4(repeating: 0xFF)
                        let r = bits[0], g = bits[1], b = bits[2]
                        dst[x] = (r &<< shiftR) | (g &<< shiftG) | (b &<< shiftB) | (v & keep)
                    }
                }
            }
            }
            }
        }
    }
}
