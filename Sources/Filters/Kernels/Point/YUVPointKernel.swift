#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fused point pass on Y'CbCr frames, computed in Y'CbCr: no R'G'B' round trip.
///
/// Each R'G'B' matrix M becomes T·M·T⁻¹ (T = the frame's R'G'B' → Y'CbCr matrix); a curve maps
/// luma and keeps chroma; the vignette scales luma and chroma about their zero; a 3D LUT is
/// resampled once into a Y'CbCr-domain cube. When every matrix keeps luma and chroma apart
/// (sepia, mono, saturation, brightness, contrast, exposure, invert) the pass is a 256-entry
/// table per component — the Y plane is left alone if its table is the identity — optionally
/// followed by the vignette gain. Anything else (temperature, LUTs, vignette mid-chain) runs the
/// general per-sample path, where each chroma sample sees the mean luma of the pixels it covers.
///
/// The float tables the general path's stages point into are allocated by `generalStages` (YUVPointStages.swift) into
/// `ownedTables` and freed only here, in `deinit`.
final class YUVPointKernel {
    /// One step of the general path. `m`: for `affine` the 3×3 then offsets; for `vignette` intensity, radius (k is per
    /// frame size); for `lut3D` n, scales, offsets. `table`: for `curve` 256 normalized outputs; for `lut3D` the
    /// Y'CbCr-domain grid.
    typealias Stage = PointStage

    private enum Mode {
        case tables(y: [UInt8]?, u: [UInt8]?, v: [UInt8]?, gain: VignetteShape?)
        case general([Stage])
    }

    private let mode: Mode
    /// The 16-bit pass for NV12 and I420 when the program is curves, an affine map, a vignette and a map after it.
    let fixed420: YUV420FixedKernel?
    /// Curves and matrices followed by a 3D LUT, baked into one fixed-point cube over the input codes.
    private var lut: YUVLutKernel?
    /// Otherwise, when the program splits into runs that pass takes (a curve after a map that mixes luma and
    /// chroma, or after the vignette): those passes back to back on a few rows at a time, which stay in cache.
    /// Values are rounded and clamped to bytes between them, as separate filters would: within 3 codes of the
    /// general path run in the same parts (FixedKernelTests), which alone keeps chroma a map pushes past the
    /// byte range until a later gain.
    let segments420: [YUV420FixedKernel]
    private var ownedTables: [UnsafeMutablePointer<Float>] = []
    let color: ColorDescription
    private let yOffset: Float, yScale: Float, cScale: Float

    /// `fixedPoint: false` forces the float paths, `tables: false` the general one (tests compare them).
    init(_ program: PointProgram, color: ColorDescription, fixedPoint: Bool = true, tables: Bool = true, kernels: KernelSet = .best) {
        self.color = color
        fixed420 = fixedPoint ? YUV420FixedKernel(program, color: color, kernels: kernels) : nil
        segments420 = fixedPoint && fixed420 == nil ? Self.segments(program, color: color, kernels: kernels) : []
        let q = color.lumaQuantization
        yOffset = Float(q.offset); yScale = Float(q.scale); cScale = Float(color.chromaScale)
        if tables, let tables = Self.tableMode(program, color: color) {
            mode = tables
        } else {
            var owned: [UnsafeMutablePointer<Float>] = []
            let stages = Self.generalStages(program, color: color, owned: &owned)
            mode = .general(stages)
            ownedTables = owned
            if fixedPoint, case let .lut3D(cube)? = program.steps.last,
                program.steps.dropLast().allSatisfy({ if case .vignette = $0 { false } else if case .lut3D = $0 { false } else { true } })
            {
                let (yo, ys, cs) = (yOffset, yScale, cScale)
                lut = stages.withUnsafeBufferPointer { stages in
                    YUVLutKernel(size: min(max(cube.size, 33), 64)) { y, u, v in
                        let out = Self.apply(stages, (y - yo) / ys, (u - 128) / cs, (v - 128) / cs, dx: 0, dy: 0)
                        return (yo + ys * out.0, 128 + cs * out.1, 128 + cs * out.2)
                    }
                }
            }
        }
    }

    deinit { ownedTables.forEach { $0.deallocate() } }

    var isIdentity: Bool {
        if case let .tables(y, u, v, gain) = mode { return y == nil && u == nil && v == nil && gain == nil }
        return false
    }

    /// The longest runs of `program` the 4:2:0 pass takes, in order; empty when a step fits none (a 3D LUT).
    private static func segments(_ program: PointProgram, color: ColorDescription, kernels: KernelSet) -> [YUV420FixedKernel] {
        var segments: [YUV420FixedKernel] = []
        var start = 0
        while start < program.steps.count {
            // Program lengths are a handful of steps, so trying every end is cheap (once per chain and format).
            guard
                let (end, kernel) = (start..<program.steps.count).reversed().lazy.compactMap({ last in
                    YUV420FixedKernel(PointProgram(steps: Array(program.steps[start...last])), color: color, kernels: kernels).map {
                        (last + 1, $0)
                    }
                }).first
            else { return [] }
            segments.append(kernel)
            start = end
        }
        return segments.count > 1 ? segments : []
    }

    /// Tries the separable form: every step maps Y from Y and each chroma component from itself.
    private static func tableMode(_ program: PointProgram, color: ColorDescription) -> Mode? {
        var yMaps: [(Double) -> Double] = []
        var uMap = (scale: 1.0, offset: 0.0), vMap = (scale: 1.0, offset: 0.0)
        var gain: VignetteShape?
        for (index, step) in program.steps.enumerated() {
            switch step {
            case let .affine(rgb):
                let a = rgb.inYCbCr(color)
                let cross = [a.m[1], a.m[2], a.m[3], a.m[5], a.m[6], a.m[7]]
                guard cross.allSatisfy({ abs($0) < 1e-9 }) else { return nil }
                let (ys, yo) = (a.m[0], a.o[0])
                yMaps.append { ys * $0 + yo }
                uMap = (a.m[4] * uMap.scale, a.m[4] * uMap.offset + a.o[1])
                vMap = (a.m[8] * vMap.scale, a.m[8] * vMap.offset + a.o[2])
            case let .curve(f):
                yMaps.append { f(clampUnit($0)) }
            case let .vignette(shape):
                guard index == program.steps.count - 1 else { return nil }
                gain = shape
            case .lut3D:
                return nil
            }
        }
        let q = color.lumaQuantization, cs = color.chromaScale
        var yTable = [UInt8](repeating: 0, count: 256)
        var uTable = yTable, vTable = yTable
        for code in 0..<256 {
            var y = (Double(code) - q.offset) / q.scale
            for map in yMaps { y = map(y) }
            yTable[code] = clampByte(q.offset + q.scale * y)
            let c = (Double(code) - 128) / cs
            uTable[code] = clampByte(128 + cs * (uMap.scale * c + uMap.offset))
            vTable[code] = clampByte(128 + cs * (vMap.scale * c + vMap.offset))
        }
        let identity = (0..<256).map { UInt8($0) }
        return .tables(
            y: yTable == identity ? nil : yTable, u: uTable == identity ? nil : uTable,
            v: vTable == identity ? nil : vTable, gain: gain)
    }

    func run(source: Frame, destination: Frame, rows: Range<Int>, mirror: UnsafeMutableRawPointer? = nil) {
        guard let layout = YUVLayout(source.format) else { return }
        if let fixed420, source.format == .nv12 || source.format == .i420 {
            fixed420.run(source: source, destination: destination, rows: rows, mirror: mirror)
            return
        }
        if !segments420.isEmpty, source.format == .nv12 || source.format == .i420 {
            // 16 rows of 1080p NV12 are 46 KB: each pass after the first finds them in L2. The first reads the
            // source, the others work in place on the destination; the last one mirrors.
            var start = rows.lowerBound
            while start < rows.upperBound {
                let tile = start..<min(start + 16, rows.upperBound)
                for (index, segment) in segments420.enumerated() {
                    segment.run(
                        source: index == 0 ? source : destination, destination: destination, rows: tile,
                        mirror: index == segments420.count - 1 ? mirror : nil)
                }
                start = tile.upperBound
            }
            return
        }
        if let lut {
            lut.run(layout, source, destination, rows)
            return
        }
        switch mode {
        case let .tables(y, u, v, gain):
            runTables(layout, source, destination, rows, y, u, v, gain)
        case let .general(stages):
            runGeneral(layout, source, destination, rows, stages)
        }
    }

    private func runTables(
        _ layout: YUVLayout, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
        _ yTable: [UInt8]?, _ uTable: [UInt8]?, _ vTable: [UInt8]?, _ gain: VignetteShape?
    ) {
        let width = source.width, height = source.height
        let k = Float(gain?.coefficient(width: width, height: height) ?? 0)
        let halfWidth = Float(width) / 2, halfHeight = Float(height) / 2
        let sub = layout.verticalSubsampling
        let sameY = source.planes[layout.y.plane].base == destination.planes[layout.y.plane].base
        let sameC = source.planes[layout.u.plane].base == destination.planes[layout.u.plane].base
        // Tables as Float offsets from the zero of each component, for the gain path.
        func centred(_ table: [UInt8], _ zero: Float) -> [Float] { table.map { Float($0) - zero } }
        let identity = Self.identityTable
        let yt = yTable ?? identity, ut = uTable ?? identity, vt = vTable ?? identity
        let yOffset = self.yOffset

        if !(yTable == nil && gain == nil && sameY) {
            let yf = centred(yt, yOffset)
            yt.withUnsafeBufferPointer { yt in
                yf.withUnsafeBufferPointer { yf in
                    let step = layout.y.step
                    for row in rows {
                        let s = layout.row(layout.y, source, row), d = layout.row(layout.y, destination, row)
                        if gain == nil {
                            if step == 1 {
                                for x in 0..<width { d[x] = yt[Int(s[x])] }
                            } else {
                                for x in 0..<width { d[x * step] = yt[Int(s[x * step])] }
                            }
                        } else {
                            let dy = Float(row) + 0.5 - halfHeight
                            let rowGain = 1 - k * dy * dy
                            // Four pixels at a time: the gain and the rounding in SIMD, the table reads scalar.
                            let rowGains = Lanes<Float>(repeating: rowGain), ks = Lanes<Float>(repeating: k)
                            let offsets = Lanes<Float>(repeating: yOffset), ramp = Lanes<Float>(0.5, 1.5, 2.5, 3.5)
                            var x = 0
                            while x + 4 <= width {
                                let dx = Lanes<Float>(repeating: Float(x) - halfWidth) + ramp
                                let g = positivePart(rowGains - ks * dx * dx)
                                let values = Lanes<Float>(
                                    yf[Int(s[x * step])], yf[Int(s[(x + 1) * step])],
                                    yf[Int(s[(x + 2) * step])], yf[Int(s[(x + 3) * step])])
                                let out = clampRound(offsets + g * values)
                                d[x * step] = UInt8(truncatingIfNeeded: out[0])
                                d[(x + 1) * step] = UInt8(truncatingIfNeeded: out[1])
                                d[(x + 2) * step] = UInt8(truncatingIfNeeded: out[2])
                                d[(x + 3) * step] = UInt8(truncatingIfNeeded: out[3])
                                x += 4
                            }
                            while x < width {
                                let dx = Float(x) + 0.5 - halfWidth
                                let g = rowGain - k * dx * dx
                                d[x * step] = clampByte(yOffset + (g > 0 ? g : 0) * yf[Int(s[x * step])])
                                x += 1
                            }
                        }
                    }
                }
            }
        }
        guard !(uTable == nil && vTable == nil && gain == nil && sameC) else { return }
        let uf = centred(ut, 128), vf = centred(vt, 128)
        let chromaWidth = layout.chromaWidth(width)
        let firstChromaRow = (rows.lowerBound + sub - 1) / sub
        let endChromaRow = (rows.upperBound + sub - 1) / sub
        ut.withUnsafeBufferPointer { ut in
            vt.withUnsafeBufferPointer { vt in
                uf.withUnsafeBufferPointer { uf in
                    vf.withUnsafeBufferPointer { vf in
                        let us = layout.u.step, vs = layout.v.step
                        for crow in firstChromaRow..<endChromaRow {
                            let su = layout.row(layout.u, source, crow), du = layout.row(layout.u, destination, crow)
                            let sv = layout.row(layout.v, source, crow), dv = layout.row(layout.v, destination, crow)
                            if gain == nil {
                                for x in 0..<chromaWidth {
                                    du[x * us] = ut[Int(su[x * us])]
                                    dv[x * vs] = vt[Int(sv[x * vs])]
                                }
                            } else {
                                let dy = Float(crow * sub) + Float(sub) / 2 - halfHeight
                                let rowGain = 1 - k * dy * dy
                                for x in 0..<chromaWidth {
                                    let dx = Float(2 * x + 1) - halfWidth
                                    let g = rowGain - k * dx * dx
                                    let gain = g > 0 ? g : 0
                                    du[x * us] = clampByte(128 + gain * uf[Int(su[x * us])])
                                    dv[x * vs] = clampByte(128 + gain * vf[Int(sv[x * vs])])
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static let identityTable: [UInt8] = (0..<256).map { UInt8($0) }

    private func runGeneral(_ layout: YUVLayout, _ source: Frame, _ destination: Frame, _ rows: Range<Int>, _ stageList: [Stage]) {
        let width = source.width, height = source.height
        let sub = layout.verticalSubsampling
        let chromaWidth = layout.chromaWidth(width)
        let firstChromaRow = rows.lowerBound / sub
        let endChromaRow = (rows.upperBound + sub - 1) / sub
        var stageList = stageList
        for index in stageList.indices where stageList[index].kind == .vignette {
            let shape = VignetteShape(intensity: Double(stageList[index].m[0]), radius: Double(stageList[index].m[1]))
            stageList[index].m[2] = Float(shape.coefficient(width: width, height: height))
        }
        let halfWidth = Float(width) / 2, halfHeight = Float(height) / 2
        let (yOffset, yScale, cScale) = (self.yOffset, self.yScale, self.cScale)
        stageList.withUnsafeBufferPointer { stages in
            for crow in firstChromaRow..<endChromaRow {
                let lumaRows = (crow * sub)..<min(crow * sub + sub, height)
                let su = layout.row(layout.u, source, crow), du = layout.row(layout.u, destination, crow)
                let sv = layout.row(layout.v, source, crow), dv = layout.row(layout.v, destination, crow)
                let centreY = Float(lumaRows.lowerBound) + Float(lumaRows.count) / 2 - halfHeight
                for cx in 0..<chromaWidth {
                    let u = (Float(su[cx * layout.u.step]) - 128) / cScale
                    let v = (Float(sv[cx * layout.v.step]) - 128) / cScale
                    var sum: Float = 0, count: Float = 0
                    for row in lumaRows {
                        let sy = layout.row(layout.y, source, row), dy = layout.row(layout.y, destination, row)
                        for x in (2 * cx)..<min(2 * cx + 2, width) {
                            let y = (Float(sy[x * layout.y.step]) - yOffset) / yScale
                            sum += y; count += 1
                            let out = Self.apply(stages, y, u, v, dx: Float(x) + 0.5 - halfWidth, dy: Float(row) + 0.5 - halfHeight)
                            dy[x * layout.y.step] = clampByte(yOffset + yScale * out.0)
                        }
                    }
                    let out = Self.apply(stages, sum / max(count, 1), u, v, dx: Float(2 * cx + 1) - halfWidth, dy: centreY)
                    du[cx * layout.u.step] = clampByte(128 + cScale * out.1)
                    dv[cx * layout.v.step] = clampByte(128 + cScale * out.2)
                }
            }
        }
    }

    @inline(__always)
    private static func apply(
        _ stages: UnsafeBufferPointer<Stage>, _ y0: Float, _ u0: Float, _ v0: Float,
        dx: Float, dy: Float
    ) -> (Float, Float, Float) {
        var (y, u, v) = (y0, u0, v0)
        for index in stages.indices {
            let stage = stages[index]
            let m = stage.m
            switch stage.kind {
            case .affine:
                (y, u, v) = (
                    m[0] * y + m[1] * u + m[2] * v + m[9],
                    m[3] * y + m[4] * u + m[5] * v + m[10],
                    m[6] * y + m[7] * u + m[8] * v + m[11]
                )
            case .curve:
                if let table = stage.table { y = table[Int(clampByte(y * 255))] }
            case .vignette:
                let g = 1 - m[2] * (dx * dx + dy * dy)
                let gain = g > 0 ? g : 0
                y *= gain; u *= gain; v *= gain
            case .lut3D:
                if let table = stage.table {
                    (y, u, v) = RGBPointKernel.trilinear(table, stage.size, m, y, u, v)
                }
            }
        }
        return (y, u, v)
    }
}
