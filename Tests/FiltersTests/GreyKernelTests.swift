import Testing

@testable import Filters

extension SIMDPathTests {
    /// The grey pass (a colour map with equal matrix rows: one weighted sum per pixel) and threshold's float
    /// luma before its table, on every SIMD path the machine has, against their references.
    @Suite struct GreyKernelTests {
        static func program(_ text: String, _ color: ColorDescription) throws -> PointProgram {
            let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
            return PointProgram(ops, color: color)
        }

        /// Runs `text` through RGBPointKernel (the 16-bit passes, or the float paths with `fixedPoint: false`) on a copy of `frame`.
        static func run(_ text: String, _ frame: TestFrame, fixedPoint: Bool, on path: SIMDPath = .sse2) throws -> TestFrame {
            let out = frame.copy(padding: 16)
            let kernel = RGBPointKernel(try program(text, frame.color), fixedPoint: fixedPoint, kernels: KernelSet(path: path))
            // The scratch holds the float path's vignette table: it lives until the run is done.
            let scratch = ScratchPool()
            kernel.prepare(format: frame.format, width: frame.width, height: frame.height, scratch: scratch, slotBase: 0)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: RGBPointKernel.bufferBytes(width: frame.width), alignment: 64)
            defer { buffer.deallocate() }
            withExtendedLifetime(scratch) {
                kernel.run(
                    source: frame.frame.planes[0], destination: out.frame.planes[0], format: frame.format,
                    width: frame.width, height: frame.height, rows: 0..<frame.height, buffer: buffer)
            }
            return out
        }

        /// Every path writes exactly `pixel` (of each source pixel, at its x and y) for `text` on `frame`, and that is within a
        /// code of the float path.
        static func expectEveryPathWrites(_ text: String, _ frame: TestFrame, _ pixel: (UInt32, Int, Int) -> UInt32) throws {
            let float = try run(text, frame, fixedPoint: false)
            var expected: [UInt8] = []
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let v = frame.planes[0].base.loadUnaligned(fromByteOffset: y * frame.planes[0].stride + 4 * x, as: UInt32.self)
                    withUnsafeBytes(of: pixel(v, x, y).littleEndian) { expected.append(contentsOf: $0) }
                }
            }
            let label = "\(text) \(frame.format) \(frame.color) \(frame.width)x\(frame.height)"
            let worst = zip(expected, float.visibleBytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(label): the reference differs from the float path by \(worst)")
            for path in SIMDPath.available {
                let out = try run(text, frame, fixedPoint: true, on: path)
                #expect(out.canariesIntact && out.visibleBytes == expected, "\(path) \(label)")
            }
        }

        static let sizes = [(1, 1), (7, 3), (37, 11), (211, 9), (320, 6)]
        static let greyChains = [
            "mono", "mono | exposure ev=0.4", "mono | colorcontrols brightness=-0.1 contrast=1.3",
            "colorcontrols saturation=0", "mono | invert"
        ]

        @Test func equalRowsTakeTheGreyPassAndNothingElseDoes() throws {
            func grey(_ text: String) throws -> RGBGreyPass? {
                guard case let .affine(a)? = try Self.program(text, .bt709Full).steps.first else { return nil }
                return RGBGreyPass(a, format: .rgba)
            }
            for text in Self.greyChains { #expect(try grey(text) != nil, "\(text)") }
            // Sepia's tint scales with luma (black stays black): its rows are proportional, not equal.
            for text in ["sepia", "sepia intensity=0.6", "colorcontrols saturation=0.5", "temperature kelvin=4000", "invert"] {
                #expect(try grey(text) == nil, "\(text)")
            }
            // Past the 16-bit range of the sum plus its offset: the 3×3 core takes it.
            #expect(try grey("mono | colorcontrols contrast=3") == nil)
        }

        /// Every path writes exactly `RGBGreyPass.pixel` of each source pixel (alpha kept), which is within a code of the float path.
        @Test(arguments: [PixelFormat.rgba, .bgrx, .argb, .xrgb])
        func greyPassMatchesItsScalarReferenceOnEveryPath(format: PixelFormat) throws {
            for color in [ColorDescription.bt601Limited, .bt709Full] {
                for (width, height) in Self.sizes {
                    let frame = TestFrame(format, width, height, color: color)
                    frame.fillPattern(seed: UInt64(width * 31 + height))
                    for text in Self.greyChains {
                        guard case let .affine(a)? = try Self.program(text, color).steps.first,
                            let pass = RGBGreyPass(a, format: format)
                        else {
                            Issue.record("\(text) takes no grey pass")
                            continue
                        }
                        try Self.expectEveryPathWrites(text, frame) { v, _, _ in pass.pixel(v) }
                    }
                }
            }
        }

        /// Asked for mirrored stores, each row comes out reversed: the grey pass reverses it after (RGBTableKernel no longer
        /// asks it), the tone pass stores it reversed (tails too), on every path.
        @Test func mirroredRowsAreReversed() throws {
            for (text, format, width) in [("mono", PixelFormat.rgba, 37), ("sepia | vignette", .bgrx, 77)] {
                let frame = TestFrame(format, width, 3)
                frame.fillPattern(seed: 9)
                for path in SIMDPath.available {
                    let kernel = try #require(
                        RGBFixedKernel(try Self.program(text, frame.color), format: format, kernels: KernelSet(path: path)))
                    #expect(kernel.storesMirrored == kernel.usesTonePass, "\(text)")
                    kernel.prepare(width: width, height: 3)
                    let straight = frame.copy(), mirrored = frame.copy()
                    kernel.run(source: frame.frame.planes[0], destination: straight.frame.planes[0], width: width, height: 3, rows: 0..<3)
                    kernel.run(
                        source: frame.frame.planes[0], destination: mirrored.frame.planes[0], width: width, height: 3, rows: 0..<3,
                        mirrored: true)
                    for y in 0..<3 {
                        for x in 0..<width {
                            let other = width - 1 - x
                            #expect(
                                mirrored.rgb(x, y) == straight.rgb(other, y) && mirrored.alpha(x, y) == straight.alpha(other, y),
                                "\(path) \(text)")
                        }
                    }
                    #expect(straight.difference(from: frame) != nil && mirrored.canariesIntact)
                }
            }
        }

        /// In place through the whole chain (row bands on two threads) as copying, on every path: the grey and tone passes,
        /// a vignette, mirror and invert after them.
        @Test func greyAndToneChainsInPlaceMatchCopying() throws {
            let frame = TestFrame(.rgba, 320, 240)
            frame.fillPattern(seed: 3)
            for text in [
                "mono", "sepia", "sepia | vignette", "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette | mirror | invert"
            ] {
                for path in SIMDPath.available {
                    let compiled = try FilterChain(parsing: text).compile(threads: 2, kernels: KernelSet(path: path))
                    let inPlace = frame.copy(), copied = frame.copy()
                    try compiled.process(inPlace.frame)
                    try compiled.process(from: frame.frame, to: copied.frame)
                    #expect(inPlace.difference(from: copied) == nil && inPlace.difference(from: frame) != nil, "\(path) \(text)")
                }
            }
        }

        /// A curve after equal rows (threshold, mono then posterize, with a table before) gives exactly the float path's bytes:
        /// the luma is the float pass's arithmetic, so a step puts every pixel on the same side.
        @Test(arguments: [PixelFormat.rgba, .bgrx, .argb])
        func curvesAfterGreyAreTheFloatPathsBytesOnEveryPath(format: PixelFormat) throws {
            for (width, height) in Self.sizes {
                let frame = TestFrame(format, width, height, color: .bt709Full)
                frame.fillPattern(seed: UInt64(width + 7 * height))
                // Every grey, so the luma lands on each code and on the cut.
                for x in 0..<min(width, 256) { frame.setRGB(x, 0, (x, x, x)) }
                // A table before the grey map rounds to bytes at the join, so its reference is the float path in those two parts.
                for (text, parts) in [
                    ("threshold", nil), ("threshold level=0.4", nil), ("mono | posterize levels=3", nil), ("sepia | threshold", nil),
                    ("gamma value=0.8 | threshold level=0.6", ["gamma value=0.8", "threshold level=0.6"])
                ] {
                    var float = frame
                    for part in parts ?? [text] { float = try Self.run(part, float, fixedPoint: false) }
                    for path in SIMDPath.available {
                        let out = try Self.run(text, frame, fixedPoint: true, on: path)
                        #expect(out.canariesIntact && out.difference(from: float) == nil, "\(path) \(text) \(format) \(width)x\(height)")
                    }
                }
            }
        }
    }
}
