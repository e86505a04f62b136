import Testing

@testable import Filters

/// The same filter on RGBA and on NV12 (and I420, YUY2) agrees after conversion back to RGB.
///
/// Method: filter the RGBA frame, convert its result to the YUV format with the tests' own
/// textbook converter, and compare with the YUV frame filtered natively, sample by sample.
/// Tolerance: 2 codes on Y and on Cb/Cr (measured: ≤ 2 on Y for the 3-filter chain, ≤ 1 elsewhere).
/// The residue is 8-bit rounding: RGBA rounds R, G, B after the filter and the converter rounds
/// again, while the native path rounds each plane once. The scene is smooth and mid-toned, so no
/// R'G'B' channel clips (clipping happens per channel in RGB but not in Y'CbCr). Gamma and
/// posterize are per-channel curves in RGB but luma curves in YUV (documented), so they are not
/// compared here; they agree on greys (GoldenTests).
@Suite struct FormatAgreementTests {
    static let lumaTolerance = 2
    static let chromaTolerance = 2

    static let chains = [
        "", "sepia", "sepia intensity=0.6", "mono", "invert", "colorcontrols brightness=0.05 contrast=1.2 saturation=0.8",
        "exposure ev=0.3", "temperature kelvin=4500 tint=10", "vignette intensity=1.5 radius=2", "threshold level=0.5",
        "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette", "lut file=\(Self.warmCube)",
        "mirror", "flip", "zoom factor=1.5 x=0.4 y=0.6", "blur radius=2", "pixelate size=4", "sharpen amount=0.5 radius=2", "edges"
    ]

    /// A 5³ cube that warms and lifts shadows: smooth, so trilinear in RGB and in Y'CbCr agree.
    static let warmCube: String = {
        var lines = ["LUT_3D_SIZE 5"]
        for b in 0..<5 {
            for g in 0..<5 {
                for r in 0..<5 {
                    let (rr, gg, bb) = (Double(r) / 4, Double(g) / 4, Double(b) / 4)
                    lines.append("\(0.05 + 0.9 * rr) \(0.03 + 0.92 * gg) \(0.9 * bb)")
                }
            }
        }
        return temporaryFile("warm.cube", lines.joined(separator: "\n"))
    }()

    static func scene(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        // Gentle gradients in 60...170 so no channel clips and chroma varies slowly.
        (60 + 2 * x, 70 + 3 * y, 150 - x - y)
    }

    @Test(arguments: [PixelFormat.nv12, .i420, .yuy2], [ColorDescription.bt601Limited, .bt709Full])
    func rgbaAndYUVAgree(format: PixelFormat, color: ColorDescription) throws {
        let (w, h) = (48, 32)
        for text in Self.chains {
            let chain = try FilterChain(parsing: text)
            let rgba = TestFrame(.rgba, w, h, color: color)
            rgba.paint(Self.scene)
            let yuv = TestFrame(format, w, h, color: color)
            yuv.paint(Self.scene)
            try chain.compile().process(rgba.frame)
            try chain.compile().process(yuv.frame)
            // The RGBA result, converted to the YUV format by the tests' own converter.
            let expected = TestFrame(format, w, h, color: color)
            expected.paint { x, y in rgba.rgb(x, y) }
            var lumaError = 0, chromaError = 0
            for y in 0..<h { for x in 0..<w { lumaError = max(lumaError, abs(yuv.y(x, y) - expected.y(x, y))) } }
            for y in 0..<yuv.chromaHeight {
                for x in 0..<yuv.chromaWidth {
                    chromaError = max(chromaError, abs(yuv.u(x, y) - expected.u(x, y)), abs(yuv.v(x, y) - expected.v(x, y)))
                }
            }
            // Sobel sums eight input samples with weights ±1, ±2: the inputs' own rounding (≤ 0.5 each,
            // on a 219-code scale in limited range) can add up to 4 codes.
            let lumaTolerance = text == "edges" ? 4 : Self.lumaTolerance
            #expect(lumaError <= lumaTolerance, "\(text) on \(format) \(color): luma differs by \(lumaError)")
            #expect(chromaError <= Self.chromaTolerance, "\(text) on \(format) \(color): chroma differs by \(chromaError)")
        }
    }
}
