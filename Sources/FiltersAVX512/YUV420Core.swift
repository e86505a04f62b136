// Only in FiltersAVX512 (no baseline copy): the baseline path is YUV420FixedKernel's 16-sample blocks.
import _Builtin_intrinsics.intel

/// YUV420FixedKernel's luma and chroma rows 64 bytes a step in AVX-512BW, with the same integer operations
/// per 16-bit lane (so the same bytes); the curve's luma table is read with AVX-512 VBMI byte permutes
/// (`vpermi2b`: 128 table bytes a lookup) instead of one scalar load per sample.
///
/// Lanes: 64 bytes unpack to words in 128-bit-lane order and pack back the same way. The luma and chroma
/// rows stay in that order (`lanes`) and read column tables stored in it; the joint rows, where luma and
/// chroma lanes meet, put words in sample order with `vpermt2q` (`words`). Mirrored rows reverse the
/// packed bytes with one permute before the store.
package enum YUV420Core {
    /// One luma row's parameters: the Q12 scale, the constant (4 fraction bits), the bias (zero and
    /// rounding), the curve's table and the vignette's columns and row term.
    package struct Luma {
        /// 512 bytes: the low bytes of the 256 Int16 entries, then the high bytes; nil without a curve. The
        /// entries are the curve with the scale and constant applied (`mulHigh(t, scale) + constant`): with
        /// a table those two are not applied again.
        package var table: UnsafePointer<UInt8>?
        package var scale: Int16, constant: Int16, bias: Int16
        /// The Q15 column terms, in `lanes` order for `lumaRow` and in sample order for `jointRows`; nil without a vignette.
        package var columns: UnsafePointer<Int16>?
        package var row: Int16

        package init(table: UnsafePointer<UInt8>?, scale: Int16, constant: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row: Int16) {
            (self.table, self.scale, self.constant, self.bias, self.columns, self.row) = (table, scale, constant, bias, columns, row)
        }
    }

    /// One chroma row's parameters, each a (Cb, Cr) pair of Int16 packed in a UInt32 (Cb low).
    package struct Chroma {
        package var diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32
        /// Per chroma byte, in `lanes` order for `chromaRow` and in byte order for `jointRows`; nil without a vignette.
        package var columns: UnsafePointer<Int16>?
        package var row: Int16

        package init(diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16) {
            (self.diagonal, self.cross, self.constant, self.bias, self.columns, self.row) = (diagonal, cross, constant, bias, columns, row)
        }
    }

    /// The terms of rows where luma and chroma mix: luma's from its block's chroma (Q12 pair and the
    /// 32-bit constant, as `spread` in the baseline), chroma's from its block's luma sum (Q13 pair).
    package struct Mixing {
        package var fromChroma: UInt32, constant32: Int32, fromLuma: UInt32
        /// The second luma row's vignette row term.
        package var row1: Int16

        package init(fromChroma: UInt32, constant32: Int32, fromLuma: UInt32, row1: Int16) {
            (self.fromChroma, self.constant32, self.fromLuma, self.row1) = (fromChroma, constant32, fromLuma, row1)
        }
    }

    /// Two luma rows (`s1` may be `s0`) and their chroma row when luma and chroma mix (no curve), whole
    /// groups of 64 luma columns and 32 pairs; returns how many luma columns it did. `l.row` is the first
    /// row's term, `c.row` the chroma row's.
    package static func jointRows(
        _ s0: UnsafePointer<UInt8>, _ d0: UnsafeMutablePointer<UInt8>, _ s1: UnsafePointer<UInt8>,
        _ d1: UnsafeMutablePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?,
        _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?, width: Int,
        _ l: Luma, _ c: Chroma, _ m: Mixing
    ) -> Int {
        let rows = JointRows(s0: s0, d0: d0, s1: s1, d1: d1, u: u, v: v, du: du, dv: dv)
        switch (v != nil, c.cross != nil, c.columns != nil) {
        case (false, false, false): return joint(rows, width, l, c, m, planar: false, cross: false, gain: false)
        case (false, false, true): return joint(rows, width, l, c, m, planar: false, cross: false, gain: true)
        case (false, true, false): return joint(rows, width, l, c, m, planar: false, cross: true, gain: false)
        case (false, true, true): return joint(rows, width, l, c, m, planar: false, cross: true, gain: true)
        case (true, false, false): return joint(rows, width, l, c, m, planar: true, cross: false, gain: false)
        case (true, false, true): return joint(rows, width, l, c, m, planar: true, cross: false, gain: true)
        case (true, true, false): return joint(rows, width, l, c, m, planar: true, cross: true, gain: false)
        case (true, true, true): return joint(rows, width, l, c, m, planar: true, cross: true, gain: true)
        }
    }

    private struct JointRows {
        let s0: UnsafePointer<UInt8>, d0: UnsafeMutablePointer<UInt8>, s1: UnsafePointer<UInt8>, d1: UnsafeMutablePointer<UInt8>
        let u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?
    }

    @inline(__always)
    private static func joint(
        _ r: JointRows, _ width: Int, _ l: Luma, _ c: Chroma, _ m: Mixing, planar: Bool, cross: Bool, gain: Bool
    ) -> Int {
        @inline(__always) func splat(_ pair: UInt32) -> __m512i { _mm512_set1_epi32(Int32(bitPattern: pair)) }
        let scale = _mm512_set1_epi16(l.scale), lumaBias = _mm512_set1_epi16(l.bias)
        let row0 = _mm512_set1_epi16(l.row), row1 = _mm512_set1_epi16(m.row1), chromaRow = _mm512_set1_epi16(c.row)
        let fromChroma = splat(m.fromChroma), constant32 = _mm512_set1_epi32(m.constant32), fromLuma = splat(m.fromLuma)
        let diagonal = splat(c.diagonal), crossing = splat(c.cross ?? 0), constant = splat(c.constant), chromaBias = splat(c.bias)
        let centre = _mm512_set1_epi8(-128), zero = _mm512_setzero_si512(), ones = _mm512_set1_epi16(1)
        let low16 = _mm512_set1_epi32(0xFFFF), sixteen = _mm512_set1_epi32(16)
        let pairs = Pairs(u: r.u, v: r.v, du: r.du, dv: r.dv)
        var x = 0
        while x &+ 64 <= width {
            let y0 = _mm512_loadu_si512(UnsafeRawPointer(r.s0 + x)), y1 = _mm512_loadu_si512(UnsafeRawPointer(r.s1 + x))
            let (ca, cb) = words(zero, _mm512_xor_si512(pairs.load(x / 2, planar: planar), centre))
            // Each pair's term for its two luma columns, in both 16-bit halves of its 32-bit lane.
            @inline(__always) func spread(_ centred: __m512i) -> __m512i {
                let p = _mm512_srai_epi32(_mm512_add_epi32(_mm512_madd_epi16(_mm512_srai_epi16(centred, 8), fromChroma), constant32), 8)
                return _mm512_or_si512(_mm512_and_si512(p, low16), _mm512_slli_epi32(p, 16))
            }
            let (da, db) = (spread(ca), spread(cb))
            @inline(__always) func luma(_ y: __m512i, _ row: __m512i) -> __m512i {
                let (a, b) = words(zero, _mm512_xor_si512(y, centre))
                return bytes(
                    finish(_mm512_add_epi16(_mm512_mulhi_epi16(a, scale), da), l.columns, x, row, lumaBias, gain: gain),
                    finish(_mm512_add_epi16(_mm512_mulhi_epi16(b, scale), db), l.columns, x &+ 32, row, lumaBias, gain: gain))
            }
            // The block's four luma samples summed, ×32, in both halves: chroma reads it as mean·128.
            let (za0, zb0) = words(y0, zero), (za1, zb1) = words(y1, zero)
            @inline(__always) func sum(_ a: __m512i, _ b: __m512i) -> __m512i {
                let p = _mm512_madd_epi16(_mm512_add_epi16(a, b), ones)
                return _mm512_or_si512(_mm512_slli_epi32(p, 5), _mm512_slli_epi32(p, 21))
            }
            @inline(__always) func chroma(_ centred: __m512i, _ lumaSum: __m512i, _ at: Int) -> __m512i {
                var t = _mm512_add_epi16(_mm512_mulhi_epi16(centred, diagonal), constant)
                if cross { t = _mm512_add_epi16(t, _mm512_mulhi_epi16(_mm512_rolv_epi32(centred, sixteen), crossing)) }
                t = _mm512_add_epi16(t, _mm512_mulhi_epi16(lumaSum, fromLuma))
                return finish(t, c.columns, at, chromaRow, chromaBias, gain: gain)
            }
            let out0 = luma(y0, row0), out1 = luma(y1, row1)
            let outC = bytes(chroma(ca, sum(za0, za1), x), chroma(cb, sum(zb0, zb1), x &+ 32))
            _mm512_storeu_si512(UnsafeMutableRawPointer(r.d0 + x), out0)
            _mm512_storeu_si512(UnsafeMutableRawPointer(r.d1 + x), out1)
            pairs.store(outC, x / 2, planar: planar)
            x &+= 64
        }
        return x
    }

    /// A chroma row's 32 pairs at a time, interleaved in registers (Cb, Cr), from NV12's one plane or I420's two.
    private struct Pairs {
        let u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?
        /// Stores put pair x at `pairs − 1 − x` (the row's pair count); false for the joint rows.
        let mirrored: Bool, pairs: Int
        /// The store's permutes (NV12 mirrored: the pairs reversed; I420: Cb's and Cr's split), loaded once.
        let first: __m512i, second: __m512i, zip: __m512i

        init(
            u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?,
            mirrored: Bool = false, pairs: Int = 0
        ) {
            (self.u, self.v, self.du, self.dv, self.mirrored, self.pairs) = (u, v, du, dv, mirrored, pairs)
            zip = permute(.zip)
            if v == nil {
                (first, second) = (permute(.reversePairs), permute(.reversePairs))
            } else {
                (first, second) = mirrored ? (permute(.unzipUReversed), permute(.unzipVReversed)) : (permute(.unzipU), permute(.unzipV))
            }
        }

        @inline(__always) func load(_ cx: Int, planar: Bool) -> __m512i {
            guard planar, let v else { return _mm512_loadu_si512(UnsafeRawPointer(u + 2 * cx)) }
            @inline(__always) func half(_ p: UnsafePointer<UInt8>) -> __m512i {
                _mm512_castsi256_si512(_mm256_loadu_si256(UnsafeRawPointer(p + cx).assumingMemoryBound(to: __m256i.self)))
            }
            return _mm512_permutex2var_epi8(half(u), zip, half(v))
        }

        @inline(__always) func store(_ out: __m512i, _ cx: Int, planar: Bool) {
            // Mirrored, the 32 pairs land reversed where pair cx + 31 would go in the mirrored row.
            let at = mirrored ? pairs &- cx &- 32 : cx
            guard planar, let dv else {
                _mm512_storeu_si512(UnsafeMutableRawPointer(du + 2 * at), mirrored ? _mm512_permutexvar_epi8(first, out) : out)
                return
            }
            _mm256_storeu_si256(
                UnsafeMutableRawPointer(du + at).assumingMemoryBound(to: __m256i.self),
                _mm512_castsi512_si256(_mm512_permutexvar_epi8(first, out)))
            _mm256_storeu_si256(
                UnsafeMutableRawPointer(dv + at).assumingMemoryBound(to: __m256i.self),
                _mm512_castsi512_si256(_mm512_permutexvar_epi8(second, out)))
        }
    }

    /// Runs whole groups of 64 luma samples from `s` to `d`; returns how many samples it did. `mirrored`:
    /// sample x goes to `d[width − 1 − x]` (`d` must not be `s`'s memory).
    package static func lumaRow(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, width: Int, _ p: Luma, mirrored: Bool) -> Int {
        switch (p.table != nil, p.columns != nil) {
        case (false, false): luma(s, d, width, p, curve: false, gain: false, mirrored: mirrored)
        case (false, true): luma(s, d, width, p, curve: false, gain: true, mirrored: mirrored)
        case (true, false): luma(s, d, width, p, curve: true, gain: false, mirrored: mirrored)
        case (true, true): luma(s, d, width, p, curve: true, gain: true, mirrored: mirrored)
        }
    }

    /// Runs whole groups of 32 chroma pairs; returns how many pairs it did. `v`/`dv` nil: NV12, pairs
    /// interleaved in `u`/`du`; otherwise I420's two planes. `mirrored`: pair x goes to pair `pairs − 1 − x`
    /// of the destination (which must not be the source's memory).
    package static func chromaRow(
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>,
        _ dv: UnsafeMutablePointer<UInt8>?, pairs: Int, _ p: Chroma, mirrored: Bool
    ) -> Int {
        let rows = Pairs(u: u, v: v, du: du, dv: dv, mirrored: mirrored, pairs: pairs)
        // Chroma that does not depend on the input (sepia's, mono's: a constant, times the gain) is not read.
        if p.diagonal == 0 && p.cross == nil {
            return switch (v != nil, p.columns != nil) {
            case (false, false): chroma(rows, pairs, p, planar: false, cross: false, gain: false, input: false)
            case (false, true): chroma(rows, pairs, p, planar: false, cross: false, gain: true, input: false)
            case (true, false): chroma(rows, pairs, p, planar: true, cross: false, gain: false, input: false)
            case (true, true): chroma(rows, pairs, p, planar: true, cross: false, gain: true, input: false)
            }
        }
        return switch (v != nil, p.cross != nil, p.columns != nil) {
        case (false, false, false): chroma(rows, pairs, p, planar: false, cross: false, gain: false)
        case (false, false, true): chroma(rows, pairs, p, planar: false, cross: false, gain: true)
        case (false, true, false): chroma(rows, pairs, p, planar: false, cross: true, gain: false)
        case (false, true, true): chroma(rows, pairs, p, planar: false, cross: true, gain: true)
        case (true, false, false): chroma(rows, pairs, p, planar: true, cross: false, gain: false)
        case (true, false, true): chroma(rows, pairs, p, planar: true, cross: false, gain: true)
        case (true, true, false): chroma(rows, pairs, p, planar: true, cross: true, gain: false)
        case (true, true, true): chroma(rows, pairs, p, planar: true, cross: true, gain: true)
        }
    }

    /// I420's byte permutes: byte i of u and of v (the second table of a two-source permute) to bytes 2i
    /// and 2i + 1, and back (Cb to the low half; Cr to the low half of a second permute). Immediate-operand
    /// intrinsics (inserts, extracts) are C macros Swift does not import, hence permutes.
    /// Mirrored rows: the bytes reversed (luma), the pairs reversed (NV12), and I420's split reading the
    /// pairs from the last.
    private enum Permute: Int { case zip, unzipU, unzipV, reverseBytes, reversePairs, unzipUReversed, unzipVReversed }

    /// Built once: per row they would be an allocation.
    private static let permutes: [Int8] = {
        var bytes = [Int8](repeating: 0, count: 448)
        for i in 0..<32 {
            bytes[2 * i] = Int8(i)
            bytes[2 * i + 1] = Int8(64 + i)
            bytes[64 + i] = Int8(2 * i)
            bytes[128 + i] = Int8(2 * i + 1)
            bytes[256 + 2 * i] = Int8(2 * (31 - i))
            bytes[256 + 2 * i + 1] = Int8(2 * (31 - i) + 1)
            bytes[320 + i] = Int8(2 * (31 - i))
            bytes[384 + i] = Int8(2 * (31 - i) + 1)
        }
        for i in 0..<64 { bytes[192 + i] = Int8(63 - i) }
        return bytes
    }()

    @inline(__always)
    private static func permute(_ which: Permute) -> __m512i {
        permutes.withUnsafeBytes { _mm512_loadu_si512($0.baseAddress! + 64 * which.rawValue) }
    }

    /// Samples 0–31 and 32–63 of 64 bytes as words `low | high << 8` (what `widenCentred` or the table gives).
    @inline(__always)
    private static func words(_ low: __m512i, _ high: __m512i) -> (__m512i, __m512i) {
        let w0 = _mm512_unpacklo_epi8(low, high), w1 = _mm512_unpackhi_epi8(low, high)
        return (
            _mm512_permutex2var_epi64(w0, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), w1),
            _mm512_permutex2var_epi64(w0, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), w1)
        )
    }

    /// Words of samples 0–31 and 32–63 packed (unsigned saturation) back to 64 bytes in sample order.
    @inline(__always)
    private static func bytes(_ a: __m512i, _ b: __m512i) -> __m512i {
        _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), _mm512_packus_epi16(a, b))
    }

    /// 64 bytes as words within 128-bit lanes (`low | high << 8`): in each lane, bytes 0–7 to the first
    /// vector, 8–15 to the second. Where only a column table ties a lane to its sample (the luma and
    /// chroma rows), the table is stored in this order and no cross-lane permute is needed.
    @inline(__always)
    private static func lanes(_ low: __m512i, _ high: __m512i) -> (__m512i, __m512i) {
        (_mm512_unpacklo_epi8(low, high), _mm512_unpackhi_epi8(low, high))
    }

    /// `(mulHigh(t, max(0, row − column)) + bias) >> 3`, or `(t + bias) >> 4` without a gain.
    @inline(__always)
    private static func finish(
        _ t: __m512i, _ columns: UnsafePointer<Int16>?, _ at: Int, _ row: __m512i, _ bias: __m512i, gain: Bool
    ) -> __m512i {
        guard gain, let columns else { return _mm512_srai_epi16(_mm512_add_epi16(t, bias), 4) }
        let g = _mm512_max_epi16(_mm512_sub_epi16(row, _mm512_loadu_si512(UnsafeRawPointer(columns + at))), _mm512_setzero_si512())
        return _mm512_srai_epi16(_mm512_add_epi16(_mm512_mulhi_epi16(t, g), bias), 3)
    }

    @inline(__always)
    private static func luma(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int, _ p: Luma, curve: Bool, gain: Bool,
        mirrored: Bool
    ) -> Int {
        let reverse = permute(.reverseBytes)
        let scale = _mm512_set1_epi16(p.scale), constant = _mm512_set1_epi16(p.constant), bias = _mm512_set1_epi16(p.bias)
        let row = _mm512_set1_epi16(p.row), centre = _mm512_set1_epi8(-128), zero = _mm512_setzero_si512()
        let table = UnsafeRawPointer(p.table ?? UnsafePointer(bitPattern: 64)!)
        let l0 = curve ? _mm512_loadu_si512(table) : zero, l1 = curve ? _mm512_loadu_si512(table + 64) : zero
        let l2 = curve ? _mm512_loadu_si512(table + 128) : zero, l3 = curve ? _mm512_loadu_si512(table + 192) : zero
        let h0 = curve ? _mm512_loadu_si512(table + 256) : zero, h1 = curve ? _mm512_loadu_si512(table + 320) : zero
        let h2 = curve ? _mm512_loadu_si512(table + 384) : zero, h3 = curve ? _mm512_loadu_si512(table + 448) : zero
        var x = 0
        while x &+ 64 <= width {
            let y = _mm512_loadu_si512(UnsafeRawPointer(s + x))
            let (a, b): (__m512i, __m512i)
            if curve {
                // Index bit 7 picks the upper 128 entries.
                let upper = _mm512_movepi8_mask(y)
                let low = _mm512_mask_blend_epi8(upper, _mm512_permutex2var_epi8(l0, y, l1), _mm512_permutex2var_epi8(l2, y, l3))
                let high = _mm512_mask_blend_epi8(upper, _mm512_permutex2var_epi8(h0, y, h1), _mm512_permutex2var_epi8(h2, y, h3))
                (a, b) = lanes(low, high)
            } else {
                (a, b) = lanes(zero, _mm512_xor_si512(y, centre))
            }
            // The table holds the curve with the scale and constant applied.
            let ta = curve ? a : _mm512_add_epi16(_mm512_mulhi_epi16(a, scale), constant)
            let tb = curve ? b : _mm512_add_epi16(_mm512_mulhi_epi16(b, scale), constant)
            let out = _mm512_packus_epi16(
                finish(ta, p.columns, x, row, bias, gain: gain), finish(tb, p.columns, x &+ 32, row, bias, gain: gain))
            if mirrored {
                _mm512_storeu_si512(UnsafeMutableRawPointer(d + (width &- x &- 64)), _mm512_permutexvar_epi8(reverse, out))
            } else {
                _mm512_storeu_si512(UnsafeMutableRawPointer(d + x), out)
            }
            x &+= 64
        }
        return x
    }

    @inline(__always)
    private static func chroma(_ rows: Pairs, _ pairs: Int, _ p: Chroma, planar: Bool, cross: Bool, gain: Bool, input: Bool = true) -> Int {
        @inline(__always) func splat(_ pair: UInt32) -> __m512i { _mm512_set1_epi32(Int32(bitPattern: pair)) }
        let diagonal = splat(p.diagonal), crossing = splat(p.cross ?? 0), constant = splat(p.constant), bias = splat(p.bias)
        let row = _mm512_set1_epi16(p.row), centre = _mm512_set1_epi8(-128), zero = _mm512_setzero_si512()
        let sixteen = _mm512_set1_epi32(16)
        var cx = 0
        while cx &+ 32 <= pairs {
            let (a, b) = input ? lanes(zero, _mm512_xor_si512(rows.load(cx, planar: planar), centre)) : (zero, zero)
            @inline(__always) func map(_ c: __m512i, _ at: Int) -> __m512i {
                // Without input the product is zero: the constant alone.
                var t = input ? _mm512_add_epi16(_mm512_mulhi_epi16(c, diagonal), constant) : constant
                if cross { t = _mm512_add_epi16(t, _mm512_mulhi_epi16(_mm512_rolv_epi32(c, sixteen), crossing)) }
                return finish(t, p.columns, at, row, bias, gain: gain)
            }
            rows.store(_mm512_packus_epi16(map(a, 2 * cx), map(b, 2 * cx &+ 32)), cx, planar: planar)
            cx &+= 32
        }
        return cx
    }
}
