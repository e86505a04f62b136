#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Multiplies every component by 2^ev, on the encoded (gamma) values.
public struct Exposure: DeclaredFilter, Equatable {
    /// The `ev` key: its default, range and meaning.
    public static let ev = NumberParameter("ev", default: 0, in: -10...10, unit: "EV", "stops; +1 doubles, −1 halves")
    /// Exposure change in stops, −10...10 (0 = unchanged).
    public var ev: Double

    /// Creates the filter; `ev` clamps to −10...10.
    public init(ev: Double = Exposure.ev.defaultValue) { self.ev = Self.ev.clamp(ev) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.affine { [gain = exp2(ev)] _ in .scale(gain) }) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Exposure>(
        name: "exposure", summary: "multiply by 2^ev", defaults: Exposure(), parameters: [.bind(ev, to: \.ev)])
}
