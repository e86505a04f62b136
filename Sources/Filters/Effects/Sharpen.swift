/// Unsharp mask: `out = in + amount·(in − gaussian(in, radius))`.
public struct Sharpen: DeclaredFilter, Equatable {
    /// The `amount` key: its default, range and meaning.
    public static let amount = NumberParameter("amount", default: 1, in: 0...10, "strength (0 = off)")
    /// Strength, 0...10 (0 = off).
    public var amount: Double

    /// The `radius` key: its default, range and meaning.
    public static let radius = NumberParameter(
        "radius", default: 1, in: 0.5...50, unit: "px", "standard deviation in pixels of the subtracted blur")
    /// Standard deviation in pixels of the blur that is subtracted, 0.5...50.
    public var radius: Double

    /// Creates the filter; parameters clamp into their ranges.
    public init(amount: Double = Sharpen.amount.defaultValue, radius: Double = Sharpen.radius.defaultValue) {
        self.amount = Self.amount.clamp(amount)
        self.radius = Self.radius.clamp(radius)
    }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.sharpen(amount: amount, sigma: radius)) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Sharpen>(
        name: "sharpen", summary: "unsharp mask", defaults: Sharpen(),
        parameters: [.bind(amount, to: \.amount), .bind(radius, to: \.radius)])
}
