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
/// Per pixel: one `TetrahedralCube` lookup on the pixel's R, G and B bytes.
final class RGBLutKernel {
    private let cube: TetrahedralCube

    init?(_ program: PointProgram, stages: UnsafeBufferPointer<RGBPointKernel.Stage>) {
        guard let last = stages.last, last.kind == .lut3D, case let .lut3D(original)? = program.steps.last,
            stages.dropLast().allSatisfy({ $0.kind == .affine || $0.kind == .curve })
        else { return nil }
        let n = stages.count == 1 ? original.size : max(original.size, 33)
        let step = Float(255) / Float(n - 1)
        guard
            let cube = TetrahedralCube(
                size: n,
                row: { g, b in
                    // One row of grid points through the float pass's own code, four at a time.
                    var row: [SIMD3<Float>] = []
                    var r = 0
                    while r < n {
                        var rr = Lanes<Float>(), gg = Lanes<Float>(repeating: Float(g) * step),
                            bb = Lanes<Float>(repeating: Float(b) * step)
                        for lane in 0..<laneCount { rr[lane] = Float(min(r + lane, n - 1)) * step }
                        RGBPointKernel.applyAll(stages, &rr, &gg, &bb, 0, 0)
                        for lane in 0..<laneCount where r + lane < n { row.append(SIMD3(rr[lane], gg[lane], bb[lane])) }
                        r += laneCount
                    }
                    return row
                })
        else { return nil }
        self.cube = cube
    }

    /// Rows `rows` from `source` to `destination` (may be the same memory); alpha/padding bytes kept.
    func run(source: Plane, destination: Plane, format: PixelFormat, width: Int, rows: Range<Int>) {
        let o = format.rgbOffsets
        let shiftR = UInt32(o.r * 8), shiftG = UInt32(o.g * 8), shiftB = UInt32(o.b * 8)
        let keep = UInt32(0xFF) << UInt32(o.a * 8)
        let (s1, s2) = (cube.size, cube.size * cube.size)
        cube.entries.withUnsafeBufferPointer { entries in
            cube.axes[0].withUnsafeBufferPointer { ar in
                cube.axes[1].withUnsafeBufferPointer { ag in
                    cube.axes[2].withUnsafeBufferPointer { ab in
                        let c = entries.baseAddress!
                        for y in rows {
                            let src = (source.base + y * source.stride).assumingMemoryBound(to: UInt32.self)
                            let dst = (destination.base + y * destination.stride).assumingMemoryBound(to: UInt32.self)
                            for x in 0..<width {
                                let v = src[x]
                                let bits = TetrahedralCube.blend(
                                    c, s1, s2, ar[Int((v &>> shiftR) & 0xFF)], ag[Int((v &>> shiftG) & 0xFF)],
                                    ab[Int((v &>> shiftB) & 0xFF)])
                                dst[x] = (bits[0] &<< shiftR) | (bits[1] &<< shiftG) | (bits[2] &<< shiftB) | (v & keep)
                            }
                        }
                    }
                }
            }
        }
    }
}
