import Testing

@testable import Filters

/// The 16-bit fixed-point passes against the float paths they replace, on random frames.
@Suite struct FixedKernelTests {
    static let chains =
        [
            "sepia", "sepia intensity=0.6", "mono", "invert", "exposure ev=0.7", "exposure ev=-1.5",
            "colorcontrols brightness=0.1 contrast=1.3 saturation=0.6", "colorcontrols contrast=2.5 saturation=3",
            "temperature kelvin=3000 tint=30", "temperature kelvin=11000 tint=-50", "vignette", "vignette intensity=1.5 radius=2",
            "vignette intensity=4 radius=0.5", "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette",
            "temperature kelvin=4000 | vignette intensity=0.8", "mono | invert | exposure ev=0.3 | vignette"
        ] + curveChains

    /// Chains with curves and maps after the vignette, which the 4:2:0 pass folds into itself.
    static let curveChains =
        [
            "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | invert",
            "gamma value=0.5", "gamma value=2.2 | sepia", "threshold level=0.4 | invert",
            "threshold level=0.4 | vignette", "exposure ev=0.5 | gamma value=0.7 | mono | gamma value=1.5 | sepia | vignette",
            "vignette | invert", "sepia | vignette intensity=1.5 | temperature kelvin=9000 tint=-20",
            "gamma value=0.8 | vignette | colorcontrols brightness=0.1 contrast=1.3 saturation=0.6"
        ] + stepChains

    /// A step curve before a map that takes chroma from luma. Chroma sees the curve of its block's mean
    /// luma; where that mean is exactly a curve step's rounding tie (a sum of four codes can be), the float
    /// path's side is decided by float rounding and the table's by exact arithmetic, so a few chroma
    /// samples take the other step. Everywhere else they agree within 1 code.
    /// Sepia takes chroma from luma too (its tone scales with luma), so posterize before it is a step chain; its chroma
    /// takes one value per level, and a level whose value falls on a rounding boundary differs by a code everywhere.
    static let stepChains = [
        "posterize levels=4 | temperature kelvin=3000 tint=30", "threshold level=0.4 | temperature kelvin=4000 | vignette",
        "posterize levels=4 | sepia"
    ]

    /// Runs `text` on a copy of `frame` with the fixed-point pass or the general float path.
    ///
    /// The reference is the general path: like the RGB kernels it keeps values unclamped until the
    /// end, while the table path clamps luma to a byte before the vignette gain.
    static func run(_ text: String, _ frame: TestFrame, fixedPoint: Bool) throws -> TestFrame {
        let out = frame.copy(padding: 16)
        let chain = try FilterChain(parsing: text)
        let operations = chain.filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
            if case let .point(p) = op { return p } else { return nil }
        }
        let kernel = YUVPointKernel(
            PointProgram(operations, color: frame.color), color: frame.color, fixedPoint: fixedPoint, tables: fixedPoint)
        kernel.prepare(width: frame.width, height: frame.height)
        kernel.run(source: frame.frame, destination: out.frame, rows: 0..<frame.height)
        return out
    }

    @Test(arguments: [PixelFormat.nv12, .i420], [ColorDescription.bt601Limited, .bt709Full])
    func fixedPointAgreesWithFloatWithinOneCode(format: PixelFormat, color: ColorDescription) throws {
        for (width, height) in [(37, 11), (64, 32), (1, 1), (17, 3)] {
            let frame = TestFrame(format, width, height, color: color)
            frame.fillPattern(seed: UInt64(width * 1000 + height))
            for text in Self.chains {
                let fixed = try Self.run(text, frame, fixedPoint: true)
                let float = try Self.run(text, frame, fixedPoint: false)
                #expect(fixed.canariesIntact)
                let a = fixed.visibleBytes, b = float.visibleBytes
                let differing = zip(a, b).filter { $0 != $1 }.count
                let far = zip(a, b).filter { abs(Int($0) - Int($1)) > 1 }.count
                let worst = Self.stepChains.contains(text) && far * 100 <= a.count ? 1 : zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "\(text) \(format) \(color) \(width)x\(height): differs by \(worst)")
                // Differences are rounding-boundary cases (the products are floored at 1/16 code), not a bias.
                let share = Self.stepChains.contains(text) ? 10 : 8
                #expect(
                    a.count < 1000 || differing * 100 <= a.count * share,
                    "\(text) \(format) \(width)x\(height): \(differing) of \(a.count) differ")
            }
        }
    }

    /// Chains the 4:2:0 pass takes only in runs (a curve after a map that mixes luma and chroma, or after the
    /// vignette), run back to back on a few rows. Values are rounded and clamped to bytes between runs, as
    /// separate filters would: within 2 codes of the general path, 3 where a steep curve follows the rounding
    /// (gamma below 1 near black: x^0.7 has slope 2 at 5% grey, so half a code in is a code out). The reference for the last chain is the general path run in the same two parts:
    /// its temperature pushes chroma past the byte range before the gain, which the general path alone keeps.
    static let segmentedChains: [(text: String, tolerance: Int, parts: [String]?)] = [
        ("temperature kelvin=4000 | gamma value=1.2", 2, nil), ("vignette | gamma value=1.2", 2, nil),
        ("gamma value=1.2 | vignette | gamma value=0.8", 3, nil), ("vignette intensity=1.5 | sepia | gamma value=2.2", 2, nil),
        (
            "temperature kelvin=3000 tint=30 | gamma value=0.7 | vignette | exposure ev=0.3", 3,
            ["temperature kelvin=3000 tint=30", "gamma value=0.7 | vignette | exposure ev=0.3"]
        )
    ]

    @Test(arguments: [PixelFormat.nv12, .i420], [ColorDescription.bt601Limited, .bt709Full])
    func segmentedChainsAgreeWithFloat(format: PixelFormat, color: ColorDescription) throws {
        for (width, height) in [(37, 11), (130, 34), (1, 1)] {
            let frame = TestFrame(format, width, height, color: color)
            frame.fillPattern(seed: UInt64(width * 3 + height))
            for (text, tolerance, parts) in Self.segmentedChains {
                let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                    if case let .point(p) = op { return p } else { return nil }
                }
                let program = PointProgram(ops, color: color)
                #expect(YUV420FixedKernel(program, color: color) == nil, "\(text)")
                #expect(YUVPointKernel(program, color: color).segments420.count >= 2, "\(text)")
                let fixed = try Self.run(text, frame, fixedPoint: true)
                var float = frame
                for part in parts ?? [text] { float = try Self.run(part, float, fixedPoint: false) }
                #expect(fixed.canariesIntact)
                let worst = zip(fixed.visibleBytes, float.visibleBytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= tolerance, "\(text) \(format) \(color) \(width)x\(height): differs by \(worst)")
                // In place, through the whole chain (16-row tiles, threads): the same bytes as copying.
                let inPlace = frame.copy(), copied = frame.copy()
                let compiled = try FilterChain(parsing: text).compile(threads: 2)
                try compiled.process(inPlace.frame)
                try compiled.process(from: frame.frame, to: copied.frame)
                #expect(inPlace.difference(from: copied) == nil && inPlace.canariesIntact, "\(text) \(format) in place")
            }
        }
    }

    /// In place (source = destination) the fused 4:2:0 pass writes what it writes to another frame.
    @Test(arguments: [PixelFormat.nv12, .i420])
    func curveChainsInPlaceMatchCopying(format: PixelFormat) throws {
        for (width, height) in [(37, 11), (1, 1), (66, 7)] {
            let frame = TestFrame(format, width, height)
            frame.fillPattern(seed: UInt64(width * 7 + height))
            for text in Self.curveChains {
                let copied = try Self.run(text, frame, fixedPoint: true)
                let inPlace = frame.copy()
                let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                    if case let .point(p) = op { return p } else { return nil }
                }
                let kernel = try #require(YUV420FixedKernel(PointProgram(ops, color: frame.color), color: frame.color), "\(text)")
                kernel.prepare(width: width, height: height)
                kernel.run(source: inPlace.frame, destination: inPlace.frame, rows: 0..<height)
                #expect(inPlace.canariesIntact)
                #expect(inPlace.difference(from: copied) == nil, "\(text) \(format) \(width)x\(height)")
            }
        }
    }

    /// A hue rotation (Cb and Cr cross, luma apart; no filter has one yet) after a curve and before a vignette:
    /// within 1 code of the float path (SIMDPathTests runs it on every path).
    @Test(arguments: [PixelFormat.nv12, .i420])
    func crossedChromaAgreesWithFloat(format: PixelFormat) throws {
        let frame = TestFrame(format, 133, 9)
        frame.fillPattern(seed: 5)
        let program = PointProgram(Self.crossedChroma, color: frame.color)
        let kernel = try #require(YUV420FixedKernel(program, color: frame.color))
        #expect(kernel.crossChroma && !kernel.mixed)
        kernel.prepare(width: frame.width, height: frame.height)
        let fixed = frame.copy(), float = frame.copy()
        kernel.run(source: frame.frame, destination: fixed.frame, rows: 0..<frame.height)
        YUVPointKernel(program, color: frame.color, fixedPoint: false, tables: false).run(
            source: frame.frame, destination: float.frame,
            rows: 0..<frame.height)
        #expect(fixed.canariesIntact)
        let worst = zip(fixed.visibleBytes, float.visibleBytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1)
    }

    /// A curve, a Cb/Cr rotation by asin 0.6 and a vignette.
    static let crossedChroma: [PointOperation] = [
        .curve { $0 * $0 },
        .affine { color in Affine3.rgbToYCbCr(color).then(Affine3(m: [1, 0, 0, 0, 0.8, -0.6, 0, 0.6, 0.8])).then(Affine3.yCbCrToRGB(color))
        },
        .vignette(VignetteShape(intensity: 1, radius: 1))
    ]

    /// Invert alone takes a shortcut (one xor) in the fixed-point pass: exactly 255 − b, alpha kept.
    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
    func invertIsExactlyTheNegative(format: PixelFormat) throws {
        for (width, height) in [(37, 11), (1, 1), (64, 9)] {
            let frame = TestFrame(format, width, height)
            frame.fillPattern(seed: UInt64(width + 5))
            let out = frame.copy()
            try FilterChain { Invert() }.compile().process(from: frame.frame, to: out.frame)
            #expect(out.canariesIntact)
            for y in 0..<height {
                for x in 0..<width {
                    let (r, g, b) = frame.rgb(x, y), (r2, g2, b2) = out.rgb(x, y)
                    #expect(r2 == 255 - r && g2 == 255 - g && b2 == 255 - b && out.alpha(x, y) == frame.alpha(x, y), "\(format) \(x),\(y)")
                }
            }
        }
    }

    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
    func rgbFixedPointAgreesWithFloatWithinOneCode(format: PixelFormat) throws {
        for (width, height) in [(37, 11), (64, 32), (1, 1), (9, 3)] {
            let frame = TestFrame(format, width, height)
            frame.fillPattern(seed: UInt64(width * 1000 + height))
            for text in Self.chains + Self.tableChains {
                let operations = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap {
                    op -> PointOperation? in
                    if case let .point(p) = op { return p } else { return nil }
                }
                var outputs: [[UInt8]] = []
                // The float kernel's vignette columns live in the pool: it must outlive the run.
                let scratch = ScratchPool()
                for fixedPoint in [true, false] {
                    let out = frame.copy(padding: 16)
                    let kernel = RGBPointKernel(PointProgram(operations, color: frame.color), fixedPoint: fixedPoint)
                    kernel.prepare(format: format, width: width, height: height, scratch: scratch, slotBase: 0)
                    let buffer = UnsafeMutableRawPointer.allocate(byteCount: RGBPointKernel.bufferBytes(width: width), alignment: 64)
                    defer { buffer.deallocate() }
                    kernel.run(
                        source: frame.frame.planes[0], destination: out.frame.planes[0], format: format,
                        width: width, height: height, rows: 0..<height, buffer: buffer)
                    #expect(out.canariesIntact)
                    outputs.append(out.visibleBytes)
                }
                let worst = zip(outputs[0], outputs[1]).map { abs(Int($0) - Int($1)) }.max() ?? 0
                // Tables around a core round to bytes at two joins, the first before the matrix's gain.
                let tolerance = Self.tableChains.contains(text) ? 2 : 1
                #expect(worst <= tolerance, "\(text) \(format) \(width)x\(height): differs by \(worst)")
            }
        }
    }

    /// RGB chains that take byte tables, alone or around the 16-bit core.
    static let tableChains = [
        "gamma value=1.5", "posterize", "threshold", "invert | gamma value=0.7 | exposure ev=0.4",
        "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | invert",
        "gamma value=0.8 | sepia", "sepia | vignette | gamma value=0.8"
    ]

    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
    func tablesTakeCurveChainsAndAreExactWhenSeparable(format: PixelFormat) throws {
        func program(_ text: String) throws -> PointProgram {
            let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
            return PointProgram(ops, color: .bt709Full)
        }
        for text in Self.tableChains {
            #expect(RGBTableKernel(try program(text), format: format) != nil, "\(text)")
        }
        #expect(RGBTableKernel(try program("gamma value=2 | vignette | sepia"), format: format) != nil)  // a map after the gain folds
        #expect(RGBTableKernel(try program("gamma value=2 | vignette | gamma value=0.5 | sepia"), format: format) == nil)
        let frame = TestFrame(format, 300, 2)
        frame.fillPattern(seed: 11)
        let scratch = ScratchPool()
        for text in ["gamma value=1.5", "posterize levels=3", "threshold", "invert | gamma value=0.7 | exposure ev=0.4"] {
            var outputs: [[UInt8]] = []
            for fixedPoint in [true, false] {
                let out = frame.copy(padding: 16)
                let kernel = RGBPointKernel(try program(text), fixedPoint: fixedPoint)
                kernel.prepare(format: format, width: 300, height: 2, scratch: scratch, slotBase: 0)
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: RGBPointKernel.bufferBytes(width: 300), alignment: 64)
                defer { buffer.deallocate() }
                kernel.run(
                    source: frame.frame.planes[0], destination: out.frame.planes[0], format: format,
                    width: 300, height: 2, rows: 0..<2, buffer: buffer)
                outputs.append(out.visibleBytes)
            }
            #expect(outputs[0] == outputs[1], "\(text)")
        }
    }

    @Test func eligibility() throws {
        func kernel(_ text: String) throws -> YUV420FixedKernel? {
            let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
            return YUV420FixedKernel(PointProgram(ops, color: .bt601Limited), color: .bt601Limited)
        }
        #expect(try kernel("sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette") != nil)
        #expect(try kernel("temperature kelvin=4000") != nil)
        #expect(try kernel("gamma value=2") != nil)  // a leading curve: a luma table
        #expect(try kernel("gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | invert") != nil)
        #expect(try kernel("vignette | sepia") != nil)  // a map after the vignette folds
        #expect(try kernel("temperature kelvin=4000 | gamma value=2") == nil)  // chroma reaches luma before the curve
        #expect(try kernel("vignette | gamma value=2") == nil)  // a curve after the gain: general
        #expect(try kernel("vignette | sepia | vignette") == nil)
        for text in Self.curveChains { #expect(try kernel(text) != nil, "\(text)") }
        #expect(try kernel("vignette intensity=-1") == nil)  // gain above 1
        #expect(try kernel("colorcontrols contrast=4 saturation=4") == nil)  // does not fit 16 bits
    }

    /// The bench's RGB point chains take the 16-bit pass, and it is what `RGBPointKernel` runs by default.
    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
    func rgbFixedPointIsTheDefault(format: PixelFormat) throws {
        func operations(_ text: String) throws -> [PointOperation] {
            try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
        }
        for text in [
            "sepia", "vignette", "colorcontrols contrast=1.2 saturation=0.8",
            "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"
        ] {
            #expect(RGBFixedKernel(PointProgram(try operations(text), color: .bt709Full), format: format) != nil, "\(text)")
        }
        #expect(RGBFixedKernel(PointProgram(try operations("gamma value=2"), color: .bt709Full), format: format) == nil)
        #expect(RGBFixedKernel(PointProgram(try operations("vignette | sepia"), color: .bt709Full), format: format) != nil)
        #expect(RGBFixedKernel(PointProgram(try operations("vignette | sepia | vignette"), color: .bt709Full), format: format) == nil)

        let (width, height) = (37, 11)
        let frame = TestFrame(format, width, height)
        frame.fillPattern(seed: 7)
        let program = PointProgram(try operations("sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"), color: frame.color)
        var outputs: [[UInt8]] = []
        let scratch = ScratchPool()
        for kernel in [RGBPointKernel(program), RGBPointKernel(program, fixedPoint: true)] {
            let out = frame.copy(padding: 16)
            kernel.prepare(format: format, width: width, height: height, scratch: scratch, slotBase: 0)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: RGBPointKernel.bufferBytes(width: width), alignment: 64)
            defer { buffer.deallocate() }
            kernel.run(
                source: frame.frame.planes[0], destination: out.frame.planes[0], format: format,
                width: width, height: height, rows: 0..<height, buffer: buffer)
            outputs.append(out.visibleBytes)
        }
        #expect(outputs[0] == outputs[1])
    }
}
