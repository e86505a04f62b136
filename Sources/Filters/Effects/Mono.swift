/// Replaces every pixel by its luma: `R = G = B = Kr·R + Kg·G + Kb·B` (BT.601: 0.299, 0.587, 0.114).
///
/// The coefficients are those of the frame's colour matrix, so an RGB frame tagged BT.709 uses
/// 0.2126, 0.7152, 0.0722. On Y'CbCr the Y plane is untouched and chroma becomes neutral.
public struct Mono: Filter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "mono", summary: "greyscale from the luma of the frame's colour matrix")
    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init() }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.affine { Affine3.luma($0) }) }
}
