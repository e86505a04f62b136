/// Unsharp mask: `out = in + amount·(in − gaussian(in, radius))`.
public struct Sharpen: Filter, Equatable {
    /// Strength, 0...10 (0 = off).
    public var amount: Double
    /// Standard deviation in pixels of the blur that is subtracted, 0.5...50.
    public var radius: Double

    /// Creates the filter; parameters clamp into their ranges.
    public init(amount: Double = 1, radius: Double = 1) {
        self.amount = clampParameter(amount, Self.info.range("amount"), default: 1)
        self.radius = clampParameter(radius, Self.info.range("radius"), default: 1)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "sharpen", summary: "unsharp mask", parameters: [
        .number("amount", 1, 0...10, "strength (0 = off)"),
        .number("radius", 1, 0.5...50, "standard deviation in pixels of the subtracted blur"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) {
        self.init(amount: arguments.number("amount"), radius: arguments.number("radius"))
    }

    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(amount), .number(radius)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.sharpen(amount: amount, sigma: radius)) }
}
