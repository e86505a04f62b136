/// Black and white: white where the luma is at least `level`, black elsewhere.
public struct Threshold: Filter, Equatable {
    /// The luma cut, 0...1.
    public var level: Double

    /// Creates the filter; `level` clamps to 0...1.
    public init(level: Double = Threshold.level.defaultValue) {
        self.level = Self.level.clamp(level)
    }

    /// The `level` key: its default, range and meaning.
    public static let level = NumberParameter("level", default: 0.5, in: 0...1, "luma cut")
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "threshold", summary: "white where luma ≥ level, black elsewhere", parameters: [level])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(level: arguments[Self.level]) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [Self.level.value(level)] }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let cut = level
        // The luma is computed exactly (the matrix), then stepped: 8-bit luma at or above cut·255 is white.
        return FilterKernel([.point(.affine { Affine3.luma($0) }), .point(.curve { $0 >= cut ? 1 : 0 })])
    }
}
