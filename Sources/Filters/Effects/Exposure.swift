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
    public init(ev: Double = Exposure.ev.defaultValue) {
        self.ev = Self.ev.clamp(ev)
    }

    /// The `ev` key: its default, range and meaning.
    public static let ev = NumberParameter("ev", default: 0, in: -10...10, unit: "EV", "stops; +1 doubles, −1 halves")
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "exposure", summary: "multiply by 2^ev", parameters: [ev])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) { self.init(ev: arguments[Self.ev]) }
    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [Self.ev.value(ev)] }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel {
        let gain = exp2(ev)
        return FilterKernel(.affine { _ in .scale(gain) })
    }
}
