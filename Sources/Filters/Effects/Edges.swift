/// Sobel edge magnitude of the luma, `min(255, √(gx² + gy²))` in 8-bit units, as a grey image.
///
/// Edges are extended at the borders, so a constant frame gives 0 everywhere. Alpha is kept.
public struct Edges: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "edges", summary: "Sobel gradient magnitude of luma, as grey")
    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init() }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.edges) }
}
