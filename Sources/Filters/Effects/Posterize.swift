/// Rounds each of R, G, B to one of `levels` evenly spaced values from 0 to 1.
///
/// On Y'CbCr the levels apply to luma and chroma is kept.
public struct Posterize: DeclaredFilter, Equatable {
    /// The `levels` key: its default, range and meaning.
    public static let levels = IntegerParameter("levels", default: 6, in: 2...256, "output levels per component")
    /// Number of output levels per component, 2...256.
    public var levels: Int

    /// Creates the filter; `levels` clamps to 2...256.
    public init(levels: Int = Posterize.levels.defaultValue) { self.levels = Self.levels.clamp(levels) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.curve { [steps = Double(levels - 1)] in ($0 * steps).rounded() / steps }) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Posterize>(
        name: "posterize", summary: "quantize each component to a few levels", defaults: Posterize(),
        parameters: [.bind(levels, to: \.levels)])
}
