import Testing

@testable import Filters

extension SIMDPathTests {
    /// The tone pass (a colour map of rank one: sepia and what follows it, with or without a vignette) on every SIMD path
    /// the machine has, against its scalar reference and the float path.
    @Suite struct ToneKernelTests {
        typealias Grey = GreyKernelTests

        static let toneChains = [
            "sepia", "sepia | colorcontrols contrast=1.2 saturation=0.8", "sepia | vignette", "mono | vignette intensity=1.5 radius=2",
            "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette", "sepia | invert", "sepia | vignette | invert",
            "sepia | exposure ev=0.5 | vignette", "colorcontrols saturation=0 brightness=0.1 | sepia | vignette"
        ]

        /// The folded map of `text` on `format` as a tone pass, or nil where it takes none.
        static func tone(_ text: String, _ format: PixelFormat, _ color: ColorDescription = .bt709Full) throws -> RGBTonePass? {
            guard let (a, shape, after) = PointProgram.foldAffine(try Grey.program(text, color).steps[...]) else { return nil }
            return RGBTonePass(a, vignette: shape, offsetsAfterGain: after, format: format)
        }

        @Test func rankOneMapsTakeTheTonePassAndOthersDoNot() throws {
            for text in Self.toneChains { #expect(try Self.tone(text, .rgba) != nil, "\(text)") }
            for text in [
                "sepia intensity=0.6", "colorcontrols saturation=0.5", "temperature kelvin=4000", "invert", "vignette",
                "colorcontrols contrast=1.3 | vignette"
            ] {
                #expect(try Self.tone(text, .rgba) == nil, "\(text)")
            }
            // Past the 16-bit range of the level times its gain plus the offset: the 3×3 core takes it.
            #expect(try Self.tone("sepia | colorcontrols contrast=4", .rgba) == nil)
            // The chains RGBFixedKernel runs through it (equal rows without a vignette stay with the grey pass).
            for (text, tone) in [("sepia", true), ("sepia | vignette", true), ("mono | vignette", true), ("mono", false)] {
                let kernel = try #require(RGBFixedKernel(try Grey.program(text, .bt709Full), format: .rgba))
                #expect(kernel.usesTonePass == tone, "\(text)")
            }
        }

        @Test func rankOneSplitsARowAndItsGains() throws {
            let (k, g) = try #require(RGBTonePass.rankOne([0.2, 0.6, 0.2, 0.1, 0.3, 0.1, -0.4, -1.2, -0.4]))
            #expect(abs(k.reduce(0, +) - 1) < 1e-12 && k.allSatisfy { $0 >= 0 })
            #expect(abs(g[0] - 1) < 1e-12 && abs(g[1] - 0.5) < 1e-12 && abs(g[2] + 2) < 1e-12)
            // Weights of both signs, rank two, and zero.
            #expect(RGBTonePass.rankOne([1, -1, 0, 1, -1, 0, 1, -1, 0]) == nil)
            #expect(RGBTonePass.rankOne([1, 0, 0, 0, 1, 0, 0, 0, 0]) == nil)
            #expect(RGBTonePass.rankOne([0, 0, 0, 0, 0, 0, 0, 0, 0]) == nil)
        }

        /// Every path writes exactly `RGBTonePass.pixel` of each source pixel with the vignette's gain there (alpha kept),
        /// which is within a code of the float path.
        @Test(arguments: [PixelFormat.rgba, .bgrx, .argb, .xrgb])
        func tonePassMatchesItsScalarReferenceOnEveryPath(format: PixelFormat) throws {
            for color in [ColorDescription.bt601Limited, .bt709Full] {
                for (width, height) in Grey.sizes + [(67, 5)] {
                    let frame = TestFrame(format, width, height, color: color)
                    frame.fillPattern(seed: UInt64(width * 17 + height))
                    for text in Self.toneChains {
                        guard let pass = try Self.tone(text, format, color) else {
                            Issue.record("\(text) takes no tone pass")
                            continue
                        }
                        pass.prepare(width: width, height: height)
                        let float = try Grey.run(text, frame, fixedPoint: false)
                        var expected: [UInt8] = []
                        for y in 0..<height {
                            for x in 0..<width {
                                let v = frame.planes[0].base.loadUnaligned(
                                    fromByteOffset: y * frame.planes[0].stride + 4 * x, as: UInt32.self)
                                let out = pass.pixel(v, gain: pass.gain(x: x, y: y, width: width, height: height))
                                withUnsafeBytes(of: out.littleEndian) { expected.append(contentsOf: $0) }
                            }
                        }
                        let worst = zip(expected, float.visibleBytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        #expect(worst <= 1, "\(text) \(format) \(width)x\(height): the reference differs from the float path by \(worst)")
                        for path in SIMDPath.available {
                            let out = try Grey.run(text, frame, fixedPoint: true, on: path)
                            #expect(
                                out.canariesIntact && out.visibleBytes == expected, "\(path) \(text) \(format) \(color) \(width)x\(height)")
                        }
                    }
                }
            }
        }

        /// Mirrored into another frame, each row comes out reversed, on every path (tails too).
        @Test func mirroredToneRowsAreReversed() throws {
            let frame = TestFrame(.bgrx, 77, 3)
            frame.fillPattern(seed: 11)
            for path in SIMDPath.available {
                let kernel = try #require(
                    RGBFixedKernel(try Grey.program("sepia | vignette", frame.color), format: .bgrx, kernels: KernelSet(path: path)))
                kernel.prepare(width: 77, height: 3)
                let straight = frame.copy(), mirrored = frame.copy()
                kernel.run(source: frame.frame.planes[0], destination: straight.frame.planes[0], width: 77, height: 3, rows: 0..<3)
                kernel.run(
                    source: frame.frame.planes[0], destination: mirrored.frame.planes[0], width: 77, height: 3, rows: 0..<3, mirrored: true)
                for y in 0..<3 {
                    for x in 0..<77 {
                        #expect(
                            mirrored.rgb(x, y) == straight.rgb(76 - x, y) && mirrored.alpha(x, y) == straight.alpha(76 - x, y), "\(path)")
                    }
                }
                #expect(straight.difference(from: frame) != nil && mirrored.canariesIntact)
            }
        }

        /// In place and mirrored through whole chains (row bands on two threads) as copying, on every path.
        @Test func toneChainsInPlaceAndMirroredMatchCopying() throws {
            let frame = TestFrame(.rgba, 320, 240)
            frame.fillPattern(seed: 4)
            for text in ["sepia | vignette", "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette | mirror | invert"] {
                for path in SIMDPath.available {
                    let compiled = try FilterChain(parsing: text).compile(threads: 2, kernels: KernelSet(path: path))
                    let inPlace = frame.copy(), copied = frame.copy()
                    try compiled.process(inPlace.frame)
                    try compiled.process(from: frame.frame, to: copied.frame)
                    #expect(inPlace.difference(from: copied) == nil && inPlace.difference(from: frame) != nil, "\(path) \(text)")
                }
            }
        }
    }
}
