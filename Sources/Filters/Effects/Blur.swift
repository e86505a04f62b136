/// Gaussian blur, separable (one horizontal and one vertical pass), edges extended.
public struct Blur: Filter, Equatable {
    /// Standard deviation in pixels of the luma plane, 0...50 (0 = off).
    public var radius: Double

    /// Creates the filter; `radius` clamps to 0...50.
    public init(radius: Double = 2) {
        self.radius = clampParameter(radius, Self.info.range("radius"), default: 2)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "blur", summary: "Gaussian blur", parameters: [
        .number("radius", 2, 0...50, "standard deviation in pixels (0 = off)"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(radius: arguments.number("radius")) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(radius)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.blur(sigma: radius)) }
}
