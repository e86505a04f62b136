import Filters

/// Two colours mapped by luma: black becomes the dark colour, white the light one, and every grey in between a mix.
///
/// The colours are given by hue: the dark one fully saturated at 35 % value, the light one half saturated at full
/// value. It is a colour matrix, so it fuses into one pass with the built-in point filters around it.
public struct Duotone: PointFilter, DeclaredFilter, Equatable {
    /// The `dark` key: the hue of the shadows.
    public static let dark = NumberParameter("dark", default: 240, in: 0...360, unit: "°", "hue of the colour black becomes")
    /// The `light` key: the hue of the highlights.
    public static let light = NumberParameter("light", default: 60, in: 0...360, unit: "°", "hue of the colour white becomes")
    /// The `intensity` key: how far towards the two colours.
    public static let intensity = NumberParameter("intensity", default: 1, in: 0...1, "blend towards the duotone (0 = off)")
    /// The filter's name, summary and keys, each bound to the property that holds it.
    public static let declaration = FilterDeclaration<Duotone>(
        name: "duotone", summary: "two colours mapped by luma", defaults: Duotone(),
        parameters: [.bind(dark, to: \.dark), .bind(light, to: \.light), .bind(intensity, to: \.intensity)])

    /// Hue of the shadows in degrees.
    public var dark: Double
    /// Hue of the highlights in degrees.
    public var light: Double
    /// 0 = unchanged, 1 = full duotone.
    public var intensity: Double

    /// Creates the filter; values clamp into their ranges.
    public init(
        dark: Double = Duotone.dark.defaultValue, light: Double = Duotone.light.defaultValue,
        intensity: Double = Duotone.intensity.defaultValue
    ) {
        self.dark = Self.dark.clamp(dark)
        self.light = Self.light.clamp(light)
        self.intensity = Self.intensity.clamp(intensity)
    }

    /// The shadow colour (R, G, B in 0...1).
    public var darkColor: SIMD3<Double> { Self.color(hue: dark, saturation: 1, value: 0.35) }
    /// The highlight colour (R, G, B in 0...1).
    public var lightColor: SIMD3<Double> { Self.color(hue: light, saturation: 0.5, value: 1) }

    /// `out = dark + Y·(light − dark)`, Y from the frame's luma weights, blended with the input by `intensity`.
    public var pointMap: PointMap {
        let (low, high, t) = (darkColor, lightColor, intensity)
        return .matrix { color in
            let k = color.lumaCoefficients
            let weights = SIMD3(k.r, k.g, k.b)
            let span = high - low
            let identity = ColorMatrix.identity
            return ColorMatrix(
                red: identity.red * (1 - t) + weights * span.x * t,
                green: identity.green * (1 - t) + weights * span.y * t,
                blue: identity.blue * (1 - t) + weights * span.z * t,
                offset: low * t)
        }
    }

    /// HSV to RGB, hue in degrees.
    static func color(hue: Double, saturation: Double, value: Double) -> SIMD3<Double> {
        let h = (hue.truncatingRemainder(dividingBy: 360)) / 60
        let c = value * saturation
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let rgb: SIMD3<Double>
        switch h {
        case ..<1: rgb = [c, x, 0]
        case ..<2: rgb = [x, c, 0]
        case ..<3: rgb = [0, c, x]
        case ..<4: rgb = [0, x, c]
        case ..<5: rgb = [x, 0, c]
        default: rgb = [c, 0, x]
        }
        return rgb + SIMD3(repeating: value - c)
    }
}
