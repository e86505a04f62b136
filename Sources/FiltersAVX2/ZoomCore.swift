// Only in FiltersAVX2 (no baseline copy): the baseline path is ZoomKernel.blend's 8-sample loop.
#if SWIFTCAM_AVX2
import _Builtin_intrinsics.intel

/// Zoom's vertical blend 16 samples at a time, with ZoomKernel.blend's integer operations (same bytes).
package enum ZoomCore {
    /// d[i] = (a[i]·(256 − w) + b[i]·w + 2¹⁵) >> 16 for whole groups of 16; returns how many were done.
    /// Centred samples through pmaddwd, as in ZoomKernel.blend.
    package static func blend(_ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight w: UInt32, count: Int,
                              into d: UnsafeMutablePointer<UInt8>) -> Int {
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
}
#endif
