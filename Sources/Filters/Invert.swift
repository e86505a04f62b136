/// Photographic negative: `out = 1 − in` on each of R, G, B (alpha kept).
public struct Invert: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    public static let info = FilterInfo(name: "invert", summary: "negative: every colour component becomes 1 − value")
    public init(arguments: FilterArguments) { self.init() }
    public var values: [ParameterValue] { [] }
    public var kernel: FilterKernel { FilterKernel(.affine { _ in .scale(-1, offset: 1) }) }
}
