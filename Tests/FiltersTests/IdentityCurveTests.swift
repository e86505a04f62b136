import Testing

@testable import Filters

extension SIMDPathTests {
    /// Curves that map every byte code to itself (gamma 1, posterize 256) leave the compiled chain: they cost
    /// nothing and change no byte.
    @Suite struct IdentityCurveTests {
        static func program(_ text: String) throws -> PointProgram {
            let ops = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
            return PointProgram(ops, color: .bt709Full)
        }

        @Test func identityCurvesLeaveTheProgram() throws {
            for text in ["gamma value=1", "posterize levels=256", "gamma value=2 | gamma value=0.5", "gamma value=1 | posterize levels=256"]
            {
                #expect(try Self.program(text).isIdentity, "\(text)")
            }
            #expect(try Self.program("sepia | gamma value=1 | vignette").steps.count == Self.program("sepia | vignette").steps.count)
            for text in ["gamma value=1.01", "posterize levels=255", "threshold level=0", "gamma value=1 | invert"] {
                #expect(try !Self.program(text).isIdentity, "\(text)")
            }
            // The chain itself keeps the filter (it prints and parses back the same); only the compiled program drops it.
            let chain = try FilterChain(parsing: "gamma value=1 | sepia")
            let reparsed = try FilterChain(parsing: chain.description)
            #expect(chain.filters.count == 2 && reparsed.description == chain.description)
        }

        /// With an identity curve anywhere in it, a chain writes exactly the bytes of the chain without it, on every path.
        @Test(arguments: [PixelFormat.rgba, .argb, .nv12, .i420, .yuy2])
        func chainsWithIdentityCurvesGiveTheBytesOfChainsWithout(format: PixelFormat) throws {
            let pairs = [
                ("gamma value=1", ""), ("posterize levels=256", ""), ("sepia | gamma value=1 | vignette", "sepia | vignette"),
                ("gamma value=1 | mirror | posterize levels=256 | invert", "mirror | invert"),
                (
                    "colorcontrols contrast=1.5 | gamma value=1 | colorcontrols contrast=0.8",
                    "colorcontrols contrast=1.5 | colorcontrols contrast=0.8"
                )
            ]
            for (width, height) in [(1, 1), (37, 11), (320, 240)] {
                let frame = TestFrame(format, width, height)
                frame.fillPattern(seed: UInt64(width * 5 + height))
                for (with, without) in pairs {
                    for path in SIMDPath.available {
                        let a = frame.copy(), b = frame.copy()
                        let kernels = KernelSet(path: path)
                        try FilterChain(parsing: with).compile(threads: 2, kernels: kernels).process(a.frame)
                        try (without.isEmpty ? FilterChain([]) : FilterChain(parsing: without)).compile(threads: 2, kernels: kernels)
                            .process(b.frame)
                        #expect(a.canariesIntact && a.difference(from: b) == nil, "\(path) \(with) \(format) \(width)x\(height)")
                    }
                }
            }
        }
    }
}
