/// Black and white: white where the luma is at least `level`, black elsewhere.
public struct Threshold: DeclaredFilter, Equatable {
    /// The `level` key: its default, range and meaning.
    public static let level = NumberParameter("level", default: 0.5, in: 0...1, "luma cut")
    /// The luma cut, 0...1.
    public var level: Double

    /// Creates the filter; `level` clamps to 0...1.
    public init(level: Double = Threshold.level.defaultValue) { self.level = Self.level.clamp(level) }

    /// The pixel operations this filter lowers to: the luma computed exactly (the matrix), then stepped, so 8-bit luma at
    /// or above level·255 is white.
    public var kernel: FilterKernel {
        FilterKernel([.point(.affine { Affine3.luma($0) }), .point(.curve { [level] in $0 >= level ? 1 : 0 })])
    }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Threshold>(
        name: "threshold", summary: "white where luma ≥ level, black elsewhere", defaults: Threshold(),
        parameters: [.bind(level, to: \.level)])
}
