/// Photographic negative: `out = 1 − in` on each of R, G, B (alpha kept).
public struct Invert: DeclaredFilter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name and summary.
    public static let declaration = FilterDeclaration<Invert>(
        name: "invert", summary: "negative: every colour component becomes 1 − value", defaults: Invert())
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.affine { _ in .scale(-1, offset: 1) }) }
}
