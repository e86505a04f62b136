/// A run of consecutive point operations, resolved for one colour description and fused.
///
/// Fusion rules: consecutive matrices multiply into one; consecutive curves compose into one
/// function (tabulated once per format); identity matrices and curves vanish (gamma 1, posterize 256:
/// a curve that maps every byte code to itself, so it costs nothing). What remains alternates
/// between at most a few table lookups and matrices per pixel, however long the chain.
struct PointProgram {
    enum Step {
        case affine(Affine3)
        case curve(@Sendable (Double) -> Double)
        case vignette(VignetteShape)
        case lut3D(Cube3D)
    }

    var steps: [Step]

    init(_ operations: [PointOperation], color: ColorDescription) {
        var steps: [Step] = []
        for operation in operations {
            switch operation {
            case let .affine(make):
                let matrix = make(color)
                if case let .affine(previous)? = steps.last {
                    steps[steps.count - 1] = .affine(previous.then(matrix))
                } else {
                    steps.append(.affine(matrix))
                }
            case let .curve(f):
                if case let .curve(previous)? = steps.last {
                    steps[steps.count - 1] = .curve { f(clampUnit(previous(clampUnit($0)))) }
                } else {
                    steps.append(.curve(f))
                }
            case let .vignette(shape):
                if shape.intensity != 0 { steps.append(.vignette(shape)) }
            case let .lut3D(cube):
                steps.append(.lut3D(cube))
            }
            if case let .affine(matrix)? = steps.last, matrix.isNearly(.identity, tolerance: 1e-12) {
                steps.removeLast()
            }
            if case let .curve(f)? = steps.last, Self.isIdentity(f) {
                steps.removeLast()
            }
        }
        self.steps = steps
    }

    var isIdentity: Bool { steps.isEmpty }

    /// `steps` folded into one affine map `A·x + b`, at most one vignette gain, and the offsets `c` of an affine after
    /// the gain: `M·(g·(A·x + b)) + c = g·(M·A·x + M·b) + c`, so that affine changes the coefficients and the final
    /// per-component constant, not the work per sample. Each affine step is read through `space` (e.g. into Y'CbCr) and
    /// applied after `start`. nil when a step is a curve or a LUT, a second vignette, one that brightens (intensity
    /// below 0), or a second affine after the gain.
    static func foldAffine(
        _ steps: ArraySlice<Step>, after start: Affine3 = .identity, space: (Affine3) -> Affine3 = { $0 }
    ) -> (affine: Affine3, gain: VignetteShape?, offsetsAfterGain: [Double])? {
        var a = start
        var shape: VignetteShape?
        var after: [Double]?
        for step in steps {
            switch step {
            case let .affine(map):
                let m = space(map)
                if shape == nil {
                    a = a.then(m)
                } else {
                    // A second affine after the gain cannot come from a program (`init` merges neighbouring affines);
                    // a slice with one is refused rather than folded wrongly.
                    guard after == nil else { return nil }
                    a = a.then(Affine3(m: m.m))
                    after = m.o
                }
            case let .vignette(s):
                guard shape == nil, s.intensity >= 0 else { return nil }
                shape = s
            case .curve, .lut3D:
                return nil
            }
        }
        return (a, shape, after ?? [0, 0, 0])
    }

    /// True when `f` maps each of the 256 codes the curve tables sample (`i / 255`) to itself, within a
    /// millionth of a code. Such a curve only clamps and rounds between its neighbours, which filters that
    /// say "1 = unchanged" are not meant to do, so it is dropped rather than tabulated.
    static func isIdentity(_ f: (Double) -> Double) -> Bool {
        (0..<256).allSatisfy { i in
            let x = Double(i) / 255
            return abs(clampUnit(f(x)) - x) < 1e-9
        }
    }
}

/// Clamps to 0...1; NaN becomes 0.
@inline(__always)
func clampUnit(_ v: Double) -> Double {
    v > 0 ? (v < 1 ? v : 1) : 0
}

/// Rounds and clamps to a byte.
@inline(__always)
func clampByte(_ v: Double) -> UInt8 {
    let c = v > 0 ? (v < 255 ? v : 255) : 0
    return UInt8(truncatingIfNeeded: Int32(c + 0.5))
}
