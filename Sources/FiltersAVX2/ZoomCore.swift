// Only in FiltersAVX2 (no baseline copy): the baseline path is ZoomKernel.blend's 8-sample loop.
import _Builtin_intrinsics.intel

/// Zoom's vertical blend 16 samples at a time, with ZoomKernel.blend's integer operations (same bytes).
package enum ZoomCore {
    /// d[i] = (a[i]·(256 − w) + b[i]·w + 2¹⁵) >> 16 for whole groups of 16; returns how many were done.
    /// Centred samples through pmaddwd, as in ZoomKernel.blend.
    package static func blend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight w: UInt32, count: Int,
        into d: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let weights = _mm256_set1_epi32(Int32(bitPattern: w << 16 | (256 &- w)))
        let flip = _mm256_set1_epi16(Int16(bitPattern: 0x8000))
        let bias = _mm256_set1_epi32((1 << 23) + (1 << 15))
        var i = 0
        while i &+ 16 <= count {
            let x = _mm256_xor_si256(_mm256_loadu_si256(UnsafeRawPointer(a + i).assumingMemoryBound(to: __m256i.self)), flip)
            let y = _mm256_xor_si256(_mm256_loadu_si256(UnsafeRawPointer(b + i).assumingMemoryBound(to: __m256i.self)), flip)
            // Per 128-bit half: unpacklo holds samples 0–3 (8–11), unpackhi 4–7 (12–15); packssdw puts them back in order.
            let lo = _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(x, y), weights), bias), 16)
            let hi = _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(x, y), weights), bias), 16)
            let words = unsafeBitCast(_mm256_packs_epi32(lo, hi), to: SIMD16<Int16>.self)
            let bytes = _mm_packus_epi16(unsafeBitCast(words.lowHalf, to: __m128i.self), unsafeBitCast(words.highHalf, to: __m128i.self))
            _mm_storeu_si128(UnsafeMutableRawPointer(d + i).assumingMemoryBound(to: __m128i.self), bytes)
            i &+= 16
        }
        return i
    }

    /// ZoomKernel's horizontal pass for 4-byte pixels, 4 output pixels a step: h[4x + c] = p[c]·(256 − w) + q[c]·w,
    /// p the source pixel x0 and q pixel min(x0 + 1, width − 1), `columns` holding (x0, w) per output pixel. The 4
    /// outputs' taps come from 8 source pixels loaded at once (one `vpermd` picks them), so a step needs its taps
    /// within 8 pixels of the first and inside the row: zooming in, all but a row's last few. Returns the pixels done
    /// (the caller finishes from there).
    package static func horizontal4(
        _ s: UnsafePointer<UInt8>, columns: UnsafePointer<Int32>, width: Int,
        into h: UnsafeMutablePointer<UInt16>
    ) -> Int {
        let duplicate = _mm256_setr_epi32(0, 0, 2, 2, 4, 4, 6, 6), odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1)
        let full = _mm256_set1_epi32(256)
        let even = _mm256_setr_epi32(1, 1, 1, 1, 5, 5, 5, 5), later = _mm256_setr_epi32(3, 3, 3, 3, 7, 7, 7, 7)
        // Per 128-bit half: pixel p's byte c beside pixel q's.
        let pairs = _mm256_setr_epi8(
            0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
            0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15)
        let zero = _mm256_setzero_si256()
        @inline(__always) func weights(_ w: __m256i) -> __m256i { _mm256_or_si256(_mm256_sub_epi32(full, w), _mm256_slli_epi32(w, 16)) }
        var x = 0
        while x &+ 4 <= width {
            let base = Int(columns[2 &* x])
            guard base &+ 8 <= width, Int(columns[2 &* x &+ 6]) &+ 1 &- base < 8 else { break }
            let c = _mm256_loadu_si256(UnsafeRawPointer(columns + 2 &* x).assumingMemoryBound(to: __m256i.self))
            // [p0, q0, p1, q1, p2, q2, p3, q3] as pixel indices from `base`; q = p + 1 needs no clamp here, since
            // the step's taps end before `base + 8 ≤ width`.
            let taps = _mm256_add_epi32(_mm256_permutevar8x32_epi32(c, duplicate), odd)
            let index = _mm256_sub_epi32(taps, _mm256_set1_epi32(Int32(base)))
            let source = _mm256_loadu_si256(UnsafeRawPointer(s + 4 &* base).assumingMemoryBound(to: __m256i.self))
            let t = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(source, index), pairs)
            // Low half: outputs 0 and 2 (one per 128-bit lane), high half: 1 and 3; (256 − w, w) per 32-bit lane.
            let low = _mm256_madd_epi16(_mm256_unpacklo_epi8(t, zero), weights(_mm256_permutevar8x32_epi32(c, even)))
            let high = _mm256_madd_epi16(_mm256_unpackhi_epi8(t, zero), weights(_mm256_permutevar8x32_epi32(c, later)))
            // Per lane: the low output's four channels, then the high one's: outputs 0, 1 | 2, 3 in order.
            _mm256_storeu_si256(UnsafeMutableRawPointer(h + 4 &* x).assumingMemoryBound(to: __m256i.self), _mm256_packus_epi32(low, high))
            x &+= 4
        }
        return x
    }
}
