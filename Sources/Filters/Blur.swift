/// Gaussian blur, separable (one horizontal and one vertical pass), edges extended.
public struct Blur: Filter, Equatable {
    /// Standard deviation in pixels of the luma plane, 0...50 (0 = off).
    public var radius: Double

    /// Creates the filter; `radius` clamps to 0...50.
    public init(radius: Double = 2) {
        self.radius = clampParameter(radius, Self.info.range("radius"), default: 2)
    }

    public static let info = FilterInfo(name: "blur", summary: "Gaussian blur", parameters: [
        .number("radius", 2, 0...50, "standard deviation in pixels (0 = off)"),
    ])

    public init(arguments: FilterArguments) { self.init(radius: arguments.number("radius")) }
    public var values: [ParameterValue] { [.number(radius)] }
    public var kernel: FilterKernel { FilterKernel(.blur(sigma: radius)) }
}
