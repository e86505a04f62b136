import Testing

@testable import Filters

/// The bytes every filter gives, as one 64-bit FNV-1a digest per chain and format, written down on x86-64 (where every
/// SIMD path agrees: ``SIMDPathTests``) and checked on every kernel set of the machine that runs the suite: on aarch64
/// (`make test-arm64`) this is what proves the portable kernels give x86's bytes, not only bytes that agree with
/// themselves. A chain missing from ``expected`` fails with the line to add; a digest that differs names the path.
struct ArchitectureDigestTests {
    /// One chain per built-in filter at its defaults and at values that take the other branches, then the fused
    /// chains the SIMD paths treat specially.
    static let chains = [
        "sepia", "sepia intensity=0.4", "vignette", "vignette intensity=1.5 radius=0.7", "mono", "invert",
        "colorcontrols contrast=1.3 saturation=0.6 brightness=0.1", "exposure ev=0.7", "exposure ev=-1.2",
        "temperature kelvin=3000 tint=20", "temperature kelvin=9000", "gamma value=0.6", "gamma value=1.8",
        "posterize levels=5", "threshold level=0.4", "blur radius=1.5", "blur radius=6", "blur radius=25",
        "sharpen amount=1.5 radius=2", "edges", "pixelate size=7", "zoom factor=1.7 x=0.3 y=0.6", "mirror", "flip",
        "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert",
        "temperature kelvin=4000 | gamma value=1.2 | mirror | vignette | gamma value=0.8"
    ]
    static let formats: [PixelFormat] = [.rgba, .bgrx, .argb, .i420, .nv12, .yuy2]

    /// The chain's output on a 211×157 frame of seeded noise (odd sizes: every tail and odd chroma edge is in it).
    static func digest(_ chain: String, _ format: PixelFormat, _ kernels: KernelSet) throws -> UInt64 {
        let frame = TestFrame(format, 211, 157)
        frame.fillPattern(seed: 43)
        try FilterChain(parsing: chain).compile(kernels: kernels).process(frame.frame)
        return frame.visibleBytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    static var cases: [(String, PixelFormat)] { chains.flatMap { chain in formats.map { (chain, $0) } } }

    @Test(arguments: cases)
    func everyPathGivesTheDigestWrittenOnX86(chain: String, format: PixelFormat) throws {
        let key = "\(format) \(chain)"
        for kernels in KernelSet.available {
            let got = try Self.digest(chain, format, kernels)
            guard let want = Self.expected[key] else {
                Issue.record("no digest written for \(key): add  \"\(key)\": 0x\(String(got, radix: 16)),")
                return
            }
            #expect(got == want, "\(key) on \(kernels): 0x\(String(got, radix: 16)), x86 gives 0x\(String(want, radix: 16))")
        }
    }
}
