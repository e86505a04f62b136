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
final class YUVPointKernel {
    private enum Stage {
        case affine([Float])
        case curve([Float])
        case gain(VignetteShape)
        case lut3D(Cube3D)
    }

    private enum Mode {
        case tables(y: [UInt8]?, u: [UInt8]?, v: [UInt8]?, gain: VignetteShape?)
        case general([Stage])
    }

    private let mode: Mode
    let color: ColorDescription
    private let yOffset: Float, yScale: Float, cScale: Float

    init(_ program: PointProgram, color: ColorDescription) {
        self.color = color
        let q = color.lumaQuantization
        yOffset = Float(q.offset); yScale = Float(q.scale); cScale = Float(color.chromaScale)
        mode = Self.tableMode(program, color: color) ?? .general(Self.generalStages(program, color: color))
    }

    var isIdentity: Bool {
        if case let .tables(y, u, v, gain) = mode { return y == nil && u == nil && v == nil && gain == nil }
        return false
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
        return .tables(y: yTable == identity ? nil : yTable, u: uTable == identity ? nil : uTable,
                       v: vTable == identity ? nil : vTable, gain: gain)
    }

    private static func generalStages(_ program: PointProgram, color: ColorDescription) -> [Stage] {
        program.steps.map { step in
            switch step {
            case let .affine(rgb):
                let a = rgb.inYCbCr(color)
                return .affine((a.m + a.o).map(Float.init))
            case let .curve(f):
                return .curve((0..<256).map { Float(clampUnit(f(Double($0) / 255))) })
            case let .vignette(shape):
                return .gain(shape)
            case let .lut3D(cube):
                return .lut3D(Self.resample(cube, color: color))
            }
        }
    }

    /// The cube re-expressed on normalized Y'CbCr (Y 0...1, Cb and Cr −0.5...0.5).
    private static func resample(_ cube: Cube3D, color: ColorDescription) -> Cube3D {
        let n = min(max(cube.size, 17), 33)
        let toRGB = Affine3.yCbCrToRGB(color), toYUV = Affine3.rgbToYCbCr(color)
        var table = [Float](repeating: 0, count: n * n * n * 3)
        var index = 0
        let step = 1 / Double(n - 1)
        for vi in 0..<n {
            for ui in 0..<n {
                for yi in 0..<n {
                    let rgb = toRGB.apply((Double(yi) * step, Double(ui) * step - 0.5, Double(vi) * step - 0.5))
                    let mapped = cube.sample(clampUnit(rgb.0), clampUnit(rgb.1), clampUnit(rgb.2))
                    let yuv = toYUV.apply(mapped)
                    table[index] = Float(yuv.0); table[index + 1] = Float(yuv.1); table[index + 2] = Float(yuv.2)
                    index += 3
                }
            }
        }
        return Cube3D(size: n, table: table, domainMin: (0, -0.5, -0.5), domainMax: (1, 0.5, 0.5)) ?? cube
    }

    /// The work splits into luma rows (for tables) or chroma rows (general); this is the row count to band over.
    func rowCount(format: PixelFormat, height: Int) -> (rows: Int, alignment: Int) {
        guard let layout = YUVLayout(format) else { return (height, 1) }
        return (height, layout.verticalSubsampling)
    }

    /// Processes luma rows `rows` (a multiple of the vertical subsampling, except at the end).
    func run(source: Frame, destination: Frame, rows: Range<Int>) {
        guard let layout = YUVLayout(source.format) else { return }
        switch mode {
        case let .tables(y, u, v, gain):
            runTables(layout, source, destination, rows, y, u, v, gain)
        case let .general(stages):
            runGeneral(layout, source, destination, rows, stages)
        }
    }

    private func runTables(_ layout: YUVLayout, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
                           _ yTable: [UInt8]?, _ uTable: [UInt8]?, _ vTable: [UInt8]?, _ gain: VignetteShape?) {
        let width = source.width, height = source.height
        let k = Float(gain?.coefficient(width: width, height: height) ?? 0)
        let halfWidth = Float(width) / 2, halfHeight = Float(height) / 2
        let identity = Self.identityTable
        identity.withUnsafeBufferPointer { _ in
            (yTable ?? identity).withUnsafeBufferPointer { yt in
                let skipY = yTable == nil && gain == nil && source.planes[0].base == destination.planes[0].base
                    && source.planes[0].stride == destination.planes[0].stride
                if !skipY {
                    for row in rows {
                        let s = layout.row(layout.y, source, row), d = layout.row(layout.y, destination, row)
                        let step = layout.y.step
                        if gain == nil {
                            if step == 1 {
                                for x in 0..<width { d[x] = yt[Int(s[x])] }
                            } else {
                                for x in 0..<width { d[x * step] = yt[Int(s[x * step])] }
                            }
                        } else {
                            let dy = Float(row) + 0.5 - halfHeight
                            let rowGain = 1 - k * dy * dy
                            for x in 0..<width {
                                let dx = Float(x) + 0.5 - halfWidth
                                let g = max(0, rowGain - k * dx * dx)
                                let value = yOffset + g * (Float(yt[Int(s[x * step])]) - yOffset)
                                d[x * step] = clampByte(value)
                            }
                        }
                    }
                }
            }
            (uTable ?? identity).withUnsafeBufferPointer { ut in
                (vTable ?? identity).withUnsafeBufferPointer { vt in
                    let sub = layout.verticalSubsampling
                    let skip = uTable == nil && vTable == nil && gain == nil
                        && source.planes[layout.u.plane].base == destination.planes[layout.u.plane].base
                    guard !skip else { return }
                    let chromaWidth = layout.chromaWidth(width)
                    let firstChromaRow = (rows.lowerBound + sub - 1) / sub
                    let endChromaRow = (rows.upperBound + sub - 1) / sub
                    for crow in firstChromaRow..<endChromaRow {
                        let su = layout.row(layout.u, source, crow), du = layout.row(layout.u, destination, crow)
                        let sv = layout.row(layout.v, source, crow), dv = layout.row(layout.v, destination, crow)
                        let us = layout.u.step, vs = layout.v.step
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
                                let g = max(0, rowGain - k * dx * dx)
                                du[x * us] = clampByte(128 + g * (Float(ut[Int(su[x * us])]) - 128))
                                dv[x * vs] = clampByte(128 + g * (Float(vt[Int(sv[x * vs])]) - 128))
                            }
                        }
                    }
                }
            }
        }
    }

    private static let identityTable: [UInt8] = (0..<256).map { UInt8($0) }

    private func runGeneral(_ layout: YUVLayout, _ source: Frame, _ destination: Frame, _ rows: Range<Int>, _ stages: [Stage]) {
        let width = source.width, height = source.height
        let sub = layout.verticalSubsampling
        let chromaWidth = layout.chromaWidth(width)
        let firstChromaRow = rows.lowerBound / sub
        let endChromaRow = (rows.upperBound + sub - 1) / sub
        let ks = stages.map { stage -> Float in
            if case let .gain(shape) = stage { return Float(shape.coefficient(width: width, height: height)) }
            return 0
        }
        for crow in firstChromaRow..<endChromaRow {
            let lumaRows = (crow * sub)..<min(crow * sub + sub, height)
            let su = layout.row(layout.u, source, crow), du = layout.row(layout.u, destination, crow)
            let sv = layout.row(layout.v, source, crow), dv = layout.row(layout.v, destination, crow)
            for cx in 0..<chromaWidth {
                let u = (Float(su[cx * layout.u.step]) - 128) / cScale
                let v = (Float(sv[cx * layout.v.step]) - 128) / cScale
                var sum: Float = 0, count: Float = 0
                for row in lumaRows {
                    let sy = layout.row(layout.y, source, row), dy = layout.row(layout.y, destination, row)
                    for x in (2 * cx)..<min(2 * cx + 2, width) {
                        let y = (Float(sy[x * layout.y.step]) - yOffset) / yScale
                        sum += y; count += 1
                        let out = apply(stages, ks, y, u, v, x: Float(x) + 0.5, y: Float(row) + 0.5, width, height)
                        dy[x * layout.y.step] = clampByte(yOffset + yScale * out.0)
                    }
                }
                let centreY = Float(lumaRows.lowerBound) + Float(lumaRows.count) / 2
                let out = apply(stages, ks, sum / max(count, 1), u, v, x: Float(2 * cx + 1), y: centreY, width, height)
                du[cx * layout.u.step] = clampByte(128 + cScale * out.1)
                dv[cx * layout.v.step] = clampByte(128 + cScale * out.2)
            }
        }
    }

    @inline(__always)
    private func apply(_ stages: [Stage], _ ks: [Float], _ y0: Float, _ u0: Float, _ v0: Float,
                       x: Float, y py: Float, _ width: Int, _ height: Int) -> (Float, Float, Float) {
        var (y, u, v) = (y0, u0, v0)
        for (index, stage) in stages.enumerated() {
            switch stage {
            case let .affine(m):
                (y, u, v) = (m[0] * y + m[1] * u + m[2] * v + m[9],
                             m[3] * y + m[4] * u + m[5] * v + m[10],
                             m[6] * y + m[7] * u + m[8] * v + m[11])
            case let .curve(table):
                let i = Int(clampByte(Double(y * 255)))
                y = table[i]
            case .gain:
                let dx = x - Float(width) / 2, dy = py - Float(height) / 2
                let g = max(0, 1 - ks[index] * (dx * dx + dy * dy))
                y *= g; u *= g; v *= g
            case let .lut3D(cube):
                let s = cube.sample(Double(y), Double(u), Double(v))
                (y, u, v) = (Float(s.0), Float(s.1), Float(s.2))
            }
        }
        return (y, u, v)
    }
}

/// Rounds and clamps a Float to a byte.
@inline(__always)
func clampByte(_ v: Float) -> UInt8 {
    let r = (v + 0.5).rounded(.down)
    return r > 0 ? (r < 255 ? UInt8(r) : 255) : 0
}
