/// Gaussian blur, separable (one horizontal and one vertical pass), edges extended.
public struct Blur: Filter, Equatable {
    /// Standard deviation in pixels of the luma plane, 0...50 (0 = off).
    public var radius: Double

    /// Creates the filter; `radius` clamps to 0...50.
    public init(radius: Double = Blur.radius.defaultValue) {
        self.radius = Self.radius.clamp(radius)
    }

    /// The `radius` key: its default, range and meaning.
    public static let radius = NumberParameter("radius", default: 2, in: 0...50, unit: "px", "standard deviation in pixels (0 = off)")
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "blur", summary: "Gaussian blur", parameters: [radius])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(radius: arguments[Self.radius]) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [Self.radius.value(radius)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.blur(sigma: radius)) }
}
