/// The fused point pass on 4:2:0 frames (NV12, I420): leading curves as a luma table, one Y'CbCr
/// affine map, the vignette gain and a map after it, in 16-bit fixed point, 16 luma columns and 8
/// chroma pairs per step.
///
/// This covers sepia, mono, invert, exposure, colorcontrols, temperature (whose luma and chroma
/// mix), the vignette, gamma, posterize and threshold, and chains of them such as `gamma |
/// colorcontrols | sepia | vignette | invert`. Per sample the work is one table read (with a curve),
/// one multiply (pmulhw) plus, with a vignette, one more: the gain is `max(0, row term − column
/// term)`, with the column terms tabulated once per frame size (like scratch) and one term per row.
/// When luma and chroma mix, luma reads the chroma of its 2×2 block and chroma reads the block's
/// mean luma (through the curve, from a table on the block's sum), as the general path does. Planes
/// the program leaves alone are copied (or untouched in place).
///
/// Numbers: inputs are `(v − 128)·256`, coefficients `c·2¹²`, so `mulHigh` gives 4 fraction bits;
/// the vignette gain is Q15 (0...1). `init` refuses programs whose coefficients or worst-case
/// values would not fit (|value| ≤ 1800 codes before the final offset), and negative vignette
/// intensities (gain above 1); those run the general path. Results agree with the float path
/// within 1 code (FixedKernelTests).
///
/// Over 400 lines on purpose: the constants, the NV12 and I420 layouts and the in-place and copying
/// variants share one set of lane loops and one set of range invariants; split across files, a reader
/// would have to check the same fixed-point bounds in each.
final class YUV420FixedKernel {
    /// Lane patterns, stored as vectors so the multiplies stay 16-bit (see FixedPoint.swift).
    private struct Constants {
        var lumaScale: I16x8
        var lumaConstant: I16x8
        var lumaFromChroma: I16x8
        var lumaConstant32: SIMD4<Int32>
        var chromaDiagonal: I16x8
        var chromaCross: I16x8
        var chromaFromLuma: I16x8
        var chromaConstant: I16x8
        var lumaBias: I16x8
        var chromaBias: I16x8
        /// Zeros, for `gainTerm`.
        var opaqueZero: I16x8 = .zero
    }

    private let constants: Constants
    /// Y' = Y: the Y plane is copied or left alone.
    let lumaIdentity: Bool
    /// Cb' = Cb and Cr' = Cr.
    let chromaIdentity: Bool
    /// Luma depends on chroma or chroma on luma: the planes are done together, a row pair at a time.
    let mixed: Bool
    /// Cb' depends on Cr or Cr' on Cb.
    let crossChroma: Bool
    let gain: VignetteShape?
    /// The SIMD path its rows run on.
    private let kernels: KernelSet

    private var lumaColumns: UnsafeMutablePointer<Int16>?
    private var chromaColumns: UnsafeMutablePointer<Int16>?
    /// The same column terms in the AVX-512 rows' lane order (`wideOrder`), whole groups of 64.
    private var lumaColumnsWide: UnsafeMutablePointer<Int16>?
    private var chromaColumnsWide: UnsafeMutablePointer<Int16>?
    private var coefficient = 0.0
    private var preparedSize = (0, 0)
    /// The gain's Q15 row terms of every luma row and every chroma row (its two luma rows' centre) for `preparedSize`.
    private var lumaRowTerms: [Int16] = [], chromaRowTerms: [Int16] = []

    /// Y code → the luma after the leading curves, as `(Y − 128)·256` (what `widenCentred` gives).
    private let lumaTable: UnsafeMutablePointer<Int16>?
    /// For the AVX-512 path's byte permutes, `lumaTable` with the scale and constant applied
    /// (`mulHigh(t, a00) + k0`, the block's first two operations, so the same values): the 256 low bytes,
    /// then the 256 high bytes.
    private var lumaTableBytes: UnsafeMutablePointer<UInt8>?
    /// Sum of a 2×2 block's luma codes (0...1020) → the curved block mean ×128: chroma's luma term.
    private let blockTable: UnsafeMutablePointer<Int16>?

    /// nil when the program is not `[curves and separable maps] [affine] [vignette [affine]]`, or does not fit 16 bits.
    ///
    /// Everything up to the last curve must keep luma and chroma apart (gamma, posterize, threshold,
    /// exposure, mono, brightness…): its luma side becomes a table, its chroma side folds into the
    /// affine. An affine after the vignette folds too: `M·(g·(A·x + b)) + c = g·(M·A·x + M·b) + c`,
    /// so it changes the coefficients and the final per-component constant, not the work per sample.
    init?(_ program: PointProgram, color: ColorDescription, kernels: KernelSet = .best) {
        let q = color.lumaQuantization, cs = color.chromaScale
        let yOff = q.offset, ys = q.scale
        let steps = program.steps
        let lastCurve = steps.lastIndex { if case .curve = $0 { true } else { false } }
        var a = Affine3.identity
        var lumaMaps: [(Double) -> Double] = []
        for step in steps[..<((lastCurve ?? -1) + 1)] {
            switch step {
            case let .affine(rgb):
                let m = rgb.inYCbCr(color)
                guard [m.m[1], m.m[2], m.m[3], m.m[6]].allSatisfy({ abs($0) < 1e-9 }) else { return nil }
                let (scale, offset) = (m.m[0], m.o[0])
                lumaMaps.append { scale * $0 + offset }
                a = a.then(Affine3(m: [1, 0, 0, 0, m.m[4], m.m[5], 0, m.m[7], m.m[8]], o: [0, m.o[1], m.o[2]]))
            case let .curve(f):
                // As the general path: the input rounded to 1/255, the output clamped to 0...1.
                lumaMaps.append { clampUnit(f(Double(clampByte($0 * 255)) / 255)) }
            case .vignette, .lut3D:
                return nil
            }
        }
        var shape: VignetteShape?
        var after: [Double] = [0, 0, 0]
        for step in steps[((lastCurve ?? -1) + 1)...] {
            switch step {
            case let .affine(rgb):
                let m = rgb.inYCbCr(color)
                guard shape != nil else {
                    a = a.then(m)
                    continue
                }
                guard after == [0, 0, 0] else { return nil }
                a = a.then(Affine3(m: m.m))
                after = m.o
            case let .vignette(s):
                guard shape == nil, s.intensity >= 0 else { return nil }
                shape = s
            case .curve, .lut3D:
                return nil
            }
        }
        if lumaMaps.isEmpty {
            lumaTable = nil
            blockTable = nil
        } else {
            func curved(_ code: Double) -> Double {
                var y = (code - yOff) / ys
                for map in lumaMaps { y = map(y) }
                return yOff + ys * y
            }
            let luma = UnsafeMutablePointer<Int16>.allocate(capacity: 256)
            for code in 0..<256 { luma[code] = Self.saturated((curved(Double(code)) - 128) * 256) }
            let block = UnsafeMutablePointer<Int16>.allocate(capacity: 1024)
            for sum in 0..<1024 { block[sum] = Self.saturated(curved(Double(min(sum, 1020)) / 4) * 128) }
            lumaTable = luma
            blockTable = block
        }
        // Code units: Y − yOff, Cb − 128, Cr − 128.
        let a00 = a.m[0], a01 = a.m[1] * ys / cs, a02 = a.m[2] * ys / cs
        let a10 = a.m[3] * cs / ys, a11 = a.m[4], a12 = a.m[5]
        let a20 = a.m[6] * cs / ys, a21 = a.m[7], a22 = a.m[8]
        // Inputs are centred on 128, so the luma constant absorbs a00·(128 − yOff); chroma reads Y − yOff.
        let k0 = ys * a.o[0] + a00 * (128 - yOff)
        let k1 = cs * a.o[1] - a10 * yOff, k2 = cs * a.o[2] - a20 * yOff
        let tiny = 1e-9
        lumaIdentity = shape == nil && lumaTable == nil && abs(a00 - 1) < tiny && abs(a01) < tiny && abs(a02) < tiny && abs(a.o[0]) < tiny
        chromaIdentity = shape == nil && abs(a11 - 1) < tiny && abs(a22 - 1) < tiny && abs(a12) < tiny && abs(a21) < tiny
            && abs(a10) < tiny && abs(a20) < tiny && abs(a.o[1]) < tiny && abs(a.o[2]) < tiny
        mixed = [a01, a02, a10, a20].contains { abs($0) >= tiny }
        crossChroma = abs(a12) >= tiny || abs(a21) >= tiny
        gain = shape
        self.kernels = kernels
        // Worst-case magnitudes in codes before the final offset; 1800·16 plus the bias stays in Int16.
        let limit = 1800.0
        // The zero each component is re-centred on after the gain: 1800·8 plus this stays in Int16 too.
        let zeros = [yOff + ys * after[0], 128 + cs * after[1], 128 + cs * after[2]]
        guard abs(a00) * 128 + (abs(a01) + abs(a02)) * 128 + abs(k0) <= limit,
              abs(a10) * 255 + (abs(a11) + abs(a12)) * 128 + abs(k1) <= limit,
              abs(a20) * 255 + (abs(a21) + abs(a22)) * 128 + abs(k2) <= limit,
              zeros.allSatisfy({ abs($0) <= 2000 }),
              let s00 = fixed(a00, bits: 12), let s01 = fixed(a01, bits: 12), let s02 = fixed(a02, bits: 12),
              let s10 = fixed(a10, bits: 13), let s11 = fixed(a11, bits: 12), let s12 = fixed(a12, bits: 12),
              let s20 = fixed(a20, bits: 13), let s21 = fixed(a21, bits: 12), let s22 = fixed(a22, bits: 12),
              let c0 = fixed(k0, bits: 4), let c1 = fixed(k1, bits: 4), let c2 = fixed(k2, bits: 4)
        else {
            lumaTable?.deallocate()
            blockTable?.deallocate()
            return nil
        }
        func pairs(_ u: Int16, _ v: Int16) -> I16x8 { I16x8(u, v, u, v, u, v, u, v) }
        // With a gain the product has 3 fraction bits, without 4; the bias re-adds the zero and rounds.
        let fraction = shape == nil ? 4 : 3
        func bias(_ zero: Double) -> Int16 { Int16((zero * Double(1 << fraction)).rounded()) + 1 << (fraction - 1) }
        constants = Constants(
            lumaScale: I16x8(repeating: s00), lumaConstant: I16x8(repeating: c0), lumaFromChroma: pairs(s01, s02),
            lumaConstant32: SIMD4(repeating: Int32((k0 * 4096).rounded()) + 128),
            chromaDiagonal: pairs(s11, s22), chromaCross: pairs(s12, s21), chromaFromLuma: pairs(s10, s20),
            chromaConstant: pairs(c1, c2),
            lumaBias: I16x8(repeating: bias(zeros[0])),
            chromaBias: pairs(bias(zeros[1]), bias(zeros[2])))
        if let lumaTable {
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 512)
            for code in 0..<256 {
                let t = Int16(truncatingIfNeeded: (Int32(lumaTable[code]) * Int32(s00)) >> 16) &+ c0
                bytes[code] = UInt8(truncatingIfNeeded: UInt16(bitPattern: t))
                bytes[256 + code] = UInt8(truncatingIfNeeded: UInt16(bitPattern: t) >> 8)
            }
            lumaTableBytes = bytes
        }
    }

    /// True when `count` bytes at `a` and at `b` do not overlap (a row may be stored mirrored from the other).
    private static func disjoint(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, _ count: Int) -> Bool {
        a + count <= b || b + count <= a
    }

    /// The sample (or chroma byte) in 16-bit lane `i` of the AVX-512 rows, which unpack 64 bytes to words
    /// within 128-bit lanes and pack them back the same way: in each group of 64, word j of the first vector
    /// is sample 16·(j / 8) + j % 8, of the second 16·(j / 8) + 8 + j % 8.
    private static func wideOrder(_ i: Int) -> Int {
        let group = i / 64 * 64, j = i % 32, second = i % 64 >= 32
        return group + 16 * (j / 8) + (second ? 8 : 0) + j % 8
    }

    private static func saturated(_ v: Double) -> Int16 { Int16(min(max(v.rounded(), -32768), 32767)) }

    deinit {
        lumaTable?.deallocate()
        lumaTableBytes?.deallocate()
        blockTable?.deallocate()
        lumaColumns?.deallocate()
        chromaColumns?.deallocate()
        lumaColumnsWide?.deallocate()
        chromaColumnsWide?.deallocate()
    }

    var isIdentity: Bool { lumaIdentity && chromaIdentity }

    /// Tabulates the vignette's column terms for this frame size; allocates only when the size changes.
    func prepare(width: Int, height: Int) {
        guard let gain, preparedSize != (width, height) else { return }
        preparedSize = (width, height)
        lumaColumns?.deallocate()
        chromaColumns?.deallocate()
        lumaColumnsWide?.deallocate()
        chromaColumnsWide?.deallocate()
        let k = gain.coefficient(width: width, height: height)
        coefficient = k
        let lumaCount = (width + 15) / 16 * 16 + 16
        let luma = UnsafeMutablePointer<Int16>.allocate(capacity: lumaCount)
        for x in 0..<lumaCount {
            let dx = Double(x) + 0.5 - Double(width) / 2
            luma[x] = Self.q15(k * dx * dx)
        }
        let chromaCount = lumaCount
        let chroma = UnsafeMutablePointer<Int16>.allocate(capacity: chromaCount)
        for i in 0..<chromaCount {
            let dx = Double(2 * (i / 2) + 1) - Double(width) / 2
            chroma[i] = Self.q15(k * dx * dx)
        }
        lumaColumns = luma
        chromaColumns = chroma
        lumaRowTerms = (0..<height).map { rowTerm(Double($0) + 0.5 - Double(height) / 2) }
        chromaRowTerms = (0..<((height + 1) / 2)).map { Self.chromaRowTerm($0, height, k) }
        // Chroma's byte index i holds pair i / 2 (Cb and Cr share a term); pairs cover the luma width rounded up.
        let wideCount = (width + 1 + 63) / 64 * 64
        let lumaWide = UnsafeMutablePointer<Int16>.allocate(capacity: wideCount)
        let chromaWide = UnsafeMutablePointer<Int16>.allocate(capacity: wideCount)
        for i in 0..<wideCount {
            let x = Self.wideOrder(i)
            lumaWide[i] = Self.q15(k * (Double(x) + 0.5 - Double(width) / 2) * (Double(x) + 0.5 - Double(width) / 2))
            let dx = Double(2 * (x / 2) + 1) - Double(width) / 2
            chromaWide[i] = Self.q15(k * dx * dx)
        }
        lumaColumnsWide = lumaWide
        chromaColumnsWide = chromaWide
    }

    private static func q15(_ v: Double) -> Int16 { Int16(min(max((v * 32768).rounded(), 0), 32767)) }

    /// Q15 `1 − k·dy²`, clamped to 0...1, so `row − column` never overflows.
    private func rowTerm(_ dy: Double) -> Int16 {
        Self.q15(1 - coefficient * dy * dy)
    }

    /// Luma row `row`'s term, from the table when the frame is the prepared size.
    private func lumaRowTerm(_ row: Int, height: Int) -> I16x8 {
        I16x8(repeating: height == preparedSize.1 ? lumaRowTerms[row] : rowTerm(Double(row) + 0.5 - Double(height) / 2))
    }

    /// Chroma row `crow`'s term: at the centre of its luma rows (one at the bottom of an odd height).
    private func chromaRowTerm(_ crow: Int, height: Int) -> I16x8 {
        I16x8(repeating: height == preparedSize.1 ? chromaRowTerms[crow] : Self.chromaRowTerm(crow, height, coefficient))
    }

    private static func chromaRowTerm(_ crow: Int, _ height: Int, _ k: Double) -> Int16 {
        let dy = Double(2 * crow) + Double(min(2, height - 2 * crow)) / 2 - Double(height) / 2
        return q15(1 - k * dy * dy)
    }

    /// Processes luma rows `rows` (starting on an even row) and the chroma rows they cover.
    ///
    /// With `mirror` (scratch of 4 × width bytes) the frame is also mirrored: in place each output row is written
    /// to the scratch and reversed into place while it is in L1; into another frame the AVX-512 rows store their
    /// groups mirrored themselves and only a row's end goes through the scratch. So a mirror in the chain costs no
    /// pass of its own. (The gain is symmetric, so mirroring after it is mirroring before.)
    func run(source: Frame, destination: Frame, rows: Range<Int>, mirror: UnsafeMutableRawPointer? = nil) {
        if source.format == .nv12 {
            let s = source.planes[1], d = destination.planes[1]
            run(InterleavedChroma(source: s.base, sourceStride: s.stride, destination: d.base, destinationStride: d.stride),
                source, destination, rows, mirror)
        } else {
            let su = source.planes[1], sv = source.planes[2], du = destination.planes[1], dv = destination.planes[2]
            run(PlanarChroma(u: su.base, uStride: su.stride, v: sv.base, vStride: sv.stride,
                             du: du.base, duStride: du.stride, dv: dv.base, dvStride: dv.stride),
                source, destination, rows, mirror)
        }
    }

    private func run<Chroma: ChromaRows>(_ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
                                         _ mirror: UnsafeMutableRawPointer?) {
        if lumaTable != nil {
            run(chroma, source, destination, rows, mirror, On.self)
        } else {
            run(chroma, source, destination, rows, mirror, Off.self)
        }
    }

    private func run<Chroma: ChromaRows, Curve: Flag>(_ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
                                                      _ mirror: UnsafeMutableRawPointer?, _: Curve.Type) {
        switch (gain != nil, crossChroma) {
        case (false, false): run(chroma, source, destination, rows, mirror, Off.self, Off.self, Curve.self)
        case (false, true): run(chroma, source, destination, rows, mirror, Off.self, On.self, Curve.self)
        case (true, false): run(chroma, source, destination, rows, mirror, On.self, Off.self, Curve.self)
        case (true, true): run(chroma, source, destination, rows, mirror, On.self, On.self, Curve.self)
        }
    }

    private func run<Chroma: ChromaRows, Gain: Flag, Cross: Flag, Curve: Flag>(
        _ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>, _ mirror: UnsafeMutableRawPointer?,
        _: Gain.Type, _: Cross.Type, _: Curve.Type
    ) {
        let width = source.width, height = source.height
        let chromaWidth = (width + 1) / 2
        let chromaRows = (rows.lowerBound / 2)..<((rows.upperBound + 1) / 2)
        let sy = source.planes[0], dy = destination.planes[0]
        let sameY = sy.base == dy.base && sy.stride == dy.stride
        let sameC = source.isSameMemory(as: destination)
        let lumaColumns = lumaColumns ?? UnsafeMutablePointer(bitPattern: 64)!
        let chromaColumns = chromaColumns ?? UnsafeMutablePointer(bitPattern: 64)!
        withUnsafePointer(to: constants) { c in
            // Without a curve the tables are never read.
            let lumaBlock = LumaBlock<Gain, Curve>(c: c, columns: lumaColumns, wideColumns: lumaColumnsWide,
                                                   table: lumaTable ?? UnsafeMutablePointer(bitPattern: 64)!, tableBytes: lumaTableBytes)
            let blockTable = blockTable ?? UnsafeMutablePointer(bitPattern: 64)!
            let chromaBlock = ChromaBlock<Gain, Cross>(c: c, columns: chromaColumns, wideColumns: chromaColumnsWide)
            if mixed {
                for crow in chromaRows {
                    let row0 = 2 * crow, row1 = min(2 * crow + 1, height - 1)
                    let r0 = Gain.on ? lumaRowTerm(row0, height: height) : .zero
                    let r1 = Gain.on ? lumaRowTerm(row1, height: height) : .zero
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    let d0 = dy.base + row0 * dy.stride, d1 = dy.base + row1 * dy.stride
                    guard let mirror else {
                        Self.jointRows(kernels, sy.base + row0 * sy.stride, d0, sy.base + row1 * sy.stride, d1,
                                       chroma, crow, width, chromaWidth, r0, r1, rc, lumaBlock, chromaBlock, blockTable, c)
                        continue
                    }
                    Self.jointRows(kernels, sy.base + row0 * sy.stride, mirror, sy.base + row1 * sy.stride, mirror + width,
                                   chroma.redirected(to: mirror + 2 * width, chromaWidth), crow, width, chromaWidth, r0, r1, rc,
                                   lumaBlock, chromaBlock, blockTable, c)
                    MirrorFlipKernel.reverse(mirror, d0, bytes: width, size: 1, kernels)
                    MirrorFlipKernel.reverse(mirror + width, d1, bytes: width, size: 1, kernels)
                    chroma.reverse(crow, from: mirror + 2 * width, chromaWidth, skipping: 0, kernels)
                }
                return
            }
            for row in rows {
                let s = (sy.base + row * sy.stride).assumingMemoryBound(to: UInt8.self)
                let d = (dy.base + row * dy.stride).assumingMemoryBound(to: UInt8.self)
                if let mirror {
                    // The identity maps compute exactly (a00 = 1 is 4096 in Q12), so they need no copy of their own here.
                    // Into another frame the wide path stores mirrored itself and only the row's end goes through the scratch.
                    let r = Gain.on ? lumaRowTerm(row, height: height) : .zero
                    Self.lumaRow(kernels, s, mirror.assumingMemoryBound(to: UInt8.self), width, r, lumaBlock, mirroredInto: d)
                } else if lumaIdentity {
                    if !sameY { d.update(from: s, count: width) }
                } else {
                    let r = Gain.on ? lumaRowTerm(row, height: height) : .zero
                    Self.lumaRow(kernels, s, d, width, r, lumaBlock)
                }
            }
            for crow in chromaRows {
                if let mirror {
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    Self.chromaRow(kernels, chroma.redirected(to: mirror, chromaWidth), crow, chromaWidth, rc, chromaBlock, mirroredInto: chroma)
                } else if chromaIdentity {
                    if !sameC { chroma.copy(crow, chromaWidth) }
                } else {
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    Self.chromaRow(kernels, chroma, crow, chromaWidth, rc, chromaBlock)
                }
            }
        }
    }

    /// One luma row from `s` to `d`. With `final`, `d` is a row of scratch and the row ends up mirrored in
    /// `final`: stored there reversed by the wide path when `final` does not overlap `s`, the rest reversed from `d`.
    private static func lumaRow<Gain: Flag, Curve: Flag>(_ kernels: KernelSet, _ s: UnsafeMutablePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int,
                                                         _ row: I16x8, _ block: LumaBlock<Gain, Curve>,
                                                         mirroredInto final: UnsafeMutablePointer<UInt8>? = nil) {
        let k = block.c.pointee
        let constant = (k.lumaConstant, k.lumaConstant)
        let direct = final.map { disjoint($0, s, width) } ?? false
        var x = kernels.yuv420Luma(s, (direct ? final : nil) ?? d, width: width, table: block.tableBytes, scale: k.lumaScale[0], constant: k.lumaConstant[0],
                                    bias: k.lumaBias[0], columns: Gain.on ? block.wideColumns : nil, row: row[0], mirrored: direct)
        let done = direct ? x : 0
        defer { if let final { MirrorFlipKernel.reverse(d + done, final, bytes: width - done, size: 1, kernels) } }
        while x &+ 16 <= width {
            let y = UnsafeRawPointer(s + x).loadUnaligned(as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(d + x).storeBytes(of: block.apply(y, constant, x, row), as: SIMD16<UInt8>.self)
            x &+= 16
        }
        if x < width {
            let count = width - x
            var y = SIMD16<UInt8>.zero
            withUnsafeMutableBytes(of: &y) { $0.baseAddress!.copyMemory(from: s + x, byteCount: count) }
            let out = block.apply(y, constant, x, row)
            withUnsafeBytes(of: out) { d.advanced(by: x).update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count) }
        }
    }

    /// One chroma row. With `final`, `chroma` writes to scratch (`redirected`) and the row ends up mirrored in
    /// `final`'s destination: stored there reversed by the wide path when that does not overlap the source, the rest
    /// reversed from the scratch.
    private static func chromaRow<Chroma: ChromaRows, Gain: Flag, Cross: Flag>(_ kernels: KernelSet, _ chroma: Chroma, _ crow: Int, _ chromaWidth: Int,
                                                                             _ row: I16x8, _ block: ChromaBlock<Gain, Cross>,
                                                                             mirroredInto final: Chroma? = nil) {
        let rows = chroma.rows(crow)
        let k = block.c.pointee
        let p = rows.pointers
        let target = final?.rows(crow).pointers
        let direct = target.map { t in
            guard let dv = t.dv, let v = t.v else { return disjoint(t.du, t.u, 2 * chromaWidth) }
            return disjoint(t.du, t.u, chromaWidth) && disjoint(dv, v, chromaWidth)
        } ?? false
        let out = (direct ? target : nil) ?? p
        var cx = kernels.yuv420Chroma(p.u, p.v, out.du, out.dv, pairs: chromaWidth,
                                       diagonal: pair(k.chromaDiagonal), cross: Cross.on ? pair(k.chromaCross) : nil,
                                       constant: pair(k.chromaConstant), bias: pair(k.chromaBias),
                                       columns: Gain.on ? block.wideColumns : nil, row: row[0], mirrored: direct)
        let done = direct ? cx : 0
        defer { final?.reverse(crow, from: chroma.scratch, chromaWidth, skipping: done, kernels) }
        while cx &+ 8 <= chromaWidth {
            rows.store(block.apply(rows.load(cx), (.zero, .zero), cx, row, mixed: false), cx)
            cx &+= 8
        }
        if cx < chromaWidth {
            let count = chromaWidth - cx
            rows.storePartial(block.apply(rows.loadPartial(cx, count), (.zero, .zero), cx, row, mixed: false), cx, count)
        }
    }

    /// Two luma rows and their chroma row; `row1` may be `row0` (odd height), and is then written twice with the same values.
    private static func jointRows<Chroma: ChromaRows, Gain: Flag, Cross: Flag, Curve: Flag>(
        _ kernels: KernelSet, _ s0: UnsafeMutableRawPointer, _ d0: UnsafeMutableRawPointer, _ s1: UnsafeMutableRawPointer, _ d1: UnsafeMutableRawPointer,
        _ chroma: Chroma, _ crow: Int, _ width: Int, _ chromaWidth: Int, _ r0: I16x8, _ r1: I16x8, _ rc: I16x8,
        _ luma: LumaBlock<Gain, Curve>, _ block: ChromaBlock<Gain, Cross>, _ blockTable: UnsafeMutablePointer<Int16>,
        _ c: UnsafePointer<Constants>
    ) {
        let rows = chroma.rows(crow)
        let fromChroma = c.pointee.lumaFromChroma, constant32 = c.pointee.lumaConstant32
        let ones = I16x8(repeating: 1)
        @inline(__always) func step(_ y0: SIMD16<UInt8>, _ y1: SIMD16<UInt8>, _ uv: SIMD16<UInt8>, _ x: Int)
            -> (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>) {
            let (ul, uh) = widenCentred(uv)
            // Each chroma pair's contribution to its four luma samples, in both 16-bit halves of a 32-bit lane.
            @inline(__always) func spread(_ centred: I16x8) -> I16x8 {
                let p = (multiplyAdd(centred &>> 8, fromChroma) &+ constant32) &>> 8
                return unsafeBitCast((p & 0xFFFF) | (p &<< 16), to: I16x8.self)
            }
            // The sum of the block's four luma samples, ×32, in both halves: the chroma side reads it as mean·128.
            let (a0, a1) = widen(y0), (b0, b1) = widen(y1)
            @inline(__always) func sum(_ a: I16x8, _ b: I16x8) -> I16x8 {
                let p = multiplyAdd(a &+ b, ones)
                if Curve.on {
                    // The curve acts on the block's mean, as in the general path: a table on the sum.
                    let t = (blockTable[Int(p[0])], blockTable[Int(p[1])], blockTable[Int(p[2])], blockTable[Int(p[3])])
                    return I16x8(t.0, t.0, t.1, t.1, t.2, t.2, t.3, t.3)
                }
                return unsafeBitCast((p &<< 5) | (p &<< 21), to: I16x8.self)
            }
            let d = (spread(ul), spread(uh))
            return (luma.apply(y0, d, x, r0), luma.apply(y1, d, x, r1),
                    block.apply(uv, (sum(a0, b0), sum(a1, b1)), x / 2, rc, mixed: true))
        }
        var x = 0
        if !Curve.on {
            // The chroma side's curve is a table on the block sum, which the 64-byte rows do not read.
            let k = c.pointee, p = rows.pointers
            x = kernels.yuv420Joint(s0.assumingMemoryBound(to: UInt8.self), d0.assumingMemoryBound(to: UInt8.self),
                                     s1.assumingMemoryBound(to: UInt8.self), d1.assumingMemoryBound(to: UInt8.self), p.u, p.v, p.du, p.dv,
                                     width: width, luma: (k.lumaScale[0], k.lumaBias[0], Gain.on ? UnsafePointer(luma.columns) : nil, r0[0], r1[0]),
                                     chroma: (pair(k.chromaDiagonal), Cross.on ? pair(k.chromaCross) : nil, pair(k.chromaConstant), pair(k.chromaBias),
                                              Gain.on ? UnsafePointer(block.columns) : nil, rc[0]),
                                     mixing: (pair(k.lumaFromChroma), k.lumaConstant32[0], pair(k.chromaFromLuma)))
        }
        while x &+ 16 <= width {
            let y0 = UnsafeRawPointer(s0 + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let y1 = UnsafeRawPointer(s1 + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let out = step(y0, y1, rows.load(x / 2), x)
            (d0 + x).storeBytes(of: out.0, as: SIMD16<UInt8>.self)
            (d1 + x).storeBytes(of: out.1, as: SIMD16<UInt8>.self)
            rows.store(out.2, x / 2)
            x &+= 16
        }
        guard x < width else { return }
        // The tail: luma padded with its last sample, so a lone column's block mean is that sample.
        let count = width - x, pairs = chromaWidth - x / 2
        func padded(_ p: UnsafeMutableRawPointer) -> SIMD16<UInt8> {
            var v = SIMD16<UInt8>(repeating: p.load(fromByteOffset: x + count - 1, as: UInt8.self))
            withUnsafeMutableBytes(of: &v) { $0.baseAddress!.copyMemory(from: p + x, byteCount: count) }
            return v
        }
        let out = step(padded(s0), padded(s1), rows.loadPartial(x / 2, pairs), x)
        withUnsafeBytes(of: out.0) { (d0 + x).copyMemory(from: $0.baseAddress!, byteCount: count) }
        withUnsafeBytes(of: out.1) { (d1 + x).copyMemory(from: $0.baseAddress!, byteCount: count) }
        rows.storePartial(out.2, x / 2, pairs)
    }

    /// Sixteen luma samples: `Y' = zero + gain·(a00·(C(Y) − 128) + D)`, D per column (constant or from chroma), C the curve.
    private struct LumaBlock<Gain: Flag, Curve: Flag> {
        let c: UnsafePointer<Constants>
        let columns: UnsafeMutablePointer<Int16>
        /// `columns` for the AVX-512 row (its lane order); nil without a vignette.
        let wideColumns: UnsafeMutablePointer<Int16>?
        let table: UnsafeMutablePointer<Int16>
        let tableBytes: UnsafeMutablePointer<UInt8>?

        @inline(__always)
        func apply(_ y: SIMD16<UInt8>, _ d: (I16x8, I16x8), _ x: Int, _ row: I16x8) -> SIMD16<UInt8> {
            let scale = c.pointee.lumaScale, bias = c.pointee.lumaBias
            var (lo, hi) = Curve.on ? (I16x8(), I16x8()) : widenCentred(y)
            if Curve.on {
                for i in 0..<8 {
                    lo[i] = table[Int(y[i])]
                    hi[i] = table[Int(y[i &+ 8])]
                }
            }
            var tl = mulHigh(lo, scale) &+ d.0, th = mulHigh(hi, scale) &+ d.1
            if Gain.on {
                let cl = UnsafeRawPointer(columns + x).loadUnaligned(as: I16x8.self)
                let ch = UnsafeRawPointer(columns + x + 8).loadUnaligned(as: I16x8.self)
                tl = mulHigh(tl, gainTerm(row, cl, c.pointee.opaqueZero))
                th = mulHigh(th, gainTerm(row, ch, c.pointee.opaqueZero))
                return packSaturated((tl &+ bias) &>> 3, (th &+ bias) &>> 3)
            }
            return packSaturated((tl &+ bias) &>> 4, (th &+ bias) &>> 4)
        }
    }

    /// Eight chroma pairs, interleaved Cb, Cr: the 2×2 map, luma term when mixed, then the gain about 128.
    private struct ChromaBlock<Gain: Flag, Cross: Flag> {
        let c: UnsafePointer<Constants>
        let columns: UnsafeMutablePointer<Int16>
        /// `columns` for the AVX-512 row (its lane order); nil without a vignette.
        let wideColumns: UnsafeMutablePointer<Int16>?

        @inline(__always)
        func apply(_ uv: SIMD16<UInt8>, _ lumaSum: (I16x8, I16x8), _ cx: Int, _ row: I16x8, mixed: Bool) -> SIMD16<UInt8> {
            let k = c.pointee
            let (lo, hi) = widenCentred(uv)
            var tl = mulHigh(lo, k.chromaDiagonal) &+ k.chromaConstant
            var th = mulHigh(hi, k.chromaDiagonal) &+ k.chromaConstant
            if Cross.on {
                tl &+= mulHigh(swapPairs(lo), k.chromaCross)
                th &+= mulHigh(swapPairs(hi), k.chromaCross)
            }
            if mixed {
                tl &+= mulHigh(lumaSum.0, k.chromaFromLuma)
                th &+= mulHigh(lumaSum.1, k.chromaFromLuma)
            }
            if Gain.on {
                let cl = UnsafeRawPointer(columns + 2 * cx).loadUnaligned(as: I16x8.self)
                let ch = UnsafeRawPointer(columns + 2 * cx + 8).loadUnaligned(as: I16x8.self)
                tl = mulHigh(tl, gainTerm(row, cl, c.pointee.opaqueZero))
                th = mulHigh(th, gainTerm(row, ch, c.pointee.opaqueZero))
                return packSaturated((tl &+ k.chromaBias) &>> 3, (th &+ k.chromaBias) &>> 3)
            }
            return packSaturated((tl &+ k.chromaBias) &>> 4, (th &+ k.chromaBias) &>> 4)
        }
    }
}

/// Lanes 0 and 1 (a Cb, Cr pair of constants) packed in 32 bits, Cb low: how the 64-byte rows take them.
private func pair(_ v: I16x8) -> UInt32 { UInt32(UInt16(bitPattern: v[0])) | UInt32(UInt16(bitPattern: v[1])) << 16 }

@inline(__always)
private func swapPairs(_ x: I16x8) -> I16x8 { I16x8(x[1], x[0], x[3], x[2], x[5], x[4], x[7], x[6]) }

/// A compile-time switch for generic specialization: each combination gets its own loop.
protocol Flag { static var on: Bool { get } }
enum On: Flag { static var on: Bool { true } }
enum Off: Flag { static var on: Bool { false } }

/// Chroma of a 4:2:0 frame seen as rows of interleaved (Cb, Cr) byte pairs.
protocol ChromaRows {
    associatedtype Row: ChromaRow
    func rows(_ crow: Int) -> Row
    /// Copies `count` pairs of row `crow` from source to destination.
    func copy(_ crow: Int, _ count: Int)
    /// The same source rows, every row written to `buffer` (room for `count` pairs).
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self
    /// Writes pairs `first..<count` of `buffer` (as `redirected` left `count` pairs) to row `crow` of the destination, in
    /// reverse order, as the first `count − first` pairs: a mirrored row whose other pairs are already there.
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet)
    /// Where a redirected row's pairs go (the destination's first row otherwise).
    var scratch: UnsafeRawPointer { get }
}

/// One chroma row: eight pairs per load or store.
protocol ChromaRow {
    func load(_ cx: Int) -> SIMD16<UInt8>
    func store(_ v: SIMD16<UInt8>, _ cx: Int)
    func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8>
    func storePartial(_ v: SIMD16<UInt8>, _ cx: Int, _ count: Int)
    /// The row's first bytes (source, destination): Cb and Cr interleaved in `u`, `du` (NV12, `v` and `dv` nil) or apart (I420).
    var pointers: (u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?) { get }
}

/// NV12: the pairs are already interleaved in one plane.
struct InterleavedChroma: ChromaRows {
    let source: UnsafeMutableRawPointer, sourceStride: Int
    let destination: UnsafeMutableRawPointer, destinationStride: Int

    struct Row: ChromaRow {
        let s: UnsafeMutableRawPointer, d: UnsafeMutableRawPointer
        var pointers: (u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?) {
            (s.assumingMemoryBound(to: UInt8.self), nil, d.assumingMemoryBound(to: UInt8.self), nil)
        }
        @inline(__always) func load(_ cx: Int) -> SIMD16<UInt8> { UnsafeRawPointer(s + 2 * cx).loadUnaligned(as: SIMD16<UInt8>.self) }
        @inline(__always) func store(_ v: SIMD16<UInt8>, _ cx: Int) { (d + 2 * cx).storeBytes(of: v, as: SIMD16<UInt8>.self) }
        @inline(__always) func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8> {
            var v = SIMD16<UInt8>.zero
            withUnsafeMutableBytes(of: &v) { $0.baseAddress!.copyMemory(from: s + 2 * cx, byteCount: 2 * count) }
            return v
        }
        @inline(__always) func storePartial(_ v: SIMD16<UInt8>, _ cx: Int, _ count: Int) {
            withUnsafeBytes(of: v) { (d + 2 * cx).copyMemory(from: $0.baseAddress!, byteCount: 2 * count) }
        }
    }

    @inline(__always) func rows(_ crow: Int) -> Row { Row(s: source + crow * sourceStride, d: destination + crow * destinationStride) }
    func copy(_ crow: Int, _ count: Int) {
        (destination + crow * destinationStride).copyMemory(from: source + crow * sourceStride, byteCount: 2 * count)
    }
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self {
        InterleavedChroma(source: source, sourceStride: sourceStride, destination: buffer, destinationStride: 0)
    }
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet) {
        MirrorFlipKernel.reverse(buffer + 2 * first, destination + crow * destinationStride, bytes: 2 * (count - first), size: 2, kernels)
    }
    var scratch: UnsafeRawPointer { UnsafeRawPointer(destination) }
}

/// I420: Cb and Cr planes, interleaved in registers on load and split again on store.
struct PlanarChroma: ChromaRows {
    let u: UnsafeMutableRawPointer, uStride: Int
    let v: UnsafeMutableRawPointer, vStride: Int
    let du: UnsafeMutableRawPointer, duStride: Int
    let dv: UnsafeMutableRawPointer, dvStride: Int

    struct Row: ChromaRow {
        let u: UnsafeMutableRawPointer, v: UnsafeMutableRawPointer
        let du: UnsafeMutableRawPointer, dv: UnsafeMutableRawPointer
        var pointers: (u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?) {
            (u.assumingMemoryBound(to: UInt8.self), v.assumingMemoryBound(to: UInt8.self),
             du.assumingMemoryBound(to: UInt8.self), dv.assumingMemoryBound(to: UInt8.self))
        }
        @inline(__always) func load(_ cx: Int) -> SIMD16<UInt8> {
            zip(UnsafeRawPointer(u + cx).loadUnaligned(as: SIMD8<UInt8>.self), UnsafeRawPointer(v + cx).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        @inline(__always) func store(_ x: SIMD16<UInt8>, _ cx: Int) {
            (du + cx).storeBytes(of: x.evenHalf, as: SIMD8<UInt8>.self)
            (dv + cx).storeBytes(of: x.oddHalf, as: SIMD8<UInt8>.self)
        }
        @inline(__always) func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8> {
            var a = SIMD8<UInt8>.zero, b = SIMD8<UInt8>.zero
            withUnsafeMutableBytes(of: &a) { $0.baseAddress!.copyMemory(from: u + cx, byteCount: count) }
            withUnsafeMutableBytes(of: &b) { $0.baseAddress!.copyMemory(from: v + cx, byteCount: count) }
            return zip(a, b)
        }
        @inline(__always) func storePartial(_ x: SIMD16<UInt8>, _ cx: Int, _ count: Int) {
            withUnsafeBytes(of: x.evenHalf) { (du + cx).copyMemory(from: $0.baseAddress!, byteCount: count) }
            withUnsafeBytes(of: x.oddHalf) { (dv + cx).copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
        @inline(__always) private func zip(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
            SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
        }
    }

    @inline(__always) func rows(_ crow: Int) -> Row {
        Row(u: u + crow * uStride, v: v + crow * vStride, du: du + crow * duStride, dv: dv + crow * dvStride)
    }
    func copy(_ crow: Int, _ count: Int) {
        (du + crow * duStride).copyMemory(from: u + crow * uStride, byteCount: count)
        (dv + crow * dvStride).copyMemory(from: v + crow * vStride, byteCount: count)
    }
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self {
        PlanarChroma(u: u, uStride: uStride, v: v, vStride: vStride, du: buffer, duStride: 0, dv: buffer + count, dvStride: 0)
    }
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet) {
        MirrorFlipKernel.reverse(buffer + first, du + crow * duStride, bytes: count - first, size: 1, kernels)
        MirrorFlipKernel.reverse(buffer + count + first, dv + crow * dvStride, bytes: count - first, size: 1, kernels)
    }
    var scratch: UnsafeRawPointer { UnsafeRawPointer(du) }
}
