// Filters: the pixel engine in pure Swift, no GStreamer. Frames and pixel formats, the Filter protocol
// and one file per filter, FilterChain with its result builder and text grammar, and the compiled
// chain: fused point passes, spatial kernels and the row-parallel split.

/// One step of a filter chain: a value type with parameters, a text form and a pixel kernel.
///
/// Conformers are structs whose initializers clamp every parameter into its documented range,
/// so any value built in Swift prints as text that parses back to an equal filter.
public protocol Filter: Sendable, CustomStringConvertible {
    /// Name, summary, keys, defaults and ranges: the one place a filter documents itself.
    static var info: FilterInfo { get }
    /// This filter's description; `Self.info` except for filters that are not types of their own (a plugin's).
    var filterInfo: FilterInfo { get }
    /// Creates the filter from text arguments the parser has already checked against `info`.
    init(arguments: FilterArguments) throws(FilterSpecError)
    /// The parameter values in the order of `info.parameters`.
    var values: [ParameterValue] { get }
    /// What the filter does to pixels, in the engine's internal form.
    var kernel: FilterKernel { get }
    /// True when `other` is the same filter with the same parameters (and, for a LUT, the same table).
    func isEqual(to other: any Filter) -> Bool
}

extension Filter {
    /// The canonical text, e.g. `sepia intensity=0.8`; parameters at their default are left out.
    public var description: String {
        let info = filterInfo
        var text = info.name
        for (parameter, value) in zip(info.parameters, values) where value != parameter.defaultValue {
            text += " \(parameter.key)=\(value.text)"
        }
        return text
    }

    /// True when `other` is the same filter with the same parameter values.
    public func isEqual(to other: any Filter) -> Bool {
        other.filterInfo.name == filterInfo.name && other.values == values
    }

    /// `Self.info`.
    public var filterInfo: FilterInfo { Self.info }
}

/// The pixel work a filter lowers to; opaque outside the engine.
public struct FilterKernel: Sendable {
    let operations: [FilterOperation]

    init(_ operations: [FilterOperation]) {
        self.operations = operations
    }

    init(_ operation: PointOperation) {
        self.operations = [.point(operation)]
    }

    init(_ operation: SpatialOperation) {
        self.operations = [.spatial(operation)]
    }
}

/// One internal operation: a per-pixel colour map or a spatial resampling.
enum FilterOperation: Sendable {
    case point(PointOperation)
    case spatial(SpatialOperation)
}

/// A per-pixel map on normalized R'G'B' (0...1); consecutive ones fuse into one pass.
enum PointOperation: Sendable {
    /// out = M·in + offset, unclamped until the end of the fused pass; the matrix may depend on the luma coefficients.
    case affine(@Sendable (ColorDescription) -> Affine3)
    /// The same curve on R, G and B; its input is clamped to 0...1. On YUV it maps luma and keeps chroma.
    case curve(@Sendable (Double) -> Double)
    /// Multiplies by a gain that falls off with the distance from the frame centre.
    case vignette(VignetteShape)
    /// A 3D lookup table with trilinear interpolation.
    case lut3D(Cube3D)
}

/// A resampling or neighbourhood operation.
enum SpatialOperation: Sendable, Equatable {
    /// A user's frame filter: the compiled chain hands it planes that never alias its output.
    case frame(FrameFilterBox)
    case blur(sigma: Double)
    case sharpen(amount: Double, sigma: Double)
    case edges
    case pixelate(size: Int)
    case zoom(factor: Double, x: Double, y: Double)
    case mirror
    case flip
}

/// A frame filter inside a spatial operation; equal when the filters are.
struct FrameFilterBox: Sendable, Equatable {
    let filter: any FrameFilter

    static func == (a: FrameFilterBox, b: FrameFilterBox) -> Bool { a.filter.isEqual(to: b.filter) }
}

extension SpatialOperation {
    /// True for `.mirror`; mirror and flip are addressing and fuse into point passes.
    var isMirror: Bool { self == .mirror }
}
