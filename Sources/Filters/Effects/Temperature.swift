#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// White balance: re-renders the image as if lit by a `kelvin` light instead of 6500 K daylight.
///
/// Per-component gains `white(kelvin) / white(6500)` (black-body white points), tint scales green
/// (positive = magenta, negative = green); the gains are normalized so luma is unchanged.
/// Below 6500 K the image turns warmer (orange), above it cooler (blue).
public struct Temperature: DeclaredFilter, Equatable {
    /// The `kelvin` key: its default, range and meaning.
    public static let kelvin = NumberParameter(
        "kelvin", default: 6500, in: 2000...12000, unit: "K", "light colour in kelvin; lower is warmer (6500 = unchanged)")
    /// Colour temperature of the light to simulate, 2000...12000 K (6500 = unchanged).
    public var kelvin: Double

    /// The `tint` key: its default, range and meaning.
    public static let tint = NumberParameter("tint", default: 0, in: -100...100, "positive towards magenta, negative towards green")
    /// Green–magenta shift, −100...100 (0 = unchanged).
    public var tint: Double

    /// Creates the filter; parameters clamp into their ranges.
    public init(kelvin: Double = Temperature.kelvin.defaultValue, tint: Double = Temperature.tint.defaultValue) {
        self.kelvin = Self.kelvin.clamp(kelvin)
        self.tint = Self.tint.clamp(tint)
    }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let target = Self.whitePoint(kelvin), daylight = Self.whitePoint(6500)
        let gains = (target.0 / daylight.0, target.1 / daylight.1 * (1 - tint / 250), target.2 / daylight.2)
        return FilterKernel(
            .affine { color in
                let k = color.lumaCoefficients
                let luma = k.r * gains.0 + k.g * gains.1 + k.b * gains.2
                return .diagonal(gains.0 / luma, gains.1 / luma, gains.2 / luma)
            })
    }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Temperature>(
        name: "temperature", summary: "white balance towards a colour temperature and tint", defaults: Temperature(),
        parameters: [.bind(kelvin, to: \.kelvin), .bind(tint, to: \.tint)])

    /// Approximate sRGB colour (0...1) of a black body at `kelvin` (Tanner Helland's fit).
    static func whitePoint(_ kelvin: Double) -> (Double, Double, Double) {
        let t = kelvin / 100
        let r = t <= 66 ? 255 : 329.698727446 * pow(t - 60, -0.1332047592)
        let g = t <= 66 ? 99.4708025861 * log(t) - 161.1195681661 : 288.1221695283 * pow(t - 60, -0.0755148492)
        let b = t >= 66 ? 255 : (t <= 19 ? 0 : 138.5177312231 * log(t - 10) - 305.0447927307)
        func unit(_ v: Double) -> Double { min(max(v / 255, 0.01), 1) }
        return (unit(r), unit(g), unit(b))
    }
}
