/// Mirrors left and right, like a front camera's preview.
public struct Mirror: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    public static let info = FilterInfo(name: "mirror", summary: "swap left and right")
    public init(arguments: FilterArguments) { self.init() }
    public var values: [ParameterValue] { [] }
    public var kernel: FilterKernel { FilterKernel(.mirror) }
}
