import Testing

@testable import Filters

/// A value the grammar accepts never traps a later step: every built-in filter with each number at the lowest, middle
/// and highest value its key allows, alone, after the filters that decide which kernel a chain takes (sepia, mono) and
/// before a vignette, runs on every SIMD path in an RGB and two YUV formats, and writes nothing outside the frame. (A
/// brighter map after sepia, `sepia | exposure ev=1`, once overflowed the tone pass's 16-bit gain: a trap on a camera's
/// streaming thread.)
@Suite struct EveryValueRunsTests {
    /// Lowest, middle and highest; none for a file.
    static func values(_ kind: ParameterKind) -> [ParameterValue] {
        switch kind {
        case let .number(range): [range.lowerBound, (range.lowerBound + range.upperBound) / 2, range.upperBound].map { .number($0) }
        case let .integer(range):
            [range.lowerBound, range.lowerBound + (range.upperBound - range.lowerBound) / 2, range.upperBound].map { .integer($0) }
        case .file: []
        }
    }

    static let chains: [String] = FilterRegistry.builtIn.all.flatMap { info in
        info.parameters.flatMap { parameter in
            values(parameter.kind).flatMap { value in
                let filter = "\(info.name) \(parameter.key)=\(value.text)"
                return [filter, "sepia | \(filter)", "mono | \(filter)", "\(filter) | vignette"]
            }
        }
    }

    @Test(arguments: [PixelFormat.rgba, .i420, .yuy2])
    func everyAcceptedValueRunsOnEveryPath(format: PixelFormat) throws {
        #expect(Self.chains.count > 200)
        for text in Self.chains {
            let chain = try FilterChain(parsing: text)
            for kernels in KernelSet.available {
                let frame = TestFrame(format, 37, 6)
                frame.fillPattern()
                try chain.compile(threads: 1, kernels: kernels).process(frame.frame)
                #expect(frame.canariesIntact, "\(text) on \(kernels) wrote outside a \(format) frame")
            }
        }
    }
}
