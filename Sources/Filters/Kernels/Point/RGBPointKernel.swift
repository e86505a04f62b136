/// The fused point pass for the packed RGB family, eight pixels per step in SIMD registers.
///
/// Values stay in Float (0...255 scale) between steps, unclamped until the final store, so fused
/// matrices give the same result as applying them one by one. Alpha/padding bytes are copied through.
/// Checked with `swiftc -O -emit-assembly`: the affine block compiles to packed SSE
/// (cvtdq2ps/mulps/addps/minps, no calls) — `clamped(lowerBound:upperBound:)` and SIMD Float→Int
/// conversions did not, which is why `clampRound` (FloatLanes.swift) is written as it is.
final class RGBPointKernel {
    /// One fused step. `m`: for `affine` the row-major 3×3 then offsets (0...255 scale); for `vignette` k, intensity,
    /// radius; for `lut3D` size − 1, then per-channel scale and offset from 0...255 input to grid units. `table`: for
    /// `curve` 256 outputs (0...255 scale); for `vignette` k·dx² per column (set per frame size); for `lut3D` the grid,
    /// RGB triples red-fastest, 0...255 scale.
    typealias Stage = PointStage

    private var stages: [Stage]
    private var tables: [UnsafeMutablePointer<Float>] = []
    private var preparedSize = (0, 0)
    private let program: PointProgram
    /// The 16-bit pass per layout, or nil where the program does not fit it (built in `prepare`).
    private var fixedKernels: [PixelFormat: RGBFixedKernel?] = [:]
    /// Byte tables (around a 16-bit core) where the 16-bit pass alone does not fit (built in `prepare`).
    private var tableKernels: [PixelFormat: RGBTableKernel?] = [:]
    /// The fixed-point tetrahedral cube where the program ends in one (built in `prepare`).
    private var lutKernel: RGBLutKernel??
    /// Use the 16-bit pass where it applies (the default, about twice as fast as the float paths: docs/benchmarks.md);
    /// `false` forces the float paths, which tests compare against.
    private let fixedPoint: Bool
    /// The SIMD path of the 16-bit and table passes it builds.
    private let kernels: KernelSet

    init(_ program: PointProgram, fixedPoint: Bool = true, kernels: KernelSet = .best) {
        self.program = program
        self.kernels = kernels
        self.fixedPoint = fixedPoint
        var stages: [Stage] = []
        for step in program.steps {
            switch step {
            case let .affine(a):
                var m = SIMD16<Float>.zero
                for i in 0..<9 { m[i] = Float(a.m[i]) }
                for i in 0..<3 { m[9 + i] = Float(a.o[i] * 255) }
                stages.append(Stage(kind: .affine, m: m))
            case let .curve(f):
                let table = UnsafeMutablePointer<Float>.allocate(capacity: 256)
                for i in 0..<256 { table[i] = Float(255 * clampUnit(f(Double(i) / 255))) }
                tables.append(table)
                stages.append(Stage(kind: .curve, table: table))
            case let .vignette(shape):
                var m = SIMD16<Float>.zero
                m[1] = Float(shape.intensity)
                m[2] = Float(shape.radius)
                stages.append(Stage(kind: .vignette, m: m))
            case let .lut3D(cube):
                let count = cube.table.count
                let table = UnsafeMutablePointer<Float>.allocate(capacity: count)
                for i in 0..<count { table[i] = cube.table[i] * 255 }
                tables.append(table)
                var m = SIMD16<Float>.zero
                let n = Double(cube.size - 1)
                m[0] = Float(n)
                let lo = [cube.domainMin.0, cube.domainMin.1, cube.domainMin.2]
                let hi = [cube.domainMax.0, cube.domainMax.1, cube.domainMax.2]
                for c in 0..<3 {
                    m[1 + c] = Float(n / (255 * (hi[c] - lo[c])))
                    m[4 + c] = Float(-lo[c] * n / (hi[c] - lo[c]))
                }
                stages.append(Stage(kind: .lut3D, m: m, table: table, size: cube.size))
            }
        }
        self.stages = stages
    }

    deinit { tables.forEach { $0.deallocate() } }

    var isIdentity: Bool { stages.isEmpty }

    /// Fills the per-size vignette tables from scratch slots; allocation only when the width grows.
    func prepare(format: PixelFormat, width: Int, height: Int, scratch: ScratchPool, slotBase: Int) {
        if fixedPoint, lutKernel == nil {
            lutKernel = .some(stages.withUnsafeBufferPointer { RGBLutKernel(program, stages: $0) })
        }
        if fixedPoint, fixedKernels[format] == nil {
            fixedKernels[format] = .some(RGBFixedKernel(program, format: format, kernels: kernels))
        }
        if case let fixed?? = fixedKernels[format] { fixed.prepare(width: width, height: height) }
        if fixedPoint, case .some(nil) = fixedKernels[format], tableKernels[format] == nil {
            tableKernels[format] = .some(RGBTableKernel(program, format: format, kernels: kernels))
        }
        if case let tables?? = tableKernels[format] {
            tables.prepare(format: format, width: width, height: height, scratch: scratch, slotBase: slotBase)
        }
        guard preparedSize != (width, height) else { return }
        preparedSize = (width, height)
        for index in stages.indices where stages[index].kind == .vignette {
            let shape = VignetteShape(intensity: Double(stages[index].m[1]), radius: Double(stages[index].m[2]))
            let k = shape.coefficient(width: width, height: height)
            let table = scratch.buffer(slotBase + index, bytes: (width + laneCount) * 4).bindMemory(
                to: Float.self, capacity: width + laneCount)
            for x in 0..<(width + laneCount) {
                let dx = Double(x) + 0.5 - Double(width) / 2
                table[x] = Float(k * dx * dx)
            }
            stages[index].m[0] = Float(k)
            stages[index].table = table
        }
    }

    /// Bytes of scratch `run` may use per band.
    static func bufferBytes(width: Int) -> Int { RGBTableKernel.bufferBytes(width: width) }

    /// Processes rows `rows` from `source` to `destination` (which may be the same memory);
    /// `buffer` is this band's scratch (`bufferBytes`). With `mirror` (a row of scratch) the output is
    /// also mirrored: each row is written there and reversed into place while it is in L1, or, by the 3×3 pass
    /// into rows that do not overlap its source's, stored reversed directly.
    func run(
        source: Plane, destination: Plane, format: PixelFormat, width: Int, height: Int, rows: Range<Int>,
        buffer: UnsafeMutableRawPointer, mirror: UnsafeMutableRawPointer? = nil
    ) {
        if let mirror {
            // Resolved once, not per row: the per-format lookups hash.
            let lut = lutKernel ?? nil, fixed = fixedKernels[format] ?? nil, tables = tableKernels[format] ?? nil
            let to = Plane(base: mirror, stride: 0)
            if lut == nil, fixed == nil, let tables {
                // Through its own row buffer (a second one would push the rows in flight out of L1), all rows in one call.
                tables.run(
                    source: source, destination: destination, format: format, width: width, height: height, rows: rows,
                    buffer: buffer, mirror: true)
                return
            }
            for y in rows {
                let row = y..<(y + 1)
                if let lut {
                    lut.run(source: source, destination: to, format: format, width: width, rows: row)
                } else if let fixed {
                    // Into another frame the 3×3 pass stores the row reversed itself.
                    let s = source.base + y * source.stride, d = destination.base + y * destination.stride
                    if fixed.storesMirrored && (s + width * 4 <= d || d + width * 4 <= s) {
                        fixed.run(source: source, destination: destination, width: width, height: height, rows: row, mirrored: true)
                        continue
                    }
                    fixed.run(source: source, destination: to, width: width, height: height, rows: row)
                } else {
                    run(source: source, destination: to, format: format, width: width, height: height, rows: row, buffer: buffer)
                }
                MirrorFlipKernel.reverse(mirror, destination.base + y * destination.stride, bytes: width * 4, size: 4, kernels)
            }
            return
        }
        if case let lut?? = lutKernel {
            lut.run(source: source, destination: destination, format: format, width: width, rows: rows)
            return
        }
        if case let fixed?? = fixedKernels[format] {
            fixed.run(source: source, destination: destination, width: width, height: height, rows: rows)
            return
        }
        if case let tables?? = tableKernels[format] {
            tables.run(source: source, destination: destination, format: format, width: width, height: height, rows: rows, buffer: buffer)
            return
        }
        let offsets = format.rgbOffsets
        let layout = Layout(
            shifts: SIMD3<UInt32>(UInt32(offsets.r * 8), UInt32(offsets.g * 8), UInt32(offsets.b * 8)),
            keep: UInt32(0xFF) << UInt32(offsets.a * 8))
        stages.withUnsafeBufferPointer { stages in
            // The common shapes get loops with every constant hoisted; anything else walks the list per block.
            let vignette = stages.count == 2 && stages[1].kind == .vignette ? stages[1].table : nil
            let k = stages.count == 2 ? stages[1].m[0] : 0
            if stages.count == 1 || vignette != nil, stages[0].kind == .affine, let rankOne = RankOne(stages[0].m) {
                // Sepia, mono, saturation, brightness, contrast, exposure, invert and their compositions.
                if let columns = vignette {
                    Self.rows(source, destination, width, height, rows, layout, Vignetted(inner: rankOne, columns: columns, k: k))
                } else {
                    Self.rows(source, destination, width, height, rows, layout, rankOne)
                }
            } else if stages.count == 1 || vignette != nil, stages[0].kind == .affine {
                let matrix = Matrix(stages[0].m)
                if let columns = vignette {
                    Self.rows(source, destination, width, height, rows, layout, Vignetted(inner: matrix, columns: columns, k: k))
                } else {
                    Self.rows(source, destination, width, height, rows, layout, matrix)
                }
            } else {
                Self.rows(source, destination, width, height, rows, layout, General(stages: stages))
            }
        }
    }

    /// The fused stage list, for building tables from it.
    func withStages<R>(_ body: (UnsafeBufferPointer<Stage>) -> R) -> R { stages.withUnsafeBufferPointer(body) }

    struct Layout {
        var shifts: SIMD3<UInt32>
        var keep: UInt32
    }

    /// What one fused pass does to eight pixels; generic code over it is specialized per shape, so
    /// the row loop has no calls, closures or per-pixel dispatch.
    protocol BlockOperation {
        func apply(_ r: inout Lanes<Float>, _ g: inout Lanes<Float>, _ b: inout Lanes<Float>, x: Int, dy: Float)
    }

    /// A 3×4 matrix splatted into registers once per band.
    struct Matrix: BlockOperation {
        let m00, m01, m02, m10, m11, m12, m20, m21, m22, o0, o1, o2: Lanes<Float>
        init(_ m: SIMD16<Float>) {
            m00 = Lanes(repeating: m[0]); m01 = Lanes(repeating: m[1]); m02 = Lanes(repeating: m[2])
            m10 = Lanes(repeating: m[3]); m11 = Lanes(repeating: m[4]); m12 = Lanes(repeating: m[5])
            m20 = Lanes(repeating: m[6]); m21 = Lanes(repeating: m[7]); m22 = Lanes(repeating: m[8])
            o0 = Lanes(repeating: m[9]); o1 = Lanes(repeating: m[10]); o2 = Lanes(repeating: m[11])
        }
        @inline(__always)
        func apply(_ r: inout Lanes<Float>, _ g: inout Lanes<Float>, _ b: inout Lanes<Float>, x: Int, dy: Float) {
            let r2 = r * m00 + g * m01 + b * m02 + o0
            let g2 = r * m10 + g * m11 + b * m12 + o1
            let b2 = r * m20 + g * m21 + b * m22 + o2
            r = r2; g = g2; b = b2
        }
    }

    /// A matrix of the form `a·I + 1·kᵀ` plus offsets: every channel is `a·c + k·rgb + o_c`.
    ///
    /// All of the engine's colour matrices except temperature have this form, and it is closed
    /// under composition; it costs 6 multiplies per pixel instead of 9.
    struct RankOne: BlockOperation {
        let a, k0, k1, k2, o0, o1, o2: Lanes<Float>
        init?(_ m: SIMD16<Float>) {
            let k = (m[3], m[1], m[2])
            guard abs(m[6] - k.0) < 1e-6, abs(m[7] - k.1) < 1e-6, abs(m[5] - k.2) < 1e-6 else { return nil }
            let scale = m[0] - k.0
            guard abs(m[4] - k.1 - scale) < 1e-6, abs(m[8] - k.2 - scale) < 1e-6 else { return nil }
            a = Lanes(repeating: scale)
            k0 = Lanes(repeating: k.0); k1 = Lanes(repeating: k.1); k2 = Lanes(repeating: k.2)
            o0 = Lanes(repeating: m[9]); o1 = Lanes(repeating: m[10]); o2 = Lanes(repeating: m[11])
        }
        @inline(__always)
        func apply(_ r: inout Lanes<Float>, _ g: inout Lanes<Float>, _ b: inout Lanes<Float>, x: Int, dy: Float) {
            let l = r * k0 + g * k1 + b * k2
            r = r * a + (l + o0)
            g = g * a + (l + o1)
            b = b * a + (l + o2)
        }
    }

    /// An operation followed by the vignette gain.
    struct Vignetted<Inner: BlockOperation>: BlockOperation {
        let inner: Inner
        let columns: UnsafeMutablePointer<Float>
        let k: Float
        @inline(__always)
        func apply(_ r: inout Lanes<Float>, _ g: inout Lanes<Float>, _ b: inout Lanes<Float>, x: Int, dy: Float) {
            inner.apply(&r, &g, &b, x: x, dy: dy)
            let gain = RGBPointKernel.gain(columns, x, k, dy)
            r *= gain; g *= gain; b *= gain
        }
    }

    /// Any program: walks the stage list once per block of eight pixels.
    struct General: BlockOperation {
        let stages: UnsafeBufferPointer<Stage>
        @inline(__always)
        func apply(_ r: inout Lanes<Float>, _ g: inout Lanes<Float>, _ b: inout Lanes<Float>, x: Int, dy: Float) {
            RGBPointKernel.applyAll(stages, &r, &g, &b, x, dy)
        }
    }

    @inline(__always)
    static func gain(_ columns: UnsafeMutablePointer<Float>, _ x: Int, _ k: Float, _ dy: Float) -> Lanes<Float> {
        let terms = UnsafeRawPointer(columns + x).loadUnaligned(as: Lanes<Float>.self)
        return positivePart(Lanes<Float>(repeating: 1 - k * dy * dy) - terms)
    }

    /// The row loop: eight pixels per step from one 32-byte load; the tail goes through a local block
    /// so no byte past the row is read or written.
    @inline(__always)
    private static func rows<Operation: BlockOperation>(
        _ source: Plane, _ destination: Plane, _ width: Int, _ height: Int,
        _ rows: Range<Int>, _ layout: Layout, _ operation: Operation
    ) {
        let mask = Lanes<UInt32>(repeating: 0xFF), keep = Lanes<UInt32>(repeating: layout.keep)
        let shifts = layout.shifts
        @inline(__always) func block(_ v: Lanes<UInt32>, _ x: Int, _ dy: Float) -> Lanes<UInt32> {
            var r = Lanes<Float>(Lanes<Int32>(truncatingIfNeeded: (v &>> shifts.x) & mask))
            var g = Lanes<Float>(Lanes<Int32>(truncatingIfNeeded: (v &>> shifts.y) & mask))
            var b = Lanes<Float>(Lanes<Int32>(truncatingIfNeeded: (v &>> shifts.z) & mask))
            operation.apply(&r, &g, &b, x: x, dy: dy)
            return (clampRound(r) &<< shifts.x) | (clampRound(g) &<< shifts.y) | (clampRound(b) &<< shifts.z) | (v & keep)
        }
        for y in rows {
            let src = source.base + y * source.stride
            let dst = destination.base + y * destination.stride
            let dy = Float(Double(y) + 0.5 - Double(height) / 2)
            var x = 0
            while x + laneCount <= width {
                let v = src.loadUnaligned(fromByteOffset: x * 4, as: Lanes<UInt32>.self)
                dst.storeBytes(of: block(v, x, dy), toByteOffset: x * 4, as: Lanes<UInt32>.self)
                x += laneCount
            }
            if x < width {
                var tail = Lanes<UInt32>.zero
                let count = width - x
                withUnsafeMutableBytes(of: &tail) { $0.baseAddress?.copyMemory(from: src + x * 4, byteCount: count * 4) }
                let out = block(tail, x, dy)
                withUnsafeBytes(of: out) { if let base = $0.baseAddress { (dst + x * 4).copyMemory(from: base, byteCount: count * 4) } }
            }
        }
    }

    /// `r·a + g·b + b·c + offset`, lane by lane.
    @inline(__always)
    static func row(
        _ r: Lanes<Float>, _ g: Lanes<Float>, _ b: Lanes<Float>, _ kr: Float, _ kg: Float, _ kb: Float, _ offset: Float
    ) -> Lanes<Float> {
        var sum: Lanes<Float> = r * kr
        sum += g * kg
        sum += b * kb
        return sum + offset
    }

    @inline(__always)
    static func applyAll(
        _ stages: UnsafeBufferPointer<Stage>, _ r: inout Lanes<Float>, _ g: inout Lanes<Float>,
        _ b: inout Lanes<Float>, _ x: Int, _ dy: Float
    ) {
        for index in stages.indices {
            let stage = stages[index]
            switch stage.kind {
            case .affine:
                // One typed step at a time: the three-term sums of vectors and scalars in one expression took the type
                // checker about a second each here, and ten times that on an emulated ARM64.
                let m = stage.m
                let r2: Lanes<Float> = Self.row(r, g, b, m[0], m[1], m[2], m[9])
                let g2: Lanes<Float> = Self.row(r, g, b, m[3], m[4], m[5], m[10])
                let b2: Lanes<Float> = Self.row(r, g, b, m[6], m[7], m[8], m[11])
                r = r2; g = g2; b = b2
            case .curve:
                guard let table = stage.table else { continue }
                let ri = clampRound(r), gi = clampRound(g), bi = clampRound(b)
                for lane in 0..<laneCount {
                    r[lane] = table[Int(ri[lane])]
                    g[lane] = table[Int(gi[lane])]
                    b[lane] = table[Int(bi[lane])]
                }
            case .vignette:
                guard let columns = stage.table else { continue }
                let gain = gain(columns, x, stage.m[0], dy)
                r *= gain; g *= gain; b *= gain
            case .lut3D:
                guard let table = stage.table else { continue }
                for lane in 0..<laneCount {
                    let out = trilinear(table, stage.size, stage.m, r[lane], g[lane], b[lane])
                    r[lane] = out.0; g[lane] = out.1; b[lane] = out.2
                }
            }
        }
    }

    /// Trilinear lookup; inputs in 0...255 scale are mapped to grid units and clamped to the grid.
    @inline(__always)
    static func trilinear(
        _ table: UnsafeMutablePointer<Float>, _ size: Int, _ m: SIMD16<Float>,
        _ r: Float, _ g: Float, _ b: Float
    ) -> (Float, Float, Float) {
        let n = m[0]
        @inline(__always) func axis(_ v: Float, _ scale: Float, _ offset: Float) -> (Int, Float) {
            var t = v * scale + offset
            t = t > 0 ? (t < n ? t : n) : 0
            let i = min(Int(t), size - 2)
            return (i, t - Float(i))
        }
        let (ri, rf) = axis(r, m[1], m[4]), (gi, gf) = axis(g, m[2], m[5]), (bi, bf) = axis(b, m[3], m[6])
        let sr = 3, sg = 3 * size, sb = 3 * size * size
        let p = table + ri * sr + gi * sg + bi * sb
        var out = (Float(0), Float(0), Float(0))
        for c in 0..<3 {
            let c00 = p[c] + (p[sr + c] - p[c]) * rf
            let c10 = p[sg + c] + (p[sg + sr + c] - p[sg + c]) * rf
            let c01 = p[sb + c] + (p[sb + sr + c] - p[sb + c]) * rf
            let c11 = p[sb + sg + c] + (p[sb + sg + sr + c] - p[sb + sg + c]) * rf
            let c0 = c00 + (c10 - c00) * gf, c1 = c01 + (c11 - c01) * gf
            let v = c0 + (c1 - c0) * bf
            if c == 0 { out.0 = v } else if c == 1 { out.1 = v } else { out.2 = v }
        }
        return out
    }
}
