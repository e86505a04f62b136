import Testing

@testable import Filters

/// Exact values on small hand-computed frames, for every RGB layout and every YUV layout, on every kernel set this
/// machine runs (the portable one included): each chain is compiled for the set the case names, so the cases run in
/// parallel.
@Suite struct GoldenTests {
    static let rgbFormats: [PixelFormat] = [.rgba, .bgra, .rgbx, .bgrx, .argb, .xrgb]
    static let yuvFormats: [PixelFormat] = [.i420, .nv12, .yuy2]

    /// A 3×2 RGB frame of the given colours (row-major), processed in place by `chain` compiled for `kernels`.
    static func rgb(
        _ format: PixelFormat, _ kernels: KernelSet, _ chain: FilterChain, _ pixels: [(Int, Int, Int)],
        color: ColorDescription = .bt601Limited
    ) throws -> TestFrame {
        let frame = TestFrame(format, 3, 2, color: color)
        for (i, p) in pixels.enumerated() { frame.setRGB(i % 3, i / 3, p) }
        try chain.compile(kernels: kernels).process(frame.frame)
        #expect(frame.canariesIntact)
        return frame
    }

    // MARK: RGB family

    @Test(arguments: rgbFormats, KernelSet.available)
    func sepiaOfPureRed(format: PixelFormat, kernels: KernelSet) throws {
        // Y = 0.299; Δ = (1.402·0.05, −0.344136·(−0.08) − 0.714136·0.05, 1.772·(−0.08)) = (0.0701, −0.008176, −0.14176);
        // the tint scales with luma: Y·(1 + 2Δ)·255 = (86.93, 75.00, 54.63).
        let frame = try Self.rgb(format, kernels, FilterChain { Sepia() }, Array(repeating: (255, 0, 0), count: 6))
        #expect(frame.rgb(0, 0) == (87, 75, 55))
        #expect(frame.alpha(2, 1) == 200)
        // Half intensity: (255 + 86.93)/2, (0 + 75.00)/2 = 37.4991, (0 + 54.63)/2.
        let half = try Self.rgb(format, kernels, FilterChain { Sepia(intensity: 0.5) }, [(255, 0, 0)])
        #expect(half.rgb(0, 0) == (171, 37, 27))
    }

    /// A sepia of black is black (the tone once was a constant, which lifted black to (18, 0, 0)); white turns cream.
    @Test(arguments: rgbFormats, KernelSet.available)
    func sepiaOfBlackIsBlack(format: PixelFormat, kernels: KernelSet) throws {
        let frame = try Self.rgb(format, kernels, FilterChain { Sepia() }, [(0, 0, 0), (255, 255, 255)])
        #expect(frame.rgb(0, 0) == (0, 0, 0))
        // White: (1 + 2Δ)·255 = (290.75 → 255, 250.83, 182.70).
        #expect(frame.rgb(1, 0) == (255, 251, 183))
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func monoOfRedIsTheLumaCoefficient(format: PixelFormat, kernels: KernelSet) throws {
        let bt601 = try Self.rgb(format, kernels, FilterChain { Mono() }, [(255, 0, 0), (0, 255, 0), (0, 0, 255)])
        #expect(bt601.rgb(0, 0) == (76, 76, 76))  // 0.299 · 255 = 76.245
        #expect(bt601.rgb(1, 0) == (150, 150, 150))  // 0.587 · 255 = 149.685
        #expect(bt601.rgb(2, 0) == (29, 29, 29))  // 0.114 · 255 = 29.07
        let bt709 = try Self.rgb(format, kernels, FilterChain { Mono() }, [(255, 0, 0)], color: .bt709Full)
        #expect(bt709.rgb(0, 0) == (54, 54, 54))  // 0.2126 · 255 = 54.213
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func invertTwiceIsIdentity(format: PixelFormat, kernels: KernelSet) throws {
        let pixels = [(0, 0, 0), (255, 255, 255), (10, 200, 37), (1, 2, 3), (128, 127, 129), (254, 0, 99)]
        let once = try Self.rgb(format, kernels, FilterChain { Invert() }, pixels)
        #expect(once.rgb(2, 0) == (245, 55, 218))
        let twice = try Self.rgb(
            format, kernels,
            FilterChain {
                Invert(); Invert()
            }, pixels)
        for (i, p) in pixels.enumerated() { #expect(twice.rgb(i % 3, i / 3) == p) }
        #expect(twice.alpha(0, 0) == 200)
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func identitiesWithinOneLSB(format: PixelFormat, kernels: KernelSet) throws {
        let pixels = [(0, 0, 0), (255, 255, 255), (10, 200, 37), (1, 2, 3), (128, 127, 129), (254, 0, 99)]
        let cube = temporaryFile("golden-identity-\(format).cube", identityCubeText(size: 17))
        let chains = [
            FilterChain { Exposure(ev: 0) }, FilterChain { Zoom(factor: 1) }, FilterChain { Gamma(value: 1) },
            FilterChain([try Lut(file: cube)]), FilterChain { Pixelate(size: 1) }, FilterChain { Temperature() },
            FilterChain { ColorControls() }, FilterChain { Vignette(intensity: 0) }, FilterChain { Blur(radius: 0) }
        ]
        for chain in chains {
            let frame = try Self.rgb(format, kernels, chain, pixels)
            for (i, p) in pixels.enumerated() {
                let out = frame.rgb(i % 3, i / 3)
                #expect(abs(out.0 - p.0) <= 1 && abs(out.1 - p.1) <= 1 && abs(out.2 - p.2) <= 1, "\(chain): \(p) → \(out)")
            }
        }
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func pointFilterValues(format: PixelFormat, kernels: KernelSet) throws {
        #expect(try Self.rgb(format, kernels, FilterChain { Exposure(ev: 1) }, [(10, 100, 200)]).rgb(0, 0) == (20, 200, 255))
        // ties round to even
        #expect(try Self.rgb(format, kernels, FilterChain { Exposure(ev: -1) }, [(10, 100, 203)]).rgb(0, 0) == (5, 50, 102))
        #expect(try Self.rgb(format, kernels, FilterChain { Posterize(levels: 2) }, [(100, 128, 200)]).rgb(0, 0) == (0, 255, 255))
        // (128/255)²·255 = 64.25
        #expect(try Self.rgb(format, kernels, FilterChain { Gamma(value: 2) }, [(255, 0, 128)]).rgb(0, 0) == (255, 0, 64))
        // Threshold on luma: 0.299·200 + 0.587·100 + 0.114·0 = 118.5 < 127.5 → black; (200,200,200) → white.
        let threshold = try Self.rgb(format, kernels, FilterChain { Threshold(level: 0.5) }, [(200, 100, 0), (200, 200, 200)])
        #expect(threshold.rgb(0, 0) == (0, 0, 0) && threshold.rgb(1, 0) == (255, 255, 255))
        #expect(try Self.rgb(format, kernels, FilterChain { ColorControls(brightness: 0.2) }, [(100, 0, 250)]).rgb(0, 0) == (151, 51, 255))
        // 1.5·v − 63.75
        #expect(try Self.rgb(format, kernels, FilterChain { ColorControls(contrast: 1.5) }, [(100, 130, 200)]).rgb(0, 0) == (86, 131, 236))
        #expect(try Self.rgb(format, kernels, FilterChain { ColorControls(saturation: 0) }, [(255, 0, 0)]).rgb(0, 0) == (76, 76, 76))
        let warm = try Self.rgb(format, kernels, FilterChain { Temperature(kelvin: 3000) }, [(128, 128, 128)]).rgb(0, 0)
        #expect(warm.0 > 128 && warm.2 < 128)
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func fusedMatricesEqualStepByStep(format: PixelFormat, kernels: KernelSet) throws {
        // Unclamped between matrices: exposure +1 then −1 restores values above 127.
        #expect(
            try Self.rgb(
                format, kernels,
                FilterChain {
                    Exposure(ev: 1); Exposure(ev: -1)
                }, [(200, 10, 255)]
            ).rgb(0, 0) == (200, 10, 255))
        // A curve clamps its input, so gamma between the exposures clips.
        #expect(
            try Self.rgb(
                format, kernels,
                FilterChain {
                    Exposure(ev: 1); Gamma(value: 1.0001); Exposure(ev: -1)
                }, [(200, 10, 255)]
            ).rgb(0, 0) == (128, 10, 128))
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func vignetteGainMatchesTheFormula(format: PixelFormat, kernels: KernelSet) throws {
        let frame = TestFrame(format, 5, 3)
        frame.paint { _, _ in (200, 100, 50) }
        try FilterChain { Vignette(intensity: 1.5, radius: 2) }.compile(kernels: kernels).process(frame.frame)
        let shape = VignetteShape(intensity: 1.5, radius: 2)
        for (x, y) in [(0, 0), (2, 1), (4, 2)] {
            let g = shape.gain(x: Double(x) + 0.5, y: Double(y) + 0.5, width: 5, height: 3)
            let expected = (Int((200 * g).rounded()), Int((100 * g).rounded()), Int((50 * g).rounded()))
            let out = frame.rgb(x, y)
            #expect(abs(out.0 - expected.0) <= 1 && abs(out.1 - expected.1) <= 1 && abs(out.2 - expected.2) <= 1)
        }
        #expect(frame.rgb(2, 1) == (200, 100, 50))  // the centre pixel has gain 1
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func spatialFiltersOnAConstantFrame(format: PixelFormat, kernels: KernelSet) throws {
        let chains: [(FilterChain, (Int, Int, Int))] = [
            (FilterChain { Blur(radius: 3) }, (90, 160, 33)), (FilterChain { Sharpen(amount: 3, radius: 2) }, (90, 160, 33)),
            (FilterChain { Edges() }, (0, 0, 0)), (FilterChain { Pixelate(size: 4) }, (90, 160, 33)),
            (FilterChain { Zoom(factor: 3, x: 0.2, y: 0.9) }, (90, 160, 33)),
            (
                FilterChain {
                    Mirror(); Flip()
                }, (90, 160, 33)
            )
        ]
        for (chain, expected) in chains {
            let frame = TestFrame(format, 13, 7)
            frame.paint { _, _ in (90, 160, 33) }
            try chain.compile(kernels: kernels).process(frame.frame)
            #expect(frame.canariesIntact)
            for y in 0..<7 { for x in 0..<13 { #expect(frame.rgb(x, y) == expected, "\(chain) at \(x),\(y)") } }
            #expect(frame.alpha(6, 3) == 200)
        }
    }

    @Test(arguments: rgbFormats, KernelSet.available)
    func geometry(format: PixelFormat, kernels: KernelSet) throws {
        let frame = TestFrame(format, 3, 2)
        frame.paint { x, y in (x * 10 + y, 0, 0) }
        let copy = frame.copy()
        try FilterChain { Mirror() }.compile(kernels: kernels).process(frame.frame)
        #expect((0..<3).map { frame.rgb($0, 1).0 } == [21, 11, 1])
        try FilterChain { Flip() }.compile(kernels: kernels).process(copy.frame)
        #expect((0..<3).map { copy.rgb($0, 0).0 } == [1, 11, 21])
        // Pixelate 2 on 3×2: blocks {x 0–1} and {x 2}; (0+10+1+11)/4 = 5.5 → 6, (20+21)/2 = 20.5 → 21.
        let mosaic = TestFrame(format, 3, 2)
        mosaic.paint { x, y in (x * 10 + y, 0, 0) }
        try FilterChain { Pixelate(size: 2) }.compile(kernels: kernels).process(mosaic.frame)
        #expect((0..<3).map { mosaic.rgb($0, 0).0 } == [6, 6, 21])
        // Zoom 2 about the centre of a 4-wide ramp: the window is x 1...3, output centres map to indices 0.75, 1.25, 1.75, 2.25.
        let zoom = TestFrame(format, 4, 1)
        zoom.paint { x, _ in (x * 40, 0, 0) }
        try FilterChain { Zoom(factor: 2) }.compile(kernels: kernels).process(zoom.frame)
        #expect((0..<4).map { zoom.rgb($0, 0).0 } == [30, 50, 70, 90])
    }

    @Test(arguments: KernelSet.available)
    func edgesOfAStepAreTheSobelMagnitude(kernels: KernelSet) throws {
        let frame = TestFrame(.rgba, 4, 3)
        frame.paint { x, _ in x < 2 ? (0, 0, 0) : (60, 60, 60) }
        try FilterChain { Edges() }.compile(kernels: kernels).process(frame.frame)
        // gx = (1 + 2 + 1)·60 = 240 at the columns beside the step, 0 elsewhere.
        #expect((0..<4).map { frame.rgb($0, 1).0 } == [0, 240, 240, 0])
    }

    // MARK: YUV family

    static func yuvConstant(_ format: PixelFormat, _ color: ColorDescription, y: Int, u: Int, v: Int) -> TestFrame {
        let frame = TestFrame(format, 5, 3, color: color)
        for row in 0..<3 { for x in 0..<5 { frame.setY(x, row, y) } }
        for row in 0..<frame.chromaHeight { for x in 0..<frame.chromaWidth { frame.setU(x, row, u); frame.setV(x, row, v) } }
        return frame
    }

    static func expectConstant(_ frame: TestFrame, y: Int, u: Int, v: Int, _ label: String) {
        #expect(frame.canariesIntact, "\(label)")
        for row in 0..<frame.height { for x in 0..<frame.width { #expect(frame.y(x, row) == y, "\(label) Y(\(x),\(row))") } }
        for row in 0..<frame.chromaHeight {
            for x in 0..<frame.chromaWidth {
                #expect(frame.u(x, row) == u && frame.v(x, row) == v, "\(label) UV(\(x),\(row)) = \(frame.u(x, row)),\(frame.v(x, row))")
            }
        }
    }

    @Test(arguments: yuvFormats, [ColorDescription.bt601Limited, .bt709Full])
    func sepiaKeepsLumaAndSetsTheToneChroma(format: PixelFormat, color: ColorDescription) throws {
        for kernels in KernelSet.available {
            let frame = Self.yuvConstant(format, color, y: 100, u: 90, v: 180)
            try FilterChain { Sepia() }.compile(kernels: kernels).process(frame.frame)
            // The tone scales with luma (2Y' at Y' = 0.5 is the old constant): 128 + scale·2Y'·(−0.08) and 128 + scale·2Y'·0.05;
            // limited (224, Y' = 84/219) → 114.25, 136.59; full (255, Y' = 100/255) → 112, 138.
            let expected = color.range == .limited ? (114, 137) : (112, 138)
            Self.expectConstant(frame, y: 100, u: expected.0, v: expected.1, "sepia \(format) \(kernels)")
        }
    }

    /// Black (and any grey's luma-free chroma at Y' = 0) stays black: no tone at zero luma, on every YUV layout.
    @Test(arguments: yuvFormats, [ColorDescription.bt601Limited, .bt709Full])
    func sepiaOfBlackIsBlackInYUV(format: PixelFormat, color: ColorDescription) throws {
        let black = color.range == .limited ? 16 : 0
        for kernels in KernelSet.available {
            let frame = Self.yuvConstant(format, color, y: black, u: 128, v: 128)
            try FilterChain { Sepia() }.compile(kernels: kernels).process(frame.frame)
            Self.expectConstant(frame, y: black, u: 128, v: 128, "sepia of black \(format) \(kernels)")
        }
    }

    @Test(arguments: yuvFormats, KernelSet.available)
    func monoInvertAndIdentities(format: PixelFormat, kernels: KernelSet) throws {
        let cube = temporaryFile("golden-yuv-\(format).cube", identityCubeText(size: 9))
        let cases: [(FilterChain, (Int, Int, Int), Int)] = [
            (FilterChain { Mono() }, (100, 128, 128), 0),
            (FilterChain { Invert() }, (251 - 100, 256 - 90, 256 - 180), 0),  // limited: Y → 16 + 235 − Y, C → 256 − C
            (
                FilterChain {
                    Invert(); Invert()
                }, (100, 90, 180), 0
            ),
            (FilterChain { Exposure(ev: 0) }, (100, 90, 180), 0),
            (FilterChain { Gamma(value: 1) }, (100, 90, 180), 1),
            (FilterChain([try Lut(file: cube)]), (100, 90, 180), 1),
            (FilterChain { Zoom(factor: 1) }, (100, 90, 180), 0),
            (FilterChain { Pixelate(size: 1) }, (100, 90, 180), 0),
            (FilterChain { Blur(radius: 2.5) }, (100, 90, 180), 0),
            (FilterChain { Sharpen(amount: 2) }, (100, 90, 180), 0),
            (FilterChain { Edges() }, (16, 128, 128), 0),
            (
                FilterChain {
                    Zoom(factor: 4, x: 0, y: 1); Mirror(); Flip(); Pixelate(size: 3)
                }, (100, 90, 180), 0
            )
        ]
        for (chain, expected, tolerance) in cases {
            let frame = Self.yuvConstant(format, .bt601Limited, y: 100, u: 90, v: 180)
            try chain.compile(kernels: kernels).process(frame.frame)
            #expect(frame.canariesIntact)
            for row in 0..<3 { for x in 0..<5 { #expect(abs(frame.y(x, row) - expected.0) <= tolerance, "\(chain) Y") } }
            for row in 0..<frame.chromaHeight {
                for x in 0..<frame.chromaWidth {
                    #expect(
                        abs(frame.u(x, row) - expected.1) <= tolerance && abs(frame.v(x, row) - expected.2) <= tolerance,
                        "\(chain) \(format) UV = \(frame.u(x, row)),\(frame.v(x, row))")
                }
            }
        }
    }

    @Test(arguments: yuvFormats, KernelSet.available)
    func lumaOnlyWorkLeavesChromaAlone(format: PixelFormat, kernels: KernelSet) throws {
        let frame = Self.yuvConstant(format, .bt601Full, y: 64, u: 90, v: 180)
        try FilterChain { Gamma(value: 0.5) }.compile(kernels: kernels).process(frame.frame)
        Self.expectConstant(frame, y: 128, u: 90, v: 180, "gamma")  // √(64/255)·255 = 127.75
    }
}
