/// Photographic negative: `out = 1 − in` on each of R, G, B (alpha kept).
public struct Invert: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "invert", summary: "negative: every colour component becomes 1 − value")
    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init() }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.affine { _ in .scale(-1, offset: 1) }) }
}
