/// Saturation, then brightness, then contrast, as Core Image's `CIColorControls` orders them.
///
/// `s = Y + saturation·(in − Y)`, `b = s + brightness`, `out = (b − 0.5)·contrast + 0.5`.
public struct ColorControls: Filter, Equatable {
    /// Added to every component, −1...1 (0 = unchanged).
    public var brightness: Double
    /// Slope about mid-grey, 0...4 (1 = unchanged).
    public var contrast: Double
    /// Distance from grey, 0...4 (0 = greyscale, 1 = unchanged).
    public var saturation: Double

    /// Creates the filter; every parameter clamps into its range.
    public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1) {
        self.brightness = clampParameter(brightness, Self.info.range("brightness"), default: 0)
        self.contrast = clampParameter(contrast, Self.info.range("contrast"), default: 1)
        self.saturation = clampParameter(saturation, Self.info.range("saturation"), default: 1)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "colorcontrols", summary: "saturation, brightness and contrast", parameters: [
        .number("brightness", 0, -1...1, "added to every component (0 = unchanged)"),
        .number("contrast", 1, 0...4, "slope about mid-grey (1 = unchanged)"),
        .number("saturation", 1, 0...4, "distance from grey (0 = greyscale, 1 = unchanged)"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) {
        self.init(brightness: arguments.number("brightness"), contrast: arguments.number("contrast"),
                  saturation: arguments.number("saturation"))
    }

    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(brightness), .number(contrast), .number(saturation)] }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let (b, c, s) = (brightness, contrast, saturation)
        return FilterKernel(.affine { color in
            Affine3.luma(color).mixed(with: .identity, s)
                .then(.scale(1, offset: b))
                .then(.scale(c, offset: 0.5 - 0.5 * c))
        })
    }
}
