// FiltersAVX512: AVX-512 with VBMI (`-target-cpu skylake-avx512 -mavx512vbmi`, `SWIFTCAM_AVX512`): the grey
// and tone passes from Filters' shared cores (Shared/, a link) over a 512-bit `Wide`, and its own RGB and 4:2:0 colour passes,
// byte tables and mirror reversal. Filters alone imports it and calls it through its AVX-512 path
// (AVX512Kernels); it imports nothing of ours.

import _Builtin_intrinsics.intel

/// FiltersAVX2's `Wide` at 512 bits, as far as the shared grey pass (GreyCore.swift) uses it.
enum Wide {
    typealias V = __m512i
    /// Pixels of 4 bytes per vector.
    static let pixels = 16
    @inline(__always) static func splat16(_ v: Int16) -> V { _mm512_set1_epi16(v) }
    @inline(__always) static func splat32(_ v: Int32) -> V { _mm512_set1_epi32(v) }
    @inline(__always) static func load(_ p: UnsafeRawPointer) -> V { _mm512_loadu_si512(p) }
    @inline(__always) static func and(_ a: V, _ b: V) -> V { _mm512_and_si512(a, b) }
    @inline(__always) static func or(_ a: V, _ b: V) -> V { _mm512_or_si512(a, b) }
    @inline(__always) static func add16(_ a: V, _ b: V) -> V { _mm512_add_epi16(a, b) }
    @inline(__always) static func shiftRight16(_ a: V, _ n: Int32) -> V { _mm512_srai_epi16(a, UInt32(n)) }
    @inline(__always) static func shiftRight32(_ a: V, _ n: Int32) -> V { _mm512_srli_epi32(a, UInt32(n)) }
    // All within 128-bit lanes, as GreyCore.swift (shared with Filters' 128-bit `Wide`) needs.
    @inline(__always) static func splat64(_ v: Int64) -> V { _mm512_set1_epi64(v) }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ v: V) { _mm512_storeu_si512(p, v) }
    @inline(__always) static func andNot(_ a: V, _ b: V) -> V { _mm512_andnot_si512(a, b) }
    @inline(__always) static func add32(_ a: V, _ b: V) -> V { _mm512_add_epi32(a, b) }
    @inline(__always) static func shiftRightArithmetic32(_ a: V, _ n: Int32) -> V { _mm512_srai_epi32(a, UInt32(n)) }
    @inline(__always) static func multiplyAdd16(_ a: V, _ b: V) -> V { _mm512_madd_epi16(a, b) }
    @inline(__always) static func packSigned32(_ a: V, _ b: V) -> V { _mm512_packs_epi32(a, b) }
    @inline(__always) static func packUnsigned16(_ a: V, _ b: V) -> V { _mm512_packus_epi16(a, b) }
    @inline(__always) static func zero() -> V { _mm512_setzero_si512() }
    /// The vector's pixels (32-bit lanes) in reverse order.
    @inline(__always) static func reversePixels(_ v: V) -> V {
        _mm512_permutexvar_epi32(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v)
    }
    @inline(__always) static func sub16(_ a: V, _ b: V) -> V { _mm512_sub_epi16(a, b) }
    @inline(__always) static func mulHigh16(_ a: V, _ b: V) -> V { _mm512_mulhi_epi16(a, b) }
    @inline(__always) static func max16(_ a: V, _ b: V) -> V { _mm512_max_epi16(a, b) }
    @inline(__always) static func unpackLow8(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi8(a, b) }
    @inline(__always) static func unpackHigh8(_ a: V, _ b: V) -> V { _mm512_unpackhi_epi8(a, b) }
    @inline(__always) static func unpackLow16(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi16(a, b) }
    @inline(__always) static func unpackHigh16(_ a: V, _ b: V) -> V { _mm512_unpackhi_epi16(a, b) }
    @inline(__always) static func unpackLow32(_ a: V, _ b: V) -> V { _mm512_unpacklo_epi32(a, b) }
    @inline(__always) static func unpackHigh32(_ a: V, _ b: V) -> V { _mm512_unpackhi_epi32(a, b) }
}
