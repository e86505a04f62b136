import Testing

@testable import Filters

/// Mirror and flip fused into point passes as addressing give the bytes of running each filter alone.
@Suite struct FusionTests {
    /// The point filters of `text` as one chain, then each mirror and flip as a chain of its own.
    static func oneByOne(_ text: String, _ frame: TestFrame) throws -> TestFrame {
        let out = frame.copy()
        let filters = try FilterChain(parsing: text).filters
        let geometry = filters.filter { $0 is Mirror || $0 is Flip }
        let point = filters.filter { !($0 is Mirror || $0 is Flip) }
        if !point.isEmpty { try FilterChain(point).compile(threads: 1).process(out.frame) }
        for filter in geometry { try FilterChain([filter]).compile(threads: 1).process(out.frame) }
        return out
    }

    static let chains = [
        "mirror", "flip", "mirror | flip", "mirror | mirror", "sepia | mirror", "flip | sepia | mirror | invert",
        "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert",
        "mirror | vignette intensity=1.5 | flip", "posterize | flip",
        "exposure ev=0.3 | gamma value=0.8 | temperature kelvin=5000 | mirror | vignette | invert", "mirror | colorcontrols saturation=0.5",
        "posterize levels=3 | mirror", "temperature kelvin=5000 tint=10 | mirror | vignette", "vignette | mirror | gamma value=1.2",
        "gamma value=0.7 | mirror | sepia", "mirror | sepia | vignette | gamma value=0.8"
    ]

    @Test(arguments: [PixelFormat.rgba, .bgrx, .argb, .nv12, .i420, .yuy2])
    func fusedGeometryMatchesOneFilterAtATime(format: PixelFormat) throws {
        // Even sizes: the vignette is symmetric there, so it commutes with mirror and flip exactly.
        for (width, height) in [(38, 12), (64, 6), (2, 2), (130, 4)] {
            let frame = TestFrame(format, width, height)
            frame.fillPattern(seed: UInt64(width * 31 + height))
            for text in Self.chains {
                let expected = try Self.oneByOne(text, frame)
                for threads in [1, 2] {
                    let copied = frame.copy()
                    try FilterChain(parsing: text).compile(threads: threads).process(from: frame.frame, to: copied.frame)
                    #expect(copied.difference(from: expected) == nil, "\(text) \(format.gstName) \(width)x\(height) from/to")
                    let inPlace = frame.copy()
                    try FilterChain(parsing: text).compile(threads: threads).process(inPlace.frame)
                    #expect(inPlace.difference(from: expected) == nil, "\(text) \(format.gstName) \(width)x\(height) in place")
                    #expect(copied.canariesIntact && inPlace.canariesIntact)
                }
            }
        }
    }

    @Test func mirrorReversesPixelsOfEveryPlane() throws {
        let frame = TestFrame(.nv12, 35, 4)
        frame.fillPattern(seed: 3)
        let out = frame.copy()
        try FilterChain { Mirror() }.compile().process(out.frame)
        for row in 0..<4 { for x in 0..<35 { #expect(out.y(x, row) == frame.y(34 - x, row)) } }
        for row in 0..<2 { for x in 0..<18 { #expect(out.u(x, row) == frame.u(17 - x, row) && out.v(x, row) == frame.v(17 - x, row)) } }
    }
}
