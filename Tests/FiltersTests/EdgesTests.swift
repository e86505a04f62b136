import Testing

@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// The one-pass Sobel against a plain Double reference, in place and split into bands.
@Suite struct EdgesTests {
    /// min(255, round(√(gx² + gy²)) + offset) over an edge-extended luma plane.
    static func reference(_ luma: [Int], width w: Int, height h: Int, offset: Int) -> [Int] {
        func l(_ x: Int, _ y: Int) -> Int { luma[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)] }
        var out = [Int](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let gx = l(x + 1, y - 1) + 2 * l(x + 1, y) + l(x + 1, y + 1) - l(x - 1, y - 1) - 2 * l(x - 1, y) - l(x - 1, y + 1)
                let gy = l(x - 1, y + 1) + 2 * l(x, y + 1) + l(x + 1, y + 1) - l(x - 1, y - 1) - 2 * l(x, y - 1) - l(x + 1, y - 1)
                out[y * w + x] = min(255, Int(Double(gx * gx + gy * gy).squareRoot().rounded()) + offset)
            }
        }
        return out
    }

    @Test(arguments: [PixelFormat.i420, .nv12, .yuy2], [1, 2])
    func yuvIsExactlyTheSobelMagnitude(format: PixelFormat, threads: Int) throws {
        // Big enough for two bands (RowParallel.threshold), odd so the 8-wide groups have a tail.
        let (w, h) = (517, 301)
        let frame = TestFrame(format, w, h)
        let luma = BoxCascadeTests.natural(width: w, height: h, channels: 1, seed: 21).map(Int.init)
        for y in 0..<h { for x in 0..<w { frame.setY(x, y, luma[y * w + x]) } }
        try FilterChain { Edges() }.compile(threads: threads).process(frame.frame)
        #expect(frame.canariesIntact)
        let expected = Self.reference(luma, width: w, height: h, offset: 16)
        var wrong = 0
        for y in 0..<h { for x in 0..<w where frame.y(x, y) != expected[y * w + x] { wrong += 1 } }
        #expect(wrong == 0, "\(format), \(threads) threads: \(wrong) samples differ")
        #expect(frame.u(3, 5) == 128 && frame.v(200, 100) == 128)
    }

    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb], [1, 2])
    func rgbIsTheSobelOfItsLumaInPlaceAndSplit(format: PixelFormat, threads: Int) throws {
        let (w, h) = (333, 419)
        let frame = TestFrame(format, w, h)
        let bytes = BoxCascadeTests.natural(width: w, height: h, channels: 3, seed: 4)
        var rgb: [(Int, Int, Int)] = []
        for i in 0..<(w * h) { rgb.append((Int(bytes[3 * i]), Int(bytes[3 * i + 1]), Int(bytes[3 * i + 2]))) }
        frame.paint { x, y in rgb[y * w + x] }
        let k = frame.color.lumaCoefficients
        let luma = rgb.map { Int((k.r * Double($0.0) + k.g * Double($0.1) + k.b * Double($0.2)).rounded()) }
        try FilterChain { Edges() }.compile(threads: threads).process(frame.frame)
        #expect(frame.canariesIntact)
        let expected = Self.reference(luma, width: w, height: h, offset: 0)
        var worst = 0, grey = true
        for y in 0..<h {
            for x in 0..<w {
                let p = frame.rgb(x, y)
                grey = grey && p.0 == p.1 && p.1 == p.2
                worst = max(worst, abs(p.0 - expected[y * w + x]))
            }
        }
        #expect(grey)
        // Luma is Q15 in the kernel: a byte of it can round the other way, moving a magnitude by ≤ 4·√2.
        #expect(worst <= 6, "\(format): max difference \(worst)")
        #expect(frame.alpha(17, 400) == 200)
    }
}

extension SIMDPathTests {
    /// Edges' magnitude bytes against the exact root, on every SIMD path. The AVX2 path takes the root as rsqrtps and
    /// one Newton step, the baseline as sqrtps.
    @Suite struct EdgesRootTests {
        /// Every (gx, gy) with 0 ≤ gy ≤ gx ≤ 1020 (the Sobel's range; signs and order do not change gx² + gy²,
        /// a few sign pairs are checked too) with luma's offsets 0 and 16: min(255, round(√(gx² + gy²)) + offset).
        @Test func rootsAreExactOnEveryPath() {
            var gx: [Int16] = [], gy: [Int16] = []
            for x in 0...1020 {
                for y in 0...x {
                    gx.append(Int16(x))
                    gy.append(Int16(y))
                }
            }
            for (x, y) in [(-1020, 1020), (-3, -4), (1020, -1020), (-255, 0), (0, -256)] {
                gx.append(Int16(x))
                gy.append(Int16(y))
            }
            while gx.count % 16 != 0 {
                gx.append(0)
                gy.append(0)
            }
            // The exact bytes once per offset; each path's output is compared whole, and walked only when it differs.
            let roots = gx.indices.map { i in Double(Int(gx[i]) * Int(gx[i]) + Int(gy[i]) * Int(gy[i])).squareRoot().rounded() }
            var out = [UInt8](repeating: 0, count: gx.count)
            for offset in [0, 16] {
                let expected = roots.map { UInt8(min(255, Int($0) + offset)) }
                for path in SIMDPath.available {
                    KernelSet(path: path).table.edgesMagnitudes(gx, gy, count: gx.count, offset: Int32(offset), into: &out)
                    guard out != expected else { continue }
                    let wrong = gx.indices.filter { out[$0] != expected[$0] }
                    let first = wrong[0]
                    Issue.record(
                        "\(path), offset \(offset): \(wrong.count) wrong, first gx \(gx[first]) gy \(gy[first]): \(out[first]), not \(expected[first])"
                    )
                }
            }
        }
    }
}
