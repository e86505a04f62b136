/// An affine colour map `out = m·in + o` on three components, in normalized units (0...1).
struct Affine3: Sendable, Equatable {
    /// Row-major 3×3 matrix.
    var m: [Double]
    /// Offset added after the matrix.
    var o: [Double]

    init(m: [Double], o: [Double] = [0, 0, 0]) {
        self.m = m
        self.o = o
    }

    static let identity = Affine3(m: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// `s·I`, plus `offset` on every component.
    static func scale(_ s: Double, offset: Double = 0) -> Affine3 {
        Affine3(m: [s, 0, 0, 0, s, 0, 0, 0, s], o: [offset, offset, offset])
    }

    /// Per-component gains.
    static func diagonal(_ r: Double, _ g: Double, _ b: Double) -> Affine3 {
        Affine3(m: [r, 0, 0, 0, g, 0, 0, 0, b])
    }

    /// Every component replaced by the luma `Kr·R + Kg·G + Kb·B`.
    static func luma(_ color: ColorDescription) -> Affine3 {
        let k = color.lumaCoefficients
        return Affine3(m: [k.r, k.g, k.b, k.r, k.g, k.b, k.r, k.g, k.b])
    }

    /// `(1 − t)·self + t·other`, component-wise on matrix and offset.
    func mixed(with other: Affine3, _ t: Double) -> Affine3 {
        Affine3(m: zip(m, other.m).map { $0 * (1 - t) + $1 * t }, o: zip(o, other.o).map { $0 * (1 - t) + $1 * t })
    }

    /// The map that applies `self` first, then `next`.
    func then(_ next: Affine3) -> Affine3 {
        var r = [Double](repeating: 0, count: 9)
        var off = [Double](repeating: 0, count: 3)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = next.m[i * 3] * m[j] + next.m[i * 3 + 1] * m[3 + j] + next.m[i * 3 + 2] * m[6 + j]
            }
            off[i] = next.m[i * 3] * o[0] + next.m[i * 3 + 1] * o[1] + next.m[i * 3 + 2] * o[2] + next.o[i]
        }
        return Affine3(m: r, o: off)
    }

    func apply(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        (
            m[0] * v.0 + m[1] * v.1 + m[2] * v.2 + o[0],
            m[3] * v.0 + m[4] * v.1 + m[5] * v.2 + o[1],
            m[6] * v.0 + m[7] * v.1 + m[8] * v.2 + o[2]
        )
    }

    func isNearly(_ other: Affine3, tolerance: Double = 1e-9) -> Bool {
        zip(m, other.m).allSatisfy { abs($0 - $1) <= tolerance } && zip(o, other.o).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// R'G'B' → Y'CbCr with Y in 0...1 and Cb, Cr in -0.5...0.5 (no quantization offsets).
    static func rgbToYCbCr(_ color: ColorDescription) -> Affine3 {
        let k = color.lumaCoefficients
        let cb = 2 * (1 - k.b), cr = 2 * (1 - k.r)
        return Affine3(m: [
            k.r, k.g, k.b,
            -k.r / cb, -k.g / cb, (1 - k.b) / cb,
            (1 - k.r) / cr, -k.g / cr, -k.b / cr
        ])
    }

    /// Y'CbCr → R'G'B', the inverse of `rgbToYCbCr`.
    static func yCbCrToRGB(_ color: ColorDescription) -> Affine3 {
        let k = color.lumaCoefficients
        let cb = 2 * (1 - k.b), cr = 2 * (1 - k.r)
        return Affine3(m: [
            1, 0, cr,
            1, -k.b * cb / k.g, -k.r * cr / k.g,
            1, cb, 0
        ])
    }

    /// The same map expressed on normalized Y'CbCr: `T·self·T⁻¹`.
    func inYCbCr(_ color: ColorDescription) -> Affine3 {
        Affine3.yCbCrToRGB(color).then(self).then(Affine3.rgbToYCbCr(color))
    }
}

/// `v` as a Q15 fraction (·2¹⁵, rounded), clamped to 0...32767.
func q15(_ v: Double) -> Int16 { Int16(min(max((v * 32768).rounded(), 0), 32767)) }

/// The vignette's gain: `max(0, 1 − intensity·d²/radius²)`, d = distance from the centre over the half-diagonal.
struct VignetteShape: Sendable, Equatable {
    var intensity: Double
    var radius: Double

    /// Coefficient k of `gain = 1 − k·(dx² + dy²)` with dx, dy in pixels of a `width`×`height` frame.
    func coefficient(width: Int, height: Int) -> Double {
        let cx = Double(width) / 2, cy = Double(height) / 2
        return intensity / (radius * radius) / max(cx * cx + cy * cy, 1e-9)
    }

    /// The fixed-point kernels' Q15 column terms `k·dx²` (their gain is `max(0, row term − column term)`), in a new buffer
    /// of `count`: entry i is the term of the column `dx(i)` pixels from the frame's centre, k the ``coefficient(width:height:)``.
    static func columnTerms(_ count: Int, k: Double, dx: (Int) -> Double) -> UnsafeMutablePointer<Int16> {
        let table = UnsafeMutablePointer<Int16>.allocate(capacity: count)
        for i in 0..<count {
            let d = dx(i)
            table[i] = q15(k * d * d)
        }
        return table
    }

    /// The gain at continuous position (x, y), pixel centres at +0.5.
    func gain(x: Double, y: Double, width: Int, height: Int) -> Double {
        let dx = x - Double(width) / 2, dy = y - Double(height) / 2
        return max(0, 1 - coefficient(width: width, height: height) * (dx * dx + dy * dy))
    }
}
