/// Mirrors left and right, like a front camera's preview.
public struct Mirror: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "mirror", summary: "swap left and right")
    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init() }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.mirror) }
}
