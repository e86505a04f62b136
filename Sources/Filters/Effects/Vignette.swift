/// Darkens towards the corners: gain `max(0, 1 − intensity·d²/radius²)`, d = distance from the centre over the half-diagonal.
///
/// With the defaults the corners go black; `intensity=1.5 radius=2` keeps 62.5 % in the corners.
/// Negative intensity brightens the edges instead.
public struct Vignette: Filter, Equatable {
    /// Strength, −1...4 (0 = off).
    public var intensity: Double
    /// Falloff radius in half-diagonals, 0.1...10; larger is gentler.
    public var radius: Double

    /// Creates the filter; parameters clamp into their ranges.
    public init(intensity: Double = 1, radius: Double = 1) {
        self.intensity = clampParameter(intensity, Self.info.range("intensity"), default: 1)
        self.radius = clampParameter(radius, Self.info.range("radius"), default: 1)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "vignette", summary: "darken towards the corners", parameters: [
        .number("intensity", 1, -1...4, "strength (0 = off, negative brightens)"),
        .number("radius", 1, 0.1...10, "falloff radius in half-diagonals; larger is gentler"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) {
        self.init(intensity: arguments.number("intensity"), radius: arguments.number("radius"))
    }

    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(intensity), .number(radius)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.vignette(VignetteShape(intensity: intensity, radius: radius))) }
}
