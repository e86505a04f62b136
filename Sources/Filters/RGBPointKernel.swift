/// The fused point pass for the packed RGB family, eight pixels per step in SIMD registers.
///
/// Values stay in Float (0...255 scale) between steps, unclamped until the final store, so fused
/// matrices give the same result as applying them one by one. Alpha/padding bytes are copied through.
/// Checked with `swiftc -O -emit-assembly`: the affine block compiles to packed SSE
/// (cvtdq2ps/mulps/addps/minps, no calls) — `clamped(lowerBound:upperBound:)` and SIMD Float→Int
/// conversions did not, which is why `clampRound` is written as below.
final class RGBPointKernel {
    struct Stage {
        enum Kind { case affine, curve, vignette, lut3D }
        var kind: Kind
        /// Row-major 3×3 then offsets (0...255 scale) for `affine`; `k` in m.0 for `vignette`.
        var m: SIMD16<Float> = .zero
        /// 256 Float outputs for `curve`; the per-column gain terms for `vignette` (set per frame).
        var table: UnsafeMutablePointer<Float>?
        var cube: Cube3D?
    }

    private(set) var stages: [Stage]
    private let curveTables: UnsafeMutablePointer<Float>
    private var preparedSize = (0, 0)

    init(_ program: PointProgram) {
        let curveCount = program.steps.reduce(0) { count, step in
            if case .curve = step { return count + 1 }
            return count
        }
        curveTables = .allocate(capacity: max(1, curveCount) * 256)
        var stages: [Stage] = []
        var curveIndex = 0
        for step in program.steps {
            switch step {
            case let .affine(a):
                var m = SIMD16<Float>.zero
                for i in 0..<9 { m[i] = Float(a.m[i]) }
                for i in 0..<3 { m[9 + i] = Float(a.o[i] * 255) }
                stages.append(Stage(kind: .affine, m: m))
            case let .curve(f):
                let table = curveTables + curveIndex * 256
                for i in 0..<256 { table[i] = Float(255 * clampUnit(f(Double(i) / 255))) }
                curveIndex += 1
                stages.append(Stage(kind: .curve, table: table))
            case let .vignette(shape):
                var m = SIMD16<Float>.zero
                m[1] = Float(shape.intensity)
                m[2] = Float(shape.radius)
                stages.append(Stage(kind: .vignette, m: m))
            case let .lut3D(cube):
                stages.append(Stage(kind: .lut3D, cube: cube))
            }
        }
        self.stages = stages
    }

    deinit { curveTables.deallocate() }

    var isIdentity: Bool { stages.isEmpty }

    /// Fills the per-size vignette tables from scratch slots; allocation only when the width grows.
    func prepare(width: Int, height: Int, scratch: ScratchPool, slotBase: Int) {
        guard preparedSize != (width, height) else { return }
        preparedSize = (width, height)
        for index in stages.indices where stages[index].kind == .vignette {
            let shape = VignetteShape(intensity: Double(stages[index].m[1]), radius: Double(stages[index].m[2]))
            let k = shape.coefficient(width: width, height: height)
            let table = scratch.buffer(slotBase + index, bytes: (width + 8) * 4).bindMemory(to: Float.self, capacity: width + 8)
            for x in 0..<(width + 8) {
                let dx = Double(x) + 0.5 - Double(width) / 2
                table[x] = Float(k * dx * dx)
            }
            stages[index].m[0] = Float(k)
            stages[index].table = table
        }
    }

    /// Processes rows `rows` from `source` to `destination` (which may be the same memory).
    func run(source: Plane, destination: Plane, format: PixelFormat, width: Int, height: Int, rows: Range<Int>) {
        let offsets = format.rgbOffsets
        let shifts = SIMD3<UInt32>(UInt32(offsets.r * 8), UInt32(offsets.g * 8), UInt32(offsets.b * 8))
        let keep = UInt32(0xFF) << UInt32(offsets.a * 8)
        stages.withUnsafeBufferPointer { stages in
            for y in rows {
                let src = source.base + y * source.stride
                let dst = destination.base + y * destination.stride
                let rowFromCentre = Float(Double(y) + 0.5 - Double(height) / 2)
                var x = 0
                while x + 8 <= width {
                    let v = src.loadUnaligned(fromByteOffset: x * 4, as: SIMD8<UInt32>.self)
                    let out = Self.block(v, x: x, dy: rowFromCentre, shifts: shifts, keep: keep, stages: stages)
                    dst.storeBytes(of: out, toByteOffset: x * 4, as: SIMD8<UInt32>.self)
                    x += 8
                }
                if x < width {
                    // The tail goes through a local block so no byte past the row is read or written.
                    var tail = SIMD8<UInt32>.zero
                    let count = width - x
                    withUnsafeMutableBytes(of: &tail) { $0.baseAddress!.copyMemory(from: src + x * 4, byteCount: count * 4) }
                    let out = Self.block(tail, x: x, dy: rowFromCentre, shifts: shifts, keep: keep, stages: stages)
                    withUnsafeBytes(of: out) { (dst + x * 4).copyMemory(from: $0.baseAddress!, byteCount: count * 4) }
                }
            }
        }
    }

    @inline(__always)
    private static func block(_ v: SIMD8<UInt32>, x: Int, dy: Float, shifts: SIMD3<UInt32>, keep: UInt32,
                              stages: UnsafeBufferPointer<Stage>) -> SIMD8<UInt32> {
        let mask = SIMD8<UInt32>(repeating: 0xFF)
        var r = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: (v &>> shifts.x) & mask))
        var g = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: (v &>> shifts.y) & mask))
        var b = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: (v &>> shifts.z) & mask))
        for stage in stages {
            switch stage.kind {
            case .affine:
                let m = stage.m
                let r2 = r * m[0] + g * m[1] + b * m[2] + m[9]
                let g2 = r * m[3] + g * m[4] + b * m[5] + m[10]
                let b2 = r * m[6] + g * m[7] + b * m[8] + m[11]
                r = r2; g = g2; b = b2
            case .curve:
                guard let table = stage.table else { continue }
                let ri = clampRound(r), gi = clampRound(g), bi = clampRound(b)
                for lane in 0..<8 {
                    r[lane] = table[Int(ri[lane])]
                    g[lane] = table[Int(gi[lane])]
                    b[lane] = table[Int(bi[lane])]
                }
            case .vignette:
                guard let table = stage.table else { continue }
                let columns = UnsafeRawPointer(table + x).loadUnaligned(as: SIMD8<Float>.self)
                let gain = positivePart(SIMD8<Float>(repeating: 1 - stage.m[0] * dy * dy) - columns)
                r *= gain; g *= gain; b *= gain
            case .lut3D:
                guard let cube = stage.cube else { continue }
                for lane in 0..<8 {
                    let s = cube.sample(Double(r[lane]) / 255, Double(g[lane]) / 255, Double(b[lane]) / 255)
                    r[lane] = Float(s.0 * 255); g[lane] = Float(s.1 * 255); b[lane] = Float(s.2 * 255)
                }
            }
        }
        return (clampRound(r) &<< shifts.x) | (clampRound(g) &<< shifts.y) | (clampRound(b) &<< shifts.z) | (v & SIMD8(repeating: keep))
    }
}

/// Rounds to nearest and clamps to 0...255 (NaN → 0) without calls or branches.
///
/// `replace(with:where:)` lowers to cmpps/minps/andps, while `clamped(lowerBound:upperBound:)` calls
/// out; adding 1.5·2²³ leaves the rounded integer in the low mantissa bits.
@inline(__always)
func clampRound(_ x: SIMD8<Float>) -> SIMD8<UInt32> {
    var c = x
    c.replace(with: SIMD8<Float>(repeating: 0), where: .!(c .> 0))
    c.replace(with: SIMD8<Float>(repeating: 255), where: c .> 255)
    return unsafeBitCast(c + 12_582_912.0, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0xFF)
}

/// max(0, x) as a masked select, which stays in packed SSE.
@inline(__always)
func positivePart(_ x: SIMD8<Float>) -> SIMD8<Float> {
    var c = x
    c.replace(with: SIMD8<Float>(repeating: 0), where: .!(c .> 0))
    return c
}
