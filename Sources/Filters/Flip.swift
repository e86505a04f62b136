/// Turns the image upside down (top row becomes bottom row).
public struct Flip: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    public static let info = FilterInfo(name: "flip", summary: "swap top and bottom")
    public init(arguments: FilterArguments) { self.init() }
    public var values: [ParameterValue] { [] }
    public var kernel: FilterKernel { FilterKernel(.flip) }
}
