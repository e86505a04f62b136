#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Power curve `out = in^value` on each of R, G, B, like Core Image's `CIGammaAdjust`.
///
/// Values above 1 darken mid-tones, below 1 lighten them. On Y'CbCr the curve maps luma and keeps chroma.
public struct Gamma: DeclaredFilter, Equatable {
    /// The `value` key: its default, range and meaning.
    public static let value = NumberParameter("value", default: 1, in: 0.1...10, "exponent; above 1 darkens mid-tones (1 = unchanged)")
    /// The exponent, 0.1...10 (1 = unchanged).
    public var value: Double

    /// Creates the filter; `value` clamps to 0.1...10.
    public init(value: Double = Gamma.value.defaultValue) { self.value = Self.value.clamp(value) }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.curve { [value] in pow($0, value) }) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Gamma>(
        name: "gamma", summary: "power curve out = in^value", defaults: Gamma(), parameters: [.bind(value, to: \.value)])
}
