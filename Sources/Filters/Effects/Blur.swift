/// Gaussian blur, separable (one horizontal and one vertical pass), edges extended.
public struct Blur: DeclaredFilter, Equatable {
    /// The `radius` key: its default, range and meaning.
    public static let radius = NumberParameter("radius", default: 2, in: 0...50, unit: "px", "standard deviation in pixels (0 = off)")
    /// Standard deviation in pixels of the luma plane, 0...50 (0 = off).
    public var radius: Double

    /// Creates the filter; `radius` clamps to 0...50.
    public init(radius: Double = Blur.radius.defaultValue) { self.radius = Self.radius.clamp(radius) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.blur(sigma: radius)) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Blur>(
        name: "blur", summary: "Gaussian blur", defaults: Blur(), parameters: [.bind(radius, to: \.radius)])
}
