import Testing

@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// The fixed-point tetrahedral cube (with the chain before it baked in) against the float pass.
@Suite struct LutKernelTests {
    /// A cube of `size` points from a function of normalized RGB.
    static func cube(_ size: Int, _ f: (Double, Double, Double) -> (Double, Double, Double)) -> Cube3D {
        var table: [Float] = []
        let n = Double(size - 1)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let v = f(Double(r) / n, Double(g) / n, Double(b) / n)
                    table += [Float(v.0), Float(v.1), Float(v.2)]
                }
            }
        }
        return Cube3D(size: size, table: table)!
    }

    /// Max |difference| between the fixed-point kernel and the float pass, and whether the fixed one ran.
    static func compare(_ filters: [any Filter], format: PixelFormat, seed: UInt64) -> (worst: Int, tetrahedral: Bool) {
        let (w, h) = (97, 61)
        let frame = TestFrame(format, w, h)
        // Natural content on all four bytes, so every cell and every tetrahedron is visited.
        BoxCascadeTests.write(BoxCascadeTests.natural(width: w, height: h, channels: 4, seed: seed), to: frame, plane: 0, rowBytes: 4 * w)
        let operations = filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
            if case let .point(p) = op { return p } else { return nil }
        }
        var outputs: [[UInt8]] = []
        var tetrahedral = false
        let scratch = ScratchPool()
        for fixedPoint in [true, false] {
            let out = frame.copy(padding: 16)
            let program = PointProgram(operations, color: frame.color)
            let kernel = RGBPointKernel(program, fixedPoint: fixedPoint)
            kernel.prepare(format: format, width: w, height: h, scratch: scratch, slotBase: 0)
            if fixedPoint { tetrahedral = kernel.withStages { RGBLutKernel(program, stages: $0) } != nil }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: RGBPointKernel.bufferBytes(width: w), alignment: 64)
            defer { buffer.deallocate() }
            kernel.run(
                source: frame.frame.planes[0], destination: out.frame.planes[0], format: format, width: w, height: h,
                rows: 0..<h, buffer: buffer)
            #expect(out.canariesIntact)
            outputs.append(out.visibleBytes)
        }
        return (zip(outputs[0], outputs[1]).map { abs(Int($0) - Int($1)) }.max() ?? 0, tetrahedral)
    }

    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
    func aCubeLinearInEachCellIsTheTrilinearOne(format: PixelFormat) {
        // Linear maps (a matrix, an inversion): tetrahedral and trilinear agree up to rounding.
        let warm = Self.cube(17) { r, g, b in (0.05 + 0.9 * r, 0.03 + 0.8 * g + 0.1 * r, 0.9 * b) }
        let result = Self.compare([Lut(cube: warm)], format: format, seed: 1)
        #expect(result.tetrahedral)
        #expect(result.worst <= 1, "\(format): \(result.worst)")
    }

    @Test(arguments: [PixelFormat.rgba, .bgra])
    func aCurvedCubeIsCloseToTrilinear(format: PixelFormat) {
        // Cross terms and curves: tetrahedral differs from trilinear inside cells, by a little at 17³.
        let look = Self.cube(17) { r, g, b in
            (pow(r, 0.8) * (0.9 + 0.1 * g), 0.5 * g + 0.5 * g * g * (1 - b) + 0.1 * b, b * b * 0.7 + 0.2 * r)
        }
        let result = Self.compare([Lut(cube: look)], format: format, seed: 2)
        #expect(result.tetrahedral)
        #expect(result.worst <= 3, "\(format): \(result.worst)")
    }

    /// The same on Y'CbCr: the baked code-domain cube (`YUVLutKernel`) against the general float path, natural
    /// content on every plane, odd size (partial 2×2 blocks at the right and bottom edges).
    static func compareYUV(_ filters: [any Filter], format: PixelFormat, seed: UInt64) -> (luma: Int, chroma: Int) {
        let (w, h) = (97, 61)
        let frame = TestFrame(format, w, h)
        for plane in 0..<format.planeCount {
            let (rowBytes, rows) = (format.rowBytes(plane: plane, width: w), format.rows(plane: plane, height: h))
            BoxCascadeTests.write(
                BoxCascadeTests.natural(width: rowBytes, height: rows, channels: 1, seed: seed + UInt64(plane)),
                to: frame, plane: plane, rowBytes: rowBytes)
        }
        let operations = filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
            if case let .point(p) = op { return p } else { return nil }
        }
        let program = PointProgram(operations, color: frame.color)
        let outputs = [true, false].map { fixedPoint in
            let out = frame.copy(padding: 16)
            let kernel = YUVPointKernel(program, color: frame.color, fixedPoint: fixedPoint)
            kernel.prepare(width: w, height: h)
            kernel.run(source: frame.frame, destination: out.frame, rows: 0..<h)
            #expect(out.canariesIntact)
            return out
        }
        var luma = 0, chroma = 0
        for y in 0..<h { for x in 0..<w { luma = max(luma, abs(outputs[0].y(x, y) - outputs[1].y(x, y))) } }
        for y in 0..<frame.chromaHeight {
            for x in 0..<frame.chromaWidth {
                chroma = max(chroma, abs(outputs[0].u(x, y) - outputs[1].u(x, y)), abs(outputs[0].v(x, y) - outputs[1].v(x, y)))
            }
        }
        return (luma, chroma)
    }

    @Test(arguments: [PixelFormat.nv12, .i420, .yuy2])
    func onYCbCrTheBakedCubeIsCloseToTheFloatPath(format: PixelFormat) {
        let warm = Self.cube(17) { r, g, b in (0.05 + 0.9 * r, 0.03 + 0.92 * g, 0.9 * b) }
        let look = Self.cube(17) { r, g, b in
            (pow(r, 0.8) * (0.9 + 0.1 * g), 0.5 * g + 0.5 * g * g * (1 - b) + 0.1 * b, b * b * 0.7 + 0.2 * r)
        }
        let chains: [[any Filter]] = [
            [Lut(cube: warm)], [Lut(cube: look)], [Gamma(value: 1.3), Lut(cube: warm)],
            [ColorControls(contrast: 1.2, saturation: 0.8), Sepia(), Lut(cube: look)]
        ]
        for (index, chain) in chains.enumerated() {
            let result = Self.compareYUV(chain, format: format, seed: 10 + UInt64(index))
            // The float path resamples the cube onto Y'CbCr (trilinear) and runs the chain exactly; the baked cube
            // interpolates both between grid points 8 codes apart: at most 2 codes apart here.
            #expect(result.luma <= 2 && result.chroma <= 2, "\(format) chain \(index): luma \(result.luma), chroma \(result.chroma)")
        }
    }

    @Test func theChainBeforeTheCubeIsBakedIn() {
        let warm = Self.cube(17) { r, g, b in (0.05 + 0.9 * r, 0.03 + 0.92 * g, 0.9 * b) }
        for chain in [
            [Gamma(value: 1.3), Lut(cube: warm)] as [any Filter], [ColorControls(contrast: 1.2, saturation: 0.8), Sepia(), Lut(cube: warm)]
        ] {
            let result = Self.compare(chain, format: .rgba, seed: 3)
            #expect(result.tetrahedral)
            // Baked at 33³: the chain is interpolated between grid points 8 codes apart.
            #expect(result.worst <= 3, "\(chain): \(result.worst)")
        }
        // A vignette depends on position: it cannot be baked, the float pass stays.
        #expect(!Self.compare([Vignette(), Lut(cube: warm)], format: .rgba, seed: 4).tetrahedral)
    }
}
