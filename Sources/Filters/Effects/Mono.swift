/// Replaces every pixel by its luma: `R = G = B = Kr·R + Kg·G + Kb·B` (BT.601: 0.299, 0.587, 0.114).
///
/// The coefficients are those of the frame's colour matrix, so an RGB frame tagged BT.709 uses
/// 0.2126, 0.7152, 0.0722. On Y'CbCr the Y plane is untouched and chroma becomes neutral.
public struct Mono: DeclaredFilter, Equatable {
    /// Creates the filter.
    public init() {}
    /// The filter's name and summary.
    public static let declaration = FilterDeclaration<Mono>(
        name: "mono", summary: "greyscale from the luma of the frame's colour matrix", defaults: Mono())
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.affine { Affine3.luma($0) }) }
}
