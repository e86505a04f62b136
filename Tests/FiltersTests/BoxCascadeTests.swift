import Testing

@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// Blur and sharpen against the exact Gaussian (sampled to ±4σ, Double, edges extended) on a
/// deterministic natural-looking frame: smooth gradients, hard edges and noise.
@Suite struct BoxCascadeTests {
    /// One byte plane: smooth waves and a ramp, a bright disc, a dark bar, diagonal stripes, noise.
    static func natural(width: Int, height: Int, channels: Int, seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        var out = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let fx = Double(x), fy = Double(y), phase = Double(c)
                    var v = 60 + 80 * sin(fx / 37 + phase) * cos(fy / 53) + 0.2 * fx
                    let dx = fx - 0.45 * Double(width), dy = fy - 0.4 * Double(height)
                    if dx * dx + dy * dy < 0.04 * Double(width * width) { v = 230 }
                    if y > height * 2 / 3, y < height * 5 / 6, x > width / 10, x < width * 7 / 10 { v = 20 }
                    if (x + y + 13 * c) % 47 < 9 { v += 40 }
                    // Noise: sum of four uniforms, σ ≈ 6.
                    var noise = 0.0
                    for _ in 0..<4 { noise += Double(rng.next() % 1000) / 1000 - 0.5 }
                    v += noise * 20.8
                    out[(y * width + x) * channels + c] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return out
    }

    /// The exact Gaussian of one channel of an interleaved plane, per axis σ, rounded to bytes.
    static func exact(_ plane: [UInt8], width: Int, height: Int, channels: Int, sigmaX: Double, sigmaY: Double) -> [Double] {
        func kernel(_ sigma: Double) -> [Double] {
            let r = Int((4 * sigma).rounded(.up))
            let k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
            let total = k.reduce(0, +)
            return k.map { $0 / total }
        }
        let kx = kernel(sigmaX), ky = kernel(sigmaY)
        let rx = kx.count / 2, ry = ky.count / 2
        var horizontal = [Double](repeating: 0, count: plane.count)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    var sum = 0.0
                    for (i, w) in kx.enumerated() {
                        let xx = min(max(x + i - rx, 0), width - 1)
                        sum += w * Double(plane[(y * width + xx) * channels + c])
                    }
                    horizontal[(y * width + x) * channels + c] = sum
                }
            }
        }
        var out = [Double](repeating: 0, count: plane.count)
        for y in 0..<height {
            for x in 0..<width * channels {
                var sum = 0.0
                for (i, w) in ky.enumerated() {
                    let yy = min(max(y + i - ry, 0), height - 1)
                    sum += w * horizontal[yy * width * channels + x]
                }
                out[y * width * channels + x] = sum
            }
        }
        return out
    }

    static func write(_ bytes: [UInt8], to frame: TestFrame, plane: Int, rowBytes: Int) {
        for (i, b) in bytes.enumerated() { frame.setByte(plane, i % rowBytes, i / rowBytes, b) }
    }

    static func read(_ frame: TestFrame, plane: Int, rowBytes: Int, rows: Int) -> [UInt8] {
        (0..<(rowBytes * rows)).map { frame.byte(plane, $0 % rowBytes, $0 / rowBytes) }
    }

    /// Largest |out − round(exact)| and how many bytes differ by 2.
    static func error(_ out: [UInt8], _ exact: [Double], amount: Double?, original: [UInt8]) -> (max: Int, twos: Int) {
        var worst = 0, twos = 0
        for i in out.indices {
            var expected = exact[i]
            if let amount { expected = Double(original[i]) + amount * (Double(original[i]) - exact[i]) }
            let e = abs(Int(out[i]) - Int(max(0, min(255, expected.rounded()))))
            worst = max(worst, e)
            if e >= 2 { twos += 1 }
        }
        return (worst, twos)
    }

    @Test(arguments: [1, 1.5, 2, 3, 4.5, 8, 16.5, 30, 50])
    func lumaWithinTwoOfTheExactGaussian(sigma: Double) throws {
        let width = 173, height = 121
        let frame = TestFrame(.i420, width, height)
        frame.fill { _, _, _ in 128 }
        let luma = Self.natural(width: width, height: height, channels: 1, seed: 3)
        Self.write(luma, to: frame, plane: 0, rowBytes: width)
        try FilterChain { Blur(radius: sigma) }.compile().process(frame.frame)
        #expect(frame.canariesIntact)
        let out = Self.read(frame, plane: 0, rowBytes: width, rows: height)
        let exact = Self.exact(luma, width: width, height: height, channels: 1, sigmaX: sigma, sigmaY: sigma)
        let e = Self.error(out, exact, amount: nil, original: luma)
        #expect(e.max <= 2, "σ \(sigma): max error \(e.max)")
        #expect(e.twos * (sigma <= 16 ? 100 : 20) <= out.count, "σ \(sigma): \(e.twos) bytes off by 2 of \(out.count)")
        // Chroma planes (constant) stay constant.
        #expect(frame.u(40, 30) == 128 && frame.v(86, 60) == 128)
    }

    @Test(arguments: [(PixelFormat.rgba, 4.0, 1), (.bgrx, 2.5, 2), (.nv12, 6.0, 1), (.nv12, 4.0, 2), (.i420, 9.0, 2)])
    func everyPlaneWithinTwo(format: PixelFormat, sigma: Double, threads: Int) throws {
        // Two threads split a frame only above RowParallel.threshold samples.
        let (width, height) = threads == 1 ? (150, 97) : (400, 341)
        let frame = TestFrame(format, width, height)
        var planes: [(plane: Int, bytes: [UInt8], rowBytes: Int, rows: Int, channels: Int, sub: Double)] = []
        for index in 0..<format.planeCount {
            let rowBytes = format.rowBytes(plane: index, width: width), rows = format.rows(plane: index, height: height)
            let channels = format.isRGB ? 4 : (format == .nv12 && index == 1 ? 2 : 1)
            let bytes = Self.natural(width: rowBytes / channels, height: rows, channels: channels, seed: UInt64(5 + index))
            Self.write(bytes, to: frame, plane: index, rowBytes: rowBytes)
            planes.append((index, bytes, rowBytes, rows, channels, index == 0 ? 1 : 2))
        }
        try FilterChain { Blur(radius: sigma) }.compile(threads: threads).process(frame.frame)
        #expect(frame.canariesIntact)
        for p in planes {
            let out = Self.read(frame, plane: p.plane, rowBytes: p.rowBytes, rows: p.rows)
            let exact = Self.exact(
                p.bytes, width: p.rowBytes / p.channels, height: p.rows, channels: p.channels,
                sigmaX: sigma / p.sub, sigmaY: sigma / p.sub)
            let e = Self.error(out, exact, amount: nil, original: p.bytes)
            #expect(e.max <= 2, "\(format) plane \(p.plane) σ \(sigma): max error \(e.max)")
        }
    }

    /// RGBA and one-channel planes (here I420's luma) up to σ ≈ 9.8 run the 16-bit cascade (5 fraction bits up to
    /// σ ≈ 5.1, then 4): within 1 of the float cascade everywhere, and within 2 of the exact Gaussian with at most
    /// 0.2 % more bytes off by 2 than the float one. (Above σ ≈ 9, this RGBA frame has bytes 3 off with the float
    /// cascade too.)
    @Test(arguments: [PixelFormat.rgba, .i420], [2.0, 3, 4, 5.1, 5.2, 6.5, 8, 9.7])
    func fixedPointAddsAtMostOneToTheFloatCascade(format: PixelFormat, sigma: Double) throws {
        let width = 157, height = 103, ch = format.isRGB ? 4 : 1
        let n = BoxCascadeKernel.passes(sigma: sigma), box = BoxCascadeKernel.box(sigma: sigma, passes: n)
        #expect(BoxCascadeFixedCore.fractionBits(radius: box.radius) == (sigma <= 5.1 ? 5 : 4), "σ \(sigma): radius \(box.radius)")
        let source = TestFrame(format, width, height)
        let bytes = Self.natural(width: width, height: height, channels: ch, seed: 17)
        Self.write(bytes, to: source, plane: 0, rowBytes: width * ch)
        let fixed = source.copy(), float = source.copy()
        let context = SpatialContext(scratch: ScratchPool(), threads: 1, kernels: .best)
        let view = ChannelView.views(source: source.frame, destination: fixed.frame)[0]
        #expect(BoxCascadeFixedKernel.run(view, horizontal: box, vertical: box, passes: n, amount: nil, context))
        BoxCascadeKernel.runFloat(
            ChannelView.views(source: source.frame, destination: float.frame)[0], horizontal: box, vertical: box,
            passes: n, amount: nil, context)
        #expect(fixed.canariesIntact && float.canariesIntact)
        let a = Self.read(fixed, plane: 0, rowBytes: width * ch, rows: height),
            b = Self.read(float, plane: 0, rowBytes: width * ch, rows: height)
        let apart = zip(a, b).map { abs(Int($0) - Int($1)) }
        #expect(apart.max()! <= 1, "σ \(sigma)")
        let exact = Self.exact(bytes, width: width, height: height, channels: ch, sigmaX: sigma, sigmaY: sigma)
        let e = Self.error(a, exact, amount: nil, original: bytes), f = Self.error(b, exact, amount: nil, original: bytes)
        #expect(e.max <= max(2, f.max), "σ \(sigma): max error \(e.max)")
        #expect((e.twos - f.twos) * 500 <= a.count, "σ \(sigma): \(e.twos) bytes off by 2, float \(f.twos), of \(a.count)")
    }

    /// The 16-bit cascade runs in panels of columns, as many as the ring's size and the bands ask for (RGBA: 3 on
    /// one thread, 4 on two; I420 luma: 2 and 2), and in place copies the pixels near the panels' boundaries first:
    /// integer sums make every split give the same bytes.
    @Test(arguments: [PixelFormat.rgba, .i420], [4.0, 6])
    func panelsBandsAndInPlaceGiveTheSameBytes(format: PixelFormat, sigma: Double) throws {
        let ch = format.isRGB ? 4 : 1, width = format.isRGB ? 1_900 : 3_000, height = 45
        let source = TestFrame(format, width, height)
        Self.write(Self.natural(width: width, height: height, channels: ch, seed: 23), to: source, plane: 0, rowBytes: width * ch)
        var results: [TestFrame] = []
        for threads in [1, 2] {
            let out = TestFrame(format, width, height)
            try FilterChain { Blur(radius: sigma) }.compile(threads: threads).process(from: source.frame, to: out.frame)
            #expect(out.canariesIntact)
            results.append(out)
        }
        let inPlace = source.copy()
        try FilterChain { Blur(radius: sigma) }.compile().process(inPlace.frame)
        results.append(inPlace)
        for (index, other) in results.enumerated().dropFirst() {
            #expect(other.difference(from: results[0]) == nil, "σ \(sigma): result \(index)")
        }
        #expect(results[0].difference(from: source) != nil)
    }

    @Test(arguments: [PixelFormat.rgba, .nv12])
    func sharpenIsTheBlurAndOneFusedPass(format: PixelFormat) throws {
        let width = 131, height = 77, sigma = 3.0, amount = 1.5
        let frame = TestFrame(format, width, height)
        frame.fill { _, _, _ in 128 }
        let channels = format.isRGB ? 4 : 1
        let bytes = Self.natural(width: width, height: height, channels: channels, seed: 11)
        Self.write(bytes, to: frame, plane: 0, rowBytes: width * channels)
        try FilterChain { Sharpen(amount: amount, radius: sigma) }.compile().process(frame.frame)
        let out = Self.read(frame, plane: 0, rowBytes: width * channels, rows: height)
        let exact = Self.exact(bytes, width: width, height: height, channels: channels, sigmaX: sigma, sigmaY: sigma)
        let e = Self.error(out, exact, amount: amount, original: bytes)
        // The blur's error of ≤ 2 is scaled by the amount in the mask.
        #expect(e.max <= 3, "max error \(e.max)")
    }

    @Test func extendedBoxesHaveTheGaussianVariance() {
        for sigma in [2.0, 2.7, 5, 16, 16.5, 50] {
            let n = BoxCascadeKernel.passes(sigma: sigma)
            let box = BoxCascadeKernel.box(sigma: sigma, passes: n)
            let r = Double(box.radius)
            let total = Double(box.inner) * (2 * r + 1) + 2 * Double(box.outer)
            let variance = Double(box.inner) * r * (r + 1) * (2 * r + 1) / 3 + 2 * Double(box.outer) * (r + 1) * (r + 1)
            #expect(abs(total - 1) < 1e-6)
            #expect(abs(variance * Double(n) - sigma * sigma) < 1e-4 * sigma * sigma, "σ \(sigma)")
            #expect(box.outer >= 0 && box.outer < box.inner)
        }
    }
}

/// The direct Q14 kernel (σ < 2, and sharpen's default) against its integer definition, exactly:
/// the SIMD loops and the scalar tails must give the same bytes as the sums written out.
@Suite struct DirectGaussianTests {
    static func reference(_ luma: [UInt8], width w: Int, height h: Int, sigma: Double, amount: Float?) -> [UInt8] {
        let weights = GaussianKernel.weights(sigma: sigma)
        let r = weights.count / 2
        var q8 = [Int32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var acc: Int32 = 32
                for (k, wk) in weights.enumerated() { acc += wk * Int32(luma[y * w + min(max(x - r + k, 0), w - 1)]) }
                q8[y * w + x] = acc >> 6
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var acc: Int32 = 1 << 21
                for (k, wk) in weights.enumerated() { acc += wk * q8[min(max(y - r + k, 0), h - 1) * w + x] }
                if let amount {
                    let s = Float(luma[y * w + x])
                    let blurred = Float(acc - (1 << 21)) * (1 / 4_194_304)
                    out[y * w + x] = clampByte(s + amount * (s - blurred))
                } else {
                    out[y * w + x] = UInt8(acc >> 22)
                }
            }
        }
        return out
    }

    @Test(arguments: [(1.2, nil), (1.0, 1.7), (1.9, 0.6)] as [(Double, Float?)])
    func simdLoopsEqualTheSums(sigma: Double, amount: Float?) throws {
        let (w, h) = (53, 19)
        let frame = TestFrame(.i420, w, h)
        frame.fill { _, _, _ in 128 }
        let luma = BoxCascadeTests.natural(width: w, height: h, channels: 1, seed: 31)
        BoxCascadeTests.write(luma, to: frame, plane: 0, rowBytes: w)
        let chain: FilterChain =
            amount.map { a in FilterChain { Sharpen(amount: Double(a), radius: sigma) } } ?? FilterChain { Blur(radius: sigma) }
        try chain.compile().process(frame.frame)
        #expect(frame.canariesIntact)
        let out = BoxCascadeTests.read(frame, plane: 0, rowBytes: w, rows: h)
        let expected = Self.reference(luma, width: w, height: h, sigma: sigma, amount: amount)
        #expect(out == expected, "σ \(sigma) amount \(String(describing: amount)): \(zip(out, expected).filter { $0 != $1 }.count) differ")
    }

    /// Cut into pieces (each with its ring of rows, every piece's first and last r rows made first), in place and into
    /// another frame: still the sums written out. On 190 rows, 8 threads give pieces of 11–12 rows (σ = 1.9: r = 6, so
    /// no row between the edge rows), 24 threads pieces of 3–4 rows, shorter than r (a tap reaches past the neighbour).
    @Test(arguments: [(1.0, 1.7, 3), (1.9, nil, 8), (1.2, nil, 2), (1.9, 1.2, 24)] as [(Double, Float?, Int)])
    func piecesEqualTheSums(sigma: Double, amount: Float?, threads: Int) throws {
        let (w, h) = (720, 190)
        #expect(
            RowParallel.bands(threads: threads, rows: h, samples: w * h) == threads, "one piece: the frame is below the split's threshold")
        let frame = TestFrame(.i420, w, h)
        frame.fill { _, _, _ in 128 }
        let luma = BoxCascadeTests.natural(width: w, height: h, channels: 1, seed: 7)
        BoxCascadeTests.write(luma, to: frame, plane: 0, rowBytes: w)
        let chain: FilterChain =
            amount.map { a in FilterChain { Sharpen(amount: Double(a), radius: sigma) } } ?? FilterChain { Blur(radius: sigma) }
        let compiled = chain.compile(threads: threads)
        let expected = Self.reference(luma, width: w, height: h, sigma: sigma, amount: amount)
        let copied = TestFrame(.i420, w, h)
        try compiled.process(from: frame.frame, to: copied.frame)
        try compiled.process(frame.frame)
        for (name, result) in [("in place", frame), ("into another frame", copied)] {
            let out = BoxCascadeTests.read(result, plane: 0, rowBytes: w, rows: h)
            #expect(result.canariesIntact)
            // A count, not `out == expected`: on a failure the expectation would diff the two arrays (quadratic in their length).
            let differing = zip(out, expected).filter { $0 != $1 }.count
            #expect(out.count == expected.count && differing == 0, "σ \(sigma) \(threads) threads \(name): \(differing) differ")
        }
    }
}
