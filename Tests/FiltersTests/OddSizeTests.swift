import Glibc
import Testing

@testable import Filters

/// Odd sizes and padded strides: nothing outside the visible area is touched, in place or not.
@Suite struct OddSizeTests {
    static let sizes = [(1, 1), (2, 2), (3, 5), (33, 17)]

    static let chains: [String] = [
        "sepia", "vignette", "mono", "invert", "colorcontrols brightness=0.1 contrast=1.3 saturation=0.5",
        "exposure ev=0.5", "temperature kelvin=3500 tint=20", "gamma value=2.2", "posterize levels=4",
        "threshold level=0.4", "blur radius=1.5", "sharpen amount=2 radius=1", "edges", "pixelate size=3",
        "zoom factor=2.5 x=0.3 y=0.8", "mirror", "flip", "lut file=\(PropertyTests.lutPath)",
        "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette",
        "vignette | gamma value=0.8 | temperature kelvin=9000 | blur radius=1 | mirror",
        "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"
    ]

    static func pattern(_ plane: Int, _ offset: Int, _ row: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: (offset &* 37) &+ (row &* 11) &+ plane &* 71)
    }

    @Test(arguments: PixelFormat.allCases)
    func smallOddFramesKeepTheirCanaries(format: PixelFormat) throws {
        for (width, height) in Self.sizes {
            for text in Self.chains {
                let compiled = try FilterChain(parsing: text).compile(threads: 2)
                let inPlace = TestFrame(format, width, height)
                inPlace.fill(Self.pattern)
                try compiled.process(inPlace.frame)
                #expect(inPlace.canariesIntact, "\(text) in place \(format) \(width)x\(height)")

                let source = TestFrame(format, width, height, padding: 64)
                source.fill(Self.pattern)
                let destination = TestFrame(format, width, height, padding: 7)
                try compiled.process(from: source.frame, to: destination.frame)
                #expect(source.canariesIntact && destination.canariesIntact, "\(text) copy \(format) \(width)x\(height)")
                // The source is never written, and both paths give the same pixels.
                let pristine = TestFrame(format, width, height)
                pristine.fill(Self.pattern)
                #expect(source.difference(from: pristine) == nil, "\(text) wrote its source")
                #expect(destination.difference(from: inPlace) == nil, "\(text) in place ≠ copy \(format) \(width)x\(height)")
            }
        }
    }

    /// Flip alone at 1921×1081 on two bands, in place (rows swapped in pairs, the odd middle row kept) and into
    /// another frame: every visible byte of plane row r is the source's row (rows − 1 − r).
    @Test(arguments: PixelFormat.allCases)
    func flipMovesEveryRowToItsMirrorRow(format: PixelFormat) throws {
        let compiled = try FilterChain(parsing: "flip").compile(threads: 2)
        let source = TestFrame(format, 1921, 1081)
        source.fillPattern()
        let inPlace = source.copy(padding: 64), copied = TestFrame(format, 1921, 1081, padding: 7)
        try compiled.process(inPlace.frame)
        try compiled.process(from: source.frame, to: copied.frame)
        for result in [inPlace, copied] {
            #expect(result.canariesIntact, "\(format)")
            for plane in 0..<format.planeCount {
                let rows = format.rows(plane: plane, height: 1081), bytes = format.rowBytes(plane: plane, width: 1921)
                let (out, original) = (result.planes[plane], source.planes[plane])
                let mismatch = (0..<rows).first { row in
                    memcmp(out.base + row * out.stride, original.base + (rows - 1 - row) * original.stride, bytes) != 0
                }
                #expect(mismatch == nil, "\(format) plane \(plane): row \(mismatch ?? -1) is not its mirror row")
            }
        }
    }

    /// The empty chain copies in row bands (each band every plane's share): at 1921×1081 on two bands, between
    /// padded strides, every visible byte arrives and nothing beside the planes is written; in place it writes nothing.
    @Test(arguments: PixelFormat.allCases)
    func emptyChainCopiesEveryRowOnTwoBands(format: PixelFormat) throws {
        let compiled = FilterChain([]).compile(threads: 2)
        let source = TestFrame(format, 1921, 1081, padding: 64)
        source.fillPattern()
        let copied = TestFrame(format, 1921, 1081, padding: 7), packed = TestFrame(format, 1921, 1081)
        try compiled.process(from: source.frame, to: copied.frame)
        try compiled.process(from: source.frame, to: packed.frame)
        let inPlace = source.copy(padding: 64)
        try compiled.process(inPlace.frame)
        for (result, name) in [(copied, "padded"), (packed, "packed"), (inPlace, "in place")] {
            #expect(result.canariesIntact, "\(format) \(name)")
            #expect(result.difference(from: source) == nil, "\(format) \(name): \(result.difference(from: source) ?? "")")
        }
    }

    /// The large odd frame: 1921×1081, an odd 1080p. Under the sanitizers (`SWIFTCAM_SANITIZER=1`, scripts/test.sh)
    /// 721×401, which still crosses the threading threshold with odd rows and odd chroma: unoptimized code with
    /// ASan's checks took two minutes for the 1080p one, and the bands' edges, not the size, are what it checks there.
    static let large = getenv("SWIFTCAM_SANITIZER").map { String(cString: $0) } == "1" ? (721, 401) : (1921, 1081)

    /// A large odd frame crosses the threading threshold; bands on odd rows and chroma must still stay inside.
    @Test(arguments: PixelFormat.allCases)
    func largeOddFrameKeepsItsCanariesAndThreadsAgree(format: PixelFormat) throws {
        let texts = [
            "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette", "temperature kelvin=4000 | gamma value=1.2",
            "blur radius=1", "edges", "zoom factor=1.7 x=0.9", "pixelate size=5 | mirror | flip"
        ]
        let (width, height) = Self.large
        #expect(width * height >= 2 * RowParallel.threshold, "the frame is split between threads")
        for text in texts {
            let chain = try FilterChain(parsing: text)
            let threaded = TestFrame(format, width, height)
            threaded.fillPattern()
            let single = threaded.copy(padding: 64)
            try chain.compile(threads: 0).process(threaded.frame)
            try chain.compile(threads: 1).process(single.frame)
            #expect(threaded.canariesIntact && single.canariesIntact, "\(text) \(format)")
            #expect(threaded.difference(from: single) == nil, "\(text) \(format): threads changed the result")
        }
    }

    @Test func scratchIsAllocatedOnlyForTheFirstFrameOfASize() throws {
        let compiled = try FilterChain(parsing: "blur radius=2 | sharpen | zoom factor=2 | edges | vignette | pixelate size=4 | mirror")
            .compile(threads: 2)
        let frame = TestFrame(.nv12, 640, 480)
        frame.fillPattern()
        try compiled.process(frame.frame)
        let afterFirst = compiled.scratchAllocations
        for _ in 0..<3 { try compiled.process(frame.frame) }
        #expect(compiled.scratchAllocations == afterFirst)
    }
}
