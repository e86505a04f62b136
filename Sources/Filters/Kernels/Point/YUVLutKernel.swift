/// A 3D LUT, with the curves and matrices before it, on Y'CbCr frames (NV12, I420, YUY2) in fixed point.
///
/// The general path's own result at every point of a grid over the three input codes (Y', Cb, Cr) is
/// baked once into a `TetrahedralCube`; per 2×2 block (2×1 on YUY2) each luma sample is one lookup on its
/// Y' and the block's chroma (the new Y'), and the chroma is one lookup on the block's mean luma (in quarter
/// codes, not rounded) and its Cb and Cr (the new Cb and Cr): the samples the general path reads for each
/// output. Between grid points the cube is interpolated where the general path computes the chain exactly,
/// so the two differ by up to 2 codes on smooth chains and cubes (`LutKernelTests`).
final class YUVLutKernel {
    private let cube: TetrahedralCube

    /// `evaluate` maps input codes (Y', Cb, Cr on 0...255) to output codes; `size` grid points per axis.
    init?(size n: Int, evaluate: (Float, Float, Float) -> (Float, Float, Float)) {
        let step = Float(255) / Float(n - 1)
        guard
            let cube = TetrahedralCube(
                size: n,
                row: { u, v in
                    (0..<n).map { y in
                        let out = evaluate(Float(y) * step, Float(u) * step, Float(v) * step)
                        return SIMD3(out.0, out.1, out.2)
                    }
                })
        else { return nil }
        self.cube = cube
    }

    /// Luma rows `rows` (starting on a chroma row) from `source` to `destination` (may be the same memory).
    func run(_ layout: YUVLayout, _ source: Frame, _ destination: Frame, _ rows: Range<Int>) {
        let width = source.width, height = source.height
        let sub = layout.verticalSubsampling
        let (s1, s2) = (cube.size, cube.size * cube.size)
        cube.entries.withUnsafeBufferPointer { entries in
            cube.axes[0].withUnsafeBufferPointer { ay in
                cube.axes[1].withUnsafeBufferPointer { au in
                    cube.axes[2].withUnsafeBufferPointer { av in
                        cube.quarterAxis.withUnsafeBufferPointer { aq in
                            let c = entries.baseAddress!
                            let (ys, us, vs) = (layout.y.step, layout.u.step, layout.v.step)
                            for crow in (rows.lowerBound / sub)..<((rows.upperBound + sub - 1) / sub) {
                                let top = crow * sub, pair = top + 1 < min(top + sub, height)
                                let su = layout.row(layout.u, source, crow), du = layout.row(layout.u, destination, crow)
                                let sv = layout.row(layout.v, source, crow), dv = layout.row(layout.v, destination, crow)
                                // The block's second luma row, when it has one; else its first again, never read.
                                let sy0 = layout.row(layout.y, source, top), dy0 = layout.row(layout.y, destination, top)
                                let sy1 = layout.row(layout.y, source, pair ? top + 1 : top),
                                    dy1 = layout.row(layout.y, destination, pair ? top + 1 : top)
                                @inline(__always) func luma(
                                    _ sy: UnsafeMutablePointer<UInt8>, _ dy: UnsafeMutablePointer<UInt8>, _ x: Int,
                                    _ tu: UInt32, _ tv: UInt32
                                ) -> Int {
                                    let y = Int(sy[x * ys])
                                    dy[x * ys] = UInt8(truncatingIfNeeded: TetrahedralCube.blend(c, s1, s2, ay[y], tu, tv)[0])
                                    return y
                                }
                                for cx in 0..<layout.chromaWidth(width) {
                                    let tu = au[Int(su[cx * us])], tv = av[Int(sv[cx * vs])]
                                    let x = 2 * cx, both = x + 1 < width
                                    var sum = luma(sy0, dy0, x, tu, tv)
                                    if both { sum += luma(sy0, dy0, x + 1, tu, tv) }
                                    if pair {
                                        sum += luma(sy1, dy1, x, tu, tv)
                                        if both { sum += luma(sy1, dy1, x + 1, tu, tv) }
                                    }
                                    // 1, 2 or 4 samples: the mean in quarter codes is sum · 4 / count.
                                    let quarter = pair ? (both ? sum : 2 * sum) : (both ? 2 * sum : 4 * sum)
                                    let out = TetrahedralCube.blend(c, s1, s2, aq[quarter], tu, tv)
                                    du[cx * us] = UInt8(truncatingIfNeeded: out[1])
                                    dv[cx * vs] = UInt8(truncatingIfNeeded: out[2])
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
