/// Saturation, then brightness, then contrast, as Core Image's `CIColorControls` orders them.
///
/// `s = Y + saturation·(in − Y)`, `b = s + brightness`, `out = (b − 0.5)·contrast + 0.5`.
public struct ColorControls: DeclaredFilter, Equatable {
    /// The `brightness` key: its default, range and meaning.
    public static let brightness = NumberParameter("brightness", default: 0, in: -1...1, "added to every component (0 = unchanged)")
    /// Added to every component, −1...1 (0 = unchanged).
    public var brightness: Double

    /// The `contrast` key: its default, range and meaning.
    public static let contrast = NumberParameter("contrast", default: 1, in: 0...4, "slope about mid-grey (1 = unchanged)")
    /// Slope about mid-grey, 0...4 (1 = unchanged).
    public var contrast: Double

    /// The `saturation` key: its default, range and meaning.
    public static let saturation = NumberParameter("saturation", default: 1, in: 0...4, "distance from grey (0 = greyscale, 1 = unchanged)")
    /// Distance from grey, 0...4 (0 = greyscale, 1 = unchanged).
    public var saturation: Double

    /// Creates the filter; every parameter clamps into its range.
    public init(
        brightness: Double = ColorControls.brightness.defaultValue, contrast: Double = ColorControls.contrast.defaultValue,
        saturation: Double = ColorControls.saturation.defaultValue
    ) {
        self.brightness = Self.brightness.clamp(brightness)
        self.contrast = Self.contrast.clamp(contrast)
        self.saturation = Self.saturation.clamp(saturation)
    }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let (b, c, s) = (brightness, contrast, saturation)
        return FilterKernel(
            .affine { color in
                Affine3.luma(color).mixed(with: .identity, s)
                    .then(.scale(1, offset: b))
                    .then(.scale(c, offset: 0.5 - 0.5 * c))
            })
    }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<ColorControls>(
        name: "colorcontrols", summary: "saturation, brightness and contrast", defaults: ColorControls(),
        parameters: [.bind(brightness, to: \.brightness), .bind(contrast, to: \.contrast), .bind(saturation, to: \.saturation)])
}
