/// Turns the image upside down (top row becomes bottom row).
public struct Flip: DeclaredFilter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name and summary.
    public static let declaration = FilterDeclaration<Flip>(name: "flip", summary: "swap top and bottom", defaults: Flip())
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.flip) }
}
