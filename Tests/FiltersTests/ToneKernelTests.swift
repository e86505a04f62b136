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
            // Past the 16-bit range of the level times its gain plus the offset, or a Q14 gain of 2 or more (sepia's red
            // row sums to 1.35): the 3×3 core takes it.
            for text in ["sepia | colorcontrols contrast=4", "sepia | exposure ev=1", "sepia | exposure ev=2"] {
                #expect(try Self.tone(text, .rgba) == nil, "\(text)")
                let kernel = try #require(RGBFixedKernel(try Grey.program(text, .bt709Full), format: .rgba))
                #expect(!kernel.usesTonePass, "\(text)")
            }
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
                        try Grey.expectEveryPathWrites(text, frame) { v, x, y in
                            pass.pixel(v, gain: pass.gain(x: x, y: y, width: width, height: height))
                        }
                    }
                }
            }
        }
    }
}
