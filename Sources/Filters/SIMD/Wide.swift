// FiltersAVX2's `Wide` at 128 bits (SSE2, the build's baseline): what GreyCore.swift, compiled here and
// in both wider modules, needs of it.

#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel

/// The 128-bit vector GreyCore is written in here; FiltersAVX2 and FiltersAVX512 have 256- and 512-bit ones.
enum Wide {
    typealias V = __m128i
    /// Pixels of 4 bytes per vector.
    static let pixels = 4
    @inline(__always) static func splat16(_ v: Int16) -> V { _mm_set1_epi16(v) }
    @inline(__always) static func splat32(_ v: Int32) -> V { _mm_set1_epi32(v) }
    @inline(__always) static func splat64(_ v: Int64) -> V { _mm_set1_epi64x(v) }
    @inline(__always) static func load(_ p: UnsafeRawPointer) -> V { _mm_loadu_si128(p.assumingMemoryBound(to: __m128i.self)) }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ v: V) {
        _mm_storeu_si128(p.assumingMemoryBound(to: __m128i.self), v)
    }
    @inline(__always) static func and(_ a: V, _ b: V) -> V { _mm_and_si128(a, b) }
    @inline(__always) static func andNot(_ a: V, _ b: V) -> V { _mm_andnot_si128(a, b) }
    @inline(__always) static func or(_ a: V, _ b: V) -> V { _mm_or_si128(a, b) }
    @inline(__always) static func add16(_ a: V, _ b: V) -> V { _mm_add_epi16(a, b) }
    @inline(__always) static func shiftRight16(_ a: V, _ n: Int32) -> V { _mm_srai_epi16(a, n) }
    @inline(__always) static func shiftRight32(_ a: V, _ n: Int32) -> V { _mm_srli_epi32(a, n) }
    @inline(__always) static func add32(_ a: V, _ b: V) -> V { _mm_add_epi32(a, b) }
    @inline(__always) static func shiftRightArithmetic32(_ a: V, _ n: Int32) -> V { _mm_srai_epi32(a, n) }
    @inline(__always) static func multiplyAdd16(_ a: V, _ b: V) -> V { _mm_madd_epi16(a, b) }
    @inline(__always) static func packSigned32(_ a: V, _ b: V) -> V { _mm_packs_epi32(a, b) }
    @inline(__always) static func packUnsigned16(_ a: V, _ b: V) -> V { _mm_packus_epi16(a, b) }
    @inline(__always) static func zero() -> V { _mm_setzero_si128() }
    /// The vector's pixels (32-bit lanes) in reverse order.
    /// (`_mm_shuffle_epi32` is a C macro; LLVM makes this one pshufd.)
    @inline(__always) static func reversePixels(_ v: V) -> V {
        let p = unsafeBitCast(v, to: SIMD4<UInt32>.self)
        return unsafeBitCast(SIMD4(p[3], p[2], p[1], p[0]), to: V.self)
    }
    @inline(__always) static func sub16(_ a: V, _ b: V) -> V { _mm_sub_epi16(a, b) }
    @inline(__always) static func mulHigh16(_ a: V, _ b: V) -> V { _mm_mulhi_epi16(a, b) }
    @inline(__always) static func max16(_ a: V, _ b: V) -> V { _mm_max_epi16(a, b) }
    @inline(__always) static func unpackLow8(_ a: V, _ b: V) -> V { _mm_unpacklo_epi8(a, b) }
    @inline(__always) static func unpackHigh8(_ a: V, _ b: V) -> V { _mm_unpackhi_epi8(a, b) }
    @inline(__always) static func unpackLow16(_ a: V, _ b: V) -> V { _mm_unpacklo_epi16(a, b) }
    @inline(__always) static func unpackHigh16(_ a: V, _ b: V) -> V { _mm_unpackhi_epi16(a, b) }
    @inline(__always) static func unpackLow32(_ a: V, _ b: V) -> V { _mm_unpacklo_epi32(a, b) }
    @inline(__always) static func unpackHigh32(_ a: V, _ b: V) -> V { _mm_unpackhi_epi32(a, b) }
}
#endif
