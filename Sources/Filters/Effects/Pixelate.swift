/// Mosaic: each `size`×`size` block (from the top-left corner) becomes its average colour.
///
/// Chroma planes of subsampled formats use blocks of `size` luma pixels, rounded up.
public struct Pixelate: Filter, Equatable {
    /// Block edge in pixels, 1...256 (1 = off).
    public var size: Int

    /// Creates the filter; `size` clamps to 1...256.
    public init(size: Int = Pixelate.size.defaultValue) {
        self.size = Self.size.clamp(size)
    }

    /// The `size` key: its default, range and meaning.
    public static let size = IntegerParameter("size", default: 8, in: 1...256, unit: "px", "block edge in pixels (1 = off)")
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "pixelate", summary: "mosaic of block averages", parameters: [size])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(size: arguments[Self.size]) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [Self.size.value(size)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.pixelate(size: size)) }
}
