/// Mosaic: each `size`×`size` block (from the top-left corner) becomes its average colour.
///
/// Chroma planes of subsampled formats use blocks of `size` luma pixels, rounded up.
public struct Pixelate: DeclaredFilter, Equatable {
    /// The `size` key: its default, range and meaning.
    public static let size = IntegerParameter("size", default: 8, in: 1...256, unit: "px", "block edge in pixels (1 = off)")
    /// Block edge in pixels, 1...256 (1 = off).
    public var size: Int

    /// Creates the filter; `size` clamps to 1...256.
    public init(size: Int = Pixelate.size.defaultValue) { self.size = Self.size.clamp(size) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.pixelate(size: size)) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Pixelate>(
        name: "pixelate", summary: "mosaic of block averages", defaults: Pixelate(), parameters: [.bind(size, to: \.size)])
}
