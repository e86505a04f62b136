// FiltersAVX2: the hottest Filters loops compiled again for x86-64-v3 (`-target-cpu haswell`,
// `SWIFTCAM_AVX2`). The box cascades, edges' rows and the grey and tone passes (over `Wide`) are Filters' shared
// cores (Shared/, a link; Package.swift's `sharedCores` says which); the colour pass (over `Wide`, below), the direct blur kernel, zoom's blend and mirror are
// 256-bit versions of their own. Filters alone imports it and calls it through its AVX2 path (AVX2Kernels);
// it imports nothing of ours.

import _Builtin_intrinsics.intel

/// The 256-bit vector the shared grey pass (GreyCore.swift, also compiled in Filters and FiltersAVX512 over
/// their own `Wide`) and the colour pass (RGBFixedCore.swift) are written in: one name per intrinsic.
enum Wide {
    typealias V = __m256i
    /// Pixels of 4 bytes per vector.
    static let pixels = 8
    @inline(__always) static func splat16(_ v: Int16) -> V { _mm256_set1_epi16(v) }
    @inline(__always) static func splat32(_ v: Int32) -> V { _mm256_set1_epi32(v) }
    @inline(__always) static func zero() -> V { _mm256_setzero_si256() }
    /// The vector's pixels (32-bit lanes) in reverse order.
    @inline(__always) static func reversePixels(_ v: V) -> V { _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)) }
    @inline(__always) static func load(_ p: UnsafeRawPointer) -> V { _mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self)) }
    @inline(__always) static func and(_ a: V, _ b: V) -> V { _mm256_and_si256(a, b) }
    @inline(__always) static func or(_ a: V, _ b: V) -> V { _mm256_or_si256(a, b) }
    @inline(__always) static func xor(_ a: V, _ b: V) -> V { _mm256_xor_si256(a, b) }
    @inline(__always) static func add16(_ a: V, _ b: V) -> V { _mm256_add_epi16(a, b) }
    @inline(__always) static func sub16(_ a: V, _ b: V) -> V { _mm256_sub_epi16(a, b) }
    @inline(__always) static func mulHigh16(_ a: V, _ b: V) -> V { _mm256_mulhi_epi16(a, b) }
    @inline(__always) static func max16(_ a: V, _ b: V) -> V { _mm256_max_epi16(a, b) }
    @inline(__always) static func min16(_ a: V, _ b: V) -> V { _mm256_min_epi16(a, b) }
    @inline(__always) static func shiftRight16(_ a: V, _ n: Int32) -> V { _mm256_srai_epi16(a, n) }
    @inline(__always) static func shiftLeft16(_ a: V, _ n: Int32) -> V { _mm256_slli_epi16(a, n) }
    @inline(__always) static func shiftLeft32(_ a: V, _ n: Int32) -> V { _mm256_slli_epi32(a, n) }
    @inline(__always) static func shiftRight32(_ a: V, _ n: Int32) -> V { _mm256_srli_epi32(a, n) }
    // For GreyCore.swift (shared with Filters' 128-bit `Wide`): all within 128-bit lanes.
    @inline(__always) static func splat64(_ v: Int64) -> V { _mm256_set1_epi64x(v) }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ v: V) {
        _mm256_storeu_si256(p.assumingMemoryBound(to: __m256i.self), v)
    }
    @inline(__always) static func andNot(_ a: V, _ b: V) -> V { _mm256_andnot_si256(a, b) }
    @inline(__always) static func add32(_ a: V, _ b: V) -> V { _mm256_add_epi32(a, b) }
    @inline(__always) static func shiftRightArithmetic32(_ a: V, _ n: Int32) -> V { _mm256_srai_epi32(a, n) }
    @inline(__always) static func multiplyAdd16(_ a: V, _ b: V) -> V { _mm256_madd_epi16(a, b) }
    @inline(__always) static func packSigned32(_ a: V, _ b: V) -> V { _mm256_packs_epi32(a, b) }
    @inline(__always) static func packUnsigned16(_ a: V, _ b: V) -> V { _mm256_packus_epi16(a, b) }
    @inline(__always) static func unpackLow8(_ a: V, _ b: V) -> V { _mm256_unpacklo_epi8(a, b) }
    @inline(__always) static func unpackHigh8(_ a: V, _ b: V) -> V { _mm256_unpackhi_epi8(a, b) }
    @inline(__always) static func unpackLow16(_ a: V, _ b: V) -> V { _mm256_unpacklo_epi16(a, b) }
    @inline(__always) static func unpackHigh16(_ a: V, _ b: V) -> V { _mm256_unpackhi_epi16(a, b) }
    @inline(__always) static func unpackLow32(_ a: V, _ b: V) -> V { _mm256_unpacklo_epi32(a, b) }
    @inline(__always) static func unpackHigh32(_ a: V, _ b: V) -> V { _mm256_unpackhi_epi32(a, b) }

    /// 16 pixels from `p` as the 8-pixel block's lane order in each 128-bit half: pixels 0–3 and 8–11 in
    /// the first vector, 4–7 and 12–15 in the second.
    @inline(__always) static func loadBlocks(_ p: UnsafeRawPointer) -> (V, V) {
        @inline(__always) func load(_ at: Int, _ second: Int) -> V {
            _mm256_loadu2_m128i((p + 4 * second).assumingMemoryBound(to: __m128i.self), (p + 4 * at).assumingMemoryBound(to: __m128i.self))
        }
        return (load(0, 8), load(4, 12))
    }

    /// Stores what `loadBlocks` loaded back in pixel order.
    @inline(__always) static func storeBlocks(_ p: UnsafeMutableRawPointer, _ a: V, _ b: V) {
        @inline(__always) func store(_ v: V, _ at: Int, _ second: Int) {
            _mm256_storeu2_m128i(
                (p + 4 * second).assumingMemoryBound(to: __m128i.self), (p + 4 * at).assumingMemoryBound(to: __m128i.self), v)
        }
        store(a, 0, 8)
        store(b, 4, 12)
    }

    /// Stores what `loadBlocks` loaded in reverse pixel order (pixel i to 15 − i): a mirrored row.
    @inline(__always) static func storeBlocksReversed(_ p: UnsafeMutableRawPointer, _ a: V, _ b: V) {
        let reverse = _mm256_setr_epi32(3, 2, 1, 0, 7, 6, 5, 4)
        @inline(__always) func store(_ v: V, _ at: Int, _ second: Int) {
            _mm256_storeu2_m128i(
                (p + 4 * second).assumingMemoryBound(to: __m128i.self), (p + 4 * at).assumingMemoryBound(to: __m128i.self), v)
        }
        // a: pixels 0–3 | 8–11, each half reversed, to 12–15 | 4–7; b: 4–7 | 12–15 to 8–11 | 0–3.
        store(_mm256_permutevar8x32_epi32(a, reverse), 12, 4)
        store(_mm256_permutevar8x32_epi32(b, reverse), 8, 0)
    }
}
