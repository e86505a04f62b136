/// Rounds each of R, G, B to one of `levels` evenly spaced values from 0 to 1.
///
/// On Y'CbCr the levels apply to luma and chroma is kept.
public struct Posterize: Filter, Equatable {
    /// Number of output levels per component, 2...256.
    public var levels: Int

    /// Creates the filter; `levels` clamps to 2...256.
    public init(levels: Int = 6) {
        self.levels = clampParameter(levels, Self.info.integerRange("levels"))
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "posterize", summary: "quantize each component to a few levels", parameters: [
        .integer("levels", 6, 2...256, "output levels per component"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(levels: arguments.integer("levels")) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.integer(levels)] }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let steps = Double(levels - 1)
        return FilterKernel(.curve { ($0 * steps).rounded() / steps })
    }
}
