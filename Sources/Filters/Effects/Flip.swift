/// Turns the image upside down (top row becomes bottom row).
public struct Flip: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "flip", summary: "swap top and bottom")
    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init() }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.flip) }
}
