/// A 3D table from three bytes to three bytes with tetrahedral interpolation in fixed point: the core
/// of `RGBLutKernel` (packed RGB) and `YUVLutKernel` (Y'CbCr planes), each of which bakes its chain
/// and cube into one of these.
///
/// Per lookup: one table read per axis gives the cell's offset and the Q8 fraction, the fractions'
/// order picks one of six tetrahedra, and four entries (three components in one 4-lane vector) are
/// blended with three weights: out = c₀ + f₁(c₁ − c₀) + f₂(c₂ − c₁) + f₃(c₃ − c₂). The blend is in
/// Float lanes (mulps) on entries and weights that are whole Q8 numbers, so every product and sum
/// is exact (< 2²⁴): the fixed-point result, without SSE2's missing 32-bit lane multiply.
/// Tetrahedral like ffmpeg's `lut3d interp=tetrahedral` and most colour tools; it equals trilinear
/// on cubes that are linear per cell (identity, matrices, inversions).
struct TetrahedralCube {
    /// Entries (components in 0...255 rounded to multiples of 1/256, lane 3 unused), axis 0 fastest.
    let entries: [SIMD4<Float>]
    /// Per axis and input byte: cell offset (entries) << 9 | Q8 fraction (0...256).
    let axes: [[UInt32]]
    /// Axis 0 for quarter bytes (0...1020, a sum of four bytes): the mean of a 2×2 block without rounding it.
    let quarterAxis: [UInt32]
    let size: Int

    /// `size` points per axis (2...64: offsets are packed above 9 fraction bits); `row(g, b)` gives the
    /// entries of the grid row at axis-1 index `g` and axis-2 index `b` (`size` values, each component on the
    /// 0...255 scale of the output; clamped here). Input byte v sits at v·(size − 1)/255 grid units.
    init?(size n: Int, row: (Int, Int) -> [SIMD3<Float>]) {
        guard (2...64).contains(n) else { return nil }
        var entries = [SIMD4<Float>](repeating: .zero, count: n * n * n)
        for b in 0..<n {
            for g in 0..<n {
                for (r, value) in row(g, b).prefix(n).enumerated() {
                    entries[(b * n + g) * n + r] = SIMD4(Self.q8(value.x), Self.q8(value.y), Self.q8(value.z), 0)
                }
            }
        }
        self.entries = entries
        size = n
        func axis(steps: Int, stride: Int) -> [UInt32] {
            (0...steps).map { v in
                let t = Double(v) * Double(n - 1) / Double(steps)
                let cell = min(Int(t), n - 2)
                let fraction = UInt32(((t - Double(cell)) * 256).rounded())
                return UInt32(cell * stride) << 9 | fraction
            }
        }
        axes = [1, n, n * n].map { axis(steps: 255, stride: $0) }
        quarterAxis = axis(steps: 1020, stride: 1)
    }

    /// `v` clamped to 0...255 and rounded to a multiple of 1/256 (products with Q8 weights stay exact).
    /// Clamping the entries instead of the result differs from a float pass only for cubes with
    /// entries outside 0...1, between such an entry and its neighbours.
    private static func q8(_ v: Float) -> Float {
        let c = v > 0 ? (v < 255 ? v : 255) : 0
        return (c * 256).rounded() / 256
    }

    /// The three output bytes (lanes 0...2; lane 3 is 0) for axis entries `t0`, `t1`, `t2` read from
    /// `axes` (or `quarterAxis` for axis 0); `p` is `entries`' base, `s1`/`s2` the strides of axes 1 and 2.
    @inline(__always)
    static func blend(_ p: UnsafePointer<SIMD4<Float>>, _ s1: Int, _ s2: Int, _ t0: UInt32, _ t1: UInt32, _ t2: UInt32) -> SIMD4<UInt32> {
        let fr = Int32(t0 & 511), fg = Int32(t1 & 511), fb = Int32(t2 & 511)
        let p = p + Int((t0 >> 9) + (t1 >> 9) + (t2 >> 9))
        // The tetrahedron: walk from the cell's origin to its far corner, largest fraction first.
        let c0 = p[0], c3 = p[1 + s1 + s2]
        let c1: SIMD4<Float>, c2: SIMD4<Float>, f1: Int32, f2: Int32, f3: Int32
        if fr >= fg {
            if fg >= fb {  // 0 ≥ 1 ≥ 2
                c1 = p[1]; c2 = p[1 + s1]; f1 = fr; f2 = fg; f3 = fb
            } else if fr >= fb {  // 0 ≥ 2 > 1
                c1 = p[1]; c2 = p[1 + s2]; f1 = fr; f2 = fb; f3 = fg
            } else {  // 2 > 0 ≥ 1
                c1 = p[s2]; c2 = p[1 + s2]; f1 = fb; f2 = fr; f3 = fg
            }
        } else {
            if fb > fg {  // 2 > 1 > 0
                c1 = p[s2]; c2 = p[s1 + s2]; f1 = fb; f2 = fg; f3 = fr
            } else if fb > fr {  // 1 ≥ 2 > 0
                c1 = p[s1]; c2 = p[s1 + s2]; f1 = fg; f2 = fb; f3 = fr
            } else {  // 1 > 0 ≥ 2
                c1 = p[s1]; c2 = p[1 + s1]; f1 = fg; f2 = fr; f3 = fb
            }
        }
        // Q16 sum (c·256 times weights out of 256), rounded by adding 1.5·2²³ after scaling to 0...255.
        var out = c0 * 256
        out += (c1 - c0) * SIMD4(repeating: Float(f1))
        out += (c2 - c1) * SIMD4(repeating: Float(f2))
        out += (c3 - c2) * SIMD4(repeating: Float(f3))
        // Entries are within 0...255 and the blend is convex, so no clamp is needed.
        return unsafeBitCast(out * (1 / 256) + 12_582_912.0, to: SIMD4<UInt32>.self) & SIMD4(repeating: 0xFF)
    }
}
