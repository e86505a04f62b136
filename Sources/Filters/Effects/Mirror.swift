/// Mirrors left and right, like a front camera's preview.
public struct Mirror: DeclaredFilter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name and summary.
    public static let declaration = FilterDeclaration<Mirror>(name: "mirror", summary: "swap left and right", defaults: Mirror())
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.mirror) }
}
