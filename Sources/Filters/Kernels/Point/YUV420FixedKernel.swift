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
/// Here: the constants, the tables and the vignette's terms, made once per program and frame size. The row loops
/// over them are in YUV420FixedRows.swift, the NV12 and I420 chroma layouts in YUV420ChromaRows.swift.
final class YUV420FixedKernel {
    /// Lane patterns, stored as vectors so the multiplies stay 16-bit (see FixedPoint.swift).
    struct Constants {
        var lumaScale, lumaConstant, lumaFromChroma: I16x8
        var lumaConstant32: SIMD4<Int32>
        var chromaDiagonal, chromaCross, chromaFromLuma, chromaConstant, lumaBias, chromaBias: I16x8
        /// Zeros, for `gainTerm`.
        var opaqueZero: I16x8 = .zero
    }

    let constants: Constants
    /// `lumaIdentity`: Y' = Y, the Y plane is copied or left alone; `chromaIdentity`: Cb' = Cb and Cr' = Cr; `mixed`: luma
    /// depends on chroma or chroma on luma, the planes are done together, a row pair at a time; `crossChroma`: Cb'
    /// depends on Cr or Cr' on Cb.
    let lumaIdentity, chromaIdentity, mixed, crossChroma: Bool
    let gain: VignetteShape?
    /// The SIMD path its rows run on.
    let kernels: KernelSet

    var lumaColumns: UnsafeMutablePointer<Int16>?
    var chromaColumns: UnsafeMutablePointer<Int16>?
    /// The same column terms in the AVX-512 rows' lane order (`wideOrder`), whole groups of 64.
    var lumaColumnsWide: UnsafeMutablePointer<Int16>?
    var chromaColumnsWide: UnsafeMutablePointer<Int16>?
    private var coefficient = 0.0
    private var preparedSize = (0, 0)
    /// The gain's Q15 row terms of every luma row and every chroma row (its two luma rows' centre) for `preparedSize`.
    private var lumaRowTerms: [Int16] = [], chromaRowTerms: [Int16] = []

    /// Y code → the luma after the leading curves, as `(Y − 128)·256` (what `widenCentred` gives).
    let lumaTable: UnsafeMutablePointer<Int16>?
    /// For the AVX-512 path's byte permutes, `lumaTable` with the scale and constant applied
    /// (`mulHigh(t, a00) + k0`, the block's first two operations, so the same values): the 256 low bytes,
    /// then the 256 high bytes.
    var lumaTableBytes: UnsafeMutablePointer<UInt8>?
    /// Sum of a 2×2 block's luma codes (0...1020) → the curved block mean ×128: chroma's luma term.
    let blockTable: UnsafeMutablePointer<Int16>?

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
        var separable = Affine3.identity
        var lumaMaps: [(Double) -> Double] = []
        for step in steps[..<((lastCurve ?? -1) + 1)] {
            switch step {
            case let .affine(rgb):
                let m = rgb.inYCbCr(color)
                guard [m.m[1], m.m[2], m.m[3], m.m[6]].allSatisfy({ abs($0) < 1e-9 }) else { return nil }
                let (scale, offset) = (m.m[0], m.o[0])
                lumaMaps.append { scale * $0 + offset }
                separable = separable.then(Affine3(m: [1, 0, 0, 0, m.m[4], m.m[5], 0, m.m[7], m.m[8]], o: [0, m.o[1], m.o[2]]))
            case let .curve(f):
                // As the general path: the input rounded to 1/255, the output clamped to 0...1.
                lumaMaps.append { clampUnit(f(Double(clampByte($0 * 255)) / 255)) }
            case .vignette, .lut3D:
                return nil
            }
        }
        guard
            let (a, shape, after) = PointProgram.foldAffine(
                steps[((lastCurve ?? -1) + 1)...], after: separable, space: { $0.inYCbCr(color) })
        else { return nil }
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
        chromaIdentity =
            shape == nil && abs(a11 - 1) < tiny && abs(a22 - 1) < tiny && abs(a12) < tiny && abs(a21) < tiny
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
        // Luma column x is at x + 0.5; chroma byte i holds pair i / 2 (Cb and Cr share a term), centred on luma 2·(i / 2) + 1.
        func lumaDx(_ x: Int) -> Double { Double(x) + 0.5 - Double(width) / 2 }
        func chromaDx(_ i: Int) -> Double { Double(2 * (i / 2) + 1) - Double(width) / 2 }
        let count = (width + 15) / 16 * 16 + 16
        lumaColumns = VignetteShape.columnTerms(count, k: k, dx: lumaDx)
        chromaColumns = VignetteShape.columnTerms(count, k: k, dx: chromaDx)
        lumaRowTerms = (0..<height).map { rowTerm(Double($0) + 0.5 - Double(height) / 2) }
        chromaRowTerms = (0..<((height + 1) / 2)).map { Self.chromaRowTerm($0, height, k) }
        // Chroma's byte index i holds pair i / 2 (Cb and Cr share a term); pairs cover the luma width rounded up.
        let wideCount = (width + 1 + 63) / 64 * 64
        lumaColumnsWide = VignetteShape.columnTerms(wideCount, k: k) { lumaDx(Self.wideOrder($0)) }
        chromaColumnsWide = VignetteShape.columnTerms(wideCount, k: k) { chromaDx(Self.wideOrder($0)) }
    }

    /// Q15 `1 − k·dy²`, clamped to 0...1, so `row − column` never overflows.
    private func rowTerm(_ dy: Double) -> Int16 {
        q15(1 - coefficient * dy * dy)
    }

    /// Luma row `row`'s term, from the table when the frame is the prepared size.
    func lumaRowTerm(_ row: Int, height: Int) -> I16x8 {
        I16x8(repeating: height == preparedSize.1 ? lumaRowTerms[row] : rowTerm(Double(row) + 0.5 - Double(height) / 2))
    }

    /// Chroma row `crow`'s term: at the centre of its luma rows (one at the bottom of an odd height).
    func chromaRowTerm(_ crow: Int, height: Int) -> I16x8 {
        I16x8(repeating: height == preparedSize.1 ? chromaRowTerms[crow] : Self.chromaRowTerm(crow, height, coefficient))
    }

    private static func chromaRowTerm(_ crow: Int, _ height: Int, _ k: Double) -> Int16 {
        let dy = Double(2 * crow) + Double(min(2, height - 2 * crow)) / 2 - Double(height) / 2
        return q15(1 - k * dy * dy)
    }
}
