/// Sobel edge magnitude of the luma, `min(255, √(gx² + gy²))` in 8-bit units, as a grey image.
///
/// Edges are extended at the borders, so a constant frame gives 0 everywhere. Alpha is kept.
public struct Edges: DeclaredFilter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name and summary.
    public static let declaration = FilterDeclaration<Edges>(
        name: "edges", summary: "Sobel gradient magnitude of luma, as grey", defaults: Edges())
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.edges) }
}
