/// Tones the image brown: keeps each pixel's luma and blends its chroma towards a sepia hue whose strength
/// follows the luma, so black stays black and white turns cream.
///
/// In R'G'B': `out = (1 − i)·in + i·Y·(1 + 2Δ)`, where Y is the luma of the frame's matrix and Δ is
/// the R'G'B' of chroma (Cb, Cr) = (−0.08, +0.05) at zero luma: the tone is Δ at mid grey, none at black.
/// The map stays linear (no offset), so it fuses with the other point filters. On Y'CbCr this is exactly
/// "luma unchanged, chroma blended towards the tone scaled by luma", so YUV frames never change their Y plane.
public struct Sepia: DeclaredFilter, Equatable {
    /// The sepia chroma (Cb, Cr) in −0.5...0.5 units.
    public static let tone = (cb: -0.08, cr: 0.05)

    /// The `intensity` key: its default, range and meaning.
    public static let intensity = NumberParameter("intensity", default: 1, in: 0...1, "blend towards full sepia (0 = off)")
    /// How far to blend towards full sepia: 0 = unchanged, 1 = full sepia.
    public var intensity: Double

    /// Creates a sepia filter; `intensity` clamps to 0...1.
    public init(intensity: Double = Sepia.intensity.defaultValue) { self.intensity = Self.intensity.clamp(intensity) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let i = intensity
        return FilterKernel(
            .affine { color in
                let delta = Affine3.yCbCrToRGB(color).apply((0, Sepia.tone.cb, Sepia.tone.cr))
                // Row c is the luma weights times 1 + 2Δc: a tint proportional to Y (a constant one lifted black).
                let k = color.lumaCoefficients
                let gains = [1 + 2 * delta.0, 1 + 2 * delta.1, 1 + 2 * delta.2]
                let toned = Affine3(m: gains.flatMap { [k.r * $0, k.g * $0, k.b * $0] })
                return Affine3.identity.mixed(with: toned, i)
            })
    }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Sepia>(
        name: "sepia", summary: "brown-toned monochrome that keeps luma", defaults: Sepia(),
        parameters: [.bind(intensity, to: \.intensity)])
}
