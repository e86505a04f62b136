/// Mosaic: each `size`×`size` block (from the top-left corner) becomes its average colour.
///
/// Chroma planes of subsampled formats use blocks of `size` luma pixels, rounded up.
public struct Pixelate: Filter, Equatable {
    /// Block edge in pixels, 1...256 (1 = off).
    public var size: Int

    /// Creates the filter; `size` clamps to 1...256.
    public init(size: Int = 8) {
        self.size = clampParameter(size, Self.info.integerRange("size"))
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "pixelate", summary: "mosaic of block averages", parameters: [
        .integer("size", 8, 1...256, "block edge in pixels (1 = off)"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(size: arguments.integer("size")) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.integer(size)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.pixelate(size: size)) }
}
