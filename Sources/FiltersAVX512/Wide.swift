// FiltersAVX512: AVX-512 with VBMI (`-target-cpu skylake-avx512 -mavx512vbmi`, `SWIFTCAM_AVX512`): the RGB
// colour pass from FiltersAVX2's source and the grey pass from Filters' (symlinks) over a 512-bit `Wide`, the
// 4:2:0 colour pass and byte tables. Filters alone imports it and picks it at run time (SIMDPath); it imports
// nothing of ours.

#if SWIFTCAM_AVX512
import _Builtin_intrinsics.intel

/// FiltersAVX2's `Wide` at 512 bits: the shared kernels (RGBFixedCore.swift) compile here over it.
enum Wide {
    typealias V = __m512i
    /// Pixels of 4 bytes per vector.
    static let pixels = 16
    @inline(__always) static func splat16(_ v: Int16) -> V { _mm512_set1_epi16(v) }
    @inline(__always) static func splat32(_ v: Int32) -> V { _mm512_set1_epi32(v) }
    @inline(__always) static func zero() -> V { _mm512_setzero_si512() }
    @inline(__always) static func load(_ p: UnsafeRawPointer) -> V { _mm512_loadu_si512(p) }
    @inline(__always) static func and(_ a: V, _ b: V) -> V { _mm512_and_si512(a, b) }
    @inline(__always) static func or(_ a: V, _ b: V) -> V { _mm512_or_si512(a, b) }
    @inline(__always) static func xor(_ a: V, _ b: V) -> V { _mm512_xor_si512(a, b) }
    @inline(__always) static func add16(_ a: V, _ b: V) -> V { _mm512_add_epi16(a, b) }
    @inline(__always) static func sub16(_ a: V, _ b: V) -> V { _mm512_sub_epi16(a, b) }
    @inline(__always) static func mulHigh16(_ a: V, _ b: V) -> V { _mm512_mulhi_epi16(a, b) }
    @inline(__always) static func max16(_ a: V, _ b: V) -> V { _mm512_max_epi16(a, b) }
    @inline(__always) static func min16(_ a: V, _ b: V) -> V { _mm512_min_epi16(a, b) }
    @inline(__always) static func shiftRight16(_ a: V, _ n: Int32) -> V { _mm512_srai_epi16(a, UInt32(n)) }
    @inline(__always) static func shiftLeft16(_ a: V, _ n: Int32) -> V { _mm512_slli_epi16(a, UInt32(n)) }
    @inline(__always) static func shiftLeft32(_ a: V, _ n: Int32) -> V { _mm512_slli_epi32(a, UInt32(n)) }
    @inline(__always) static func shiftRight32(_ a: V, _ n: Int32) -> V { _mm512_srli_epi32(a, UInt32(n)) }
    // For GreyCore.swift (shared with Filters' 128-bit `Wide`): all within 128-bit lanes.
    @inline(__always) static func splat64(_ v: Int64) -> V { _mm512_set1_epi64(v) }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ v: V) { _mm512_storeu_si512(p, v) }
    @inline(__always) static func andNot(_ a: V, _ b: V) -> V { _mm512_andnot_si512(a, b) }
    @inline(__always) static func add32(_ a: V, _ b: V) -> V { _mm512_add_epi32(a, b) }
    @inline(__always) static func shiftRightArithmetic32(_ a: V, _ n: Int32) -> V { _mm512_srai_epi32(a, UInt32(n)) }
    @inline(__always) static func multiplyAdd16(_ a: V, _ b: V) -> V { _mm512_madd_epi16(a, b) }
    @inline(__always) static func packSigned32(_ a: V, _ b: V) -> V { _mm512_packs_epi32(a, b) }
    @inline(__always) static func packUnsigned16(_ a: V, _ b: V) -> V { _mm512_packus_epi16(a, b) }
    @inline(__always) static func unpackLow8(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi8(a, b) }
    @inline(__always) static func unpackLow16(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi16(a, b) }
    @inline(__always) static func unpackHigh16(_ a: V, _ b: V) -> V { _mm512_unpackhi_epi16(a, b) }
    @inline(__always) static func unpackLow32(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi32(a, b) }
    @inline(__always) static func unpackHigh32(_ a: V, _ b: V) -> V { _mm512_unpackhi_epi32(a, b) }

    /// 32 pixels from `p` as the 8-pixel block's lane order in each 128-bit lane: pixels 0–3, 8–11, 16–19
    /// and 24–27 in the first vector, 4–7, 12–15, 20–23 and 28–31 in the second.
    @inline(__always) static func loadBlocks(_ p: UnsafeRawPointer) -> (V, V) {
        let z0 = _mm512_loadu_si512(p), z1 = _mm512_loadu_si512(p + 64)
        return (_mm512_permutex2var_epi64(z0, _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0), z1),
                _mm512_permutex2var_epi64(z0, _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2), z1))
    }

    /// Stores what `loadBlocks` loaded back in pixel order.
    @inline(__always) static func storeBlocks(_ p: UnsafeMutableRawPointer, _ a: V, _ b: V) {
        _mm512_storeu_si512(p, _mm512_permutex2var_epi64(a, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), b))
        _mm512_storeu_si512(p + 64, _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), b))
    }

    /// Stores what `loadBlocks` loaded in reverse pixel order (pixel i to 31 − i): a mirrored row.
    @inline(__always) static func storeBlocksReversed(_ p: UnsafeMutableRawPointer, _ a: V, _ b: V) {
        let reverse = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let first = _mm512_permutex2var_epi64(a, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), b)
        let second = _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), b)
        _mm512_storeu_si512(p, _mm512_permutexvar_epi32(reverse, second))
        _mm512_storeu_si512(p + 64, _mm512_permutexvar_epi32(reverse, first))
    }
}
#endif
