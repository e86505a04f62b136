/// Darkens towards the corners: gain `max(0, 1 − intensity·d²/radius²)`, d = distance from the centre over the half-diagonal.
///
/// With the defaults the corners go black; `intensity=1.5 radius=2` keeps 62.5 % in the corners.
/// Negative intensity brightens the edges instead.
public struct Vignette: DeclaredFilter, Equatable {
    /// The `intensity` key: its default, range and meaning.
    public static let intensity = NumberParameter("intensity", default: 1, in: -1...4, "strength (0 = off, negative brightens)")
    /// Strength, −1...4 (0 = off).
    public var intensity: Double

    /// The `radius` key: its default, range and meaning.
    public static let radius = NumberParameter("radius", default: 1, in: 0.1...10, "falloff radius in half-diagonals; larger is gentler")
    /// Falloff radius in half-diagonals, 0.1...10; larger is gentler.
    public var radius: Double

    /// Creates the filter; parameters clamp into their ranges.
    public init(intensity: Double = Vignette.intensity.defaultValue, radius: Double = Vignette.radius.defaultValue) {
        self.intensity = Self.intensity.clamp(intensity)
        self.radius = Self.radius.clamp(radius)
    }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.vignette(VignetteShape(intensity: intensity, radius: radius))) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Vignette>(
        name: "vignette", summary: "darken towards the corners", defaults: Vignette(),
        parameters: [.bind(intensity, to: \.intensity), .bind(radius, to: \.radius)])
}
