#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Multiplies every component by 2^ev, on the encoded (gamma) values.
public struct Exposure: Filter, Equatable {
    /// Exposure change in stops, −10...10 (0 = unchanged).
    public var ev: Double

    /// Creates the filter; `ev` clamps to −10...10.
    public init(ev: Double = 0) {
        self.ev = clampParameter(ev, Self.info.range("ev"), default: 0)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "exposure", summary: "multiply by 2^ev", parameters: [
        .number("ev", 0, -10...10, "stops; +1 doubles, −1 halves"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(ev: arguments.number("ev")) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(ev)] }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let gain = exp2(ev)
        return FilterKernel(.affine { _ in .scale(gain) })
    }
}
