// Only in FiltersAVX2 (no baseline copy): the baseline path is RGBFixedKernel's 8-pixel block.
#if SWIFTCAM_AVX2
import _Builtin_intrinsics.intel

/// RGBFixedKernel's block 16 pixels wide, in 256-bit intrinsics, with the same integer operations
/// per lane (so the same bytes).
///
/// Pixels x…x+3 and x+8…x+11 load into one vector and x+4…x+7, x+12…x+15 into the other, so each
/// 128-bit half is exactly the 8-pixel block's lane order (16-bit lane 2j pixel j, 2j + 1 pixel 4 + j)
/// and the vignette's column table serves both widths.
package enum RGBFixedCore {
    /// Runs whole 16-pixel groups of one row from `src` to `dst`; returns how many pixels it did.
    /// `m`: the Q12 matrix on memory bytes (output byte j, input byte i at 3j + i); `o`: the offsets
    /// (4 fraction bits, the rounding bias included when there is no gain); `keep`: the alpha mask;
    /// `columns`/`row`: the vignette's Q15 column table and row term, nil when there is no gain.
    package static func row(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: [Int16], o: [Int16], keep: UInt32,
                            passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16) -> Int {
        switch (columns != nil, passFirst) {
        case (false, false): run(src, dst, width, m, o, keep, false, false, columns, row)
        case (false, true): run(src, dst, width, m, o, keep, false, true, columns, row)
        case (true, false): run(src, dst, width, m, o, keep, true, false, columns, row)
        case (true, true): run(src, dst, width, m, o, keep, true, true, columns, row)
        }
    }

    @inline(__always)
    private static func run(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ m: [Int16], _ o: [Int16], _ keep: UInt32,
                            _ gain: Bool, _ passFirst: Bool, _ columns: UnsafePointer<Int16>?, _ rowTerm: Int16) -> Int {
        // Splatted one by one: a `map` here allocated an array per row.
        let k0 = _mm256_set1_epi16(m[0]), k1 = _mm256_set1_epi16(m[1]), k2 = _mm256_set1_epi16(m[2])
        let k3 = _mm256_set1_epi16(m[3]), k4 = _mm256_set1_epi16(m[4]), k5 = _mm256_set1_epi16(m[5])
        let k6 = _mm256_set1_epi16(m[6]), k7 = _mm256_set1_epi16(m[7]), k8 = _mm256_set1_epi16(m[8])
        let o0 = _mm256_set1_epi16(o[0]), o1 = _mm256_set1_epi16(o[1]), o2 = _mm256_set1_epi16(o[2])
        let byte1 = _mm256_set1_epi32(0xFF00), byte3 = _mm256_set1_epi32(Int32(bitPattern: 0xFF00_0000))
        let centre = _mm256_set1_epi16(Int16.min), alpha = _mm256_set1_epi32(Int32(bitPattern: keep))
        let low16 = _mm256_set1_epi32(0xFFFF), high16 = _mm256_set1_epi32(Int32(bitPattern: 0xFFFF_0000))
        let zero = _mm256_setzero_si256(), top = _mm256_set1_epi16(255), bias = _mm256_set1_epi16(4)
        let row = _mm256_set1_epi16(rowTerm)
        @inline(__always) func load(_ at: Int, _ second: Int) -> __m256i {
            _mm256_loadu2_m128i((src + 4 * second).assumingMemoryBound(to: __m128i.self), (src + 4 * at).assumingMemoryBound(to: __m128i.self))
        }
        @inline(__always) func store(_ v: __m256i, _ at: Int, _ second: Int) {
            _mm256_storeu2_m128i((dst + 4 * second).assumingMemoryBound(to: __m128i.self), (dst + 4 * at).assumingMemoryBound(to: __m128i.self), v)
        }
        var x = 0
        while x &+ 16 <= width {
            let v0 = load(x, x &+ 8), v1 = load(x &+ 4, x &+ 12)
            // Byte n of each pixel as (b − 128)·256 in a 16-bit lane: v0's pixel in the low half of its
            // 32-bit lane, v1's in the high half.
            @inline(__always) func plane(_ byte: Int32) -> __m256i {
                let a = byte == 0 ? _mm256_slli_epi32(v0, 8) : _mm256_srli_epi32(v0, 8 * byte - 8)
                let b = byte == 3 ? v1 : _mm256_slli_epi32(v1, 24 - 8 * byte)
                return _mm256_xor_si256(_mm256_or_si256(_mm256_and_si256(a, byte1), _mm256_and_si256(b, byte3)), centre)
            }
            let first: Int32 = passFirst ? 1 : 0
            let b0 = plane(first), b1 = plane(first + 1), b2 = plane(first + 2)
            @inline(__always) func dot(_ c0: __m256i, _ c1: __m256i, _ c2: __m256i, _ offset: __m256i) -> __m256i {
                _mm256_add_epi16(_mm256_add_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(b0, c0), _mm256_mulhi_epi16(b1, c1)),
                                                  _mm256_mulhi_epi16(b2, c2)), offset)
            }
            var p0 = dot(k0, k1, k2, o0), p1 = dot(k3, k4, k5, o1), p2 = dot(k6, k7, k8, o2)
            if gain, let columns {
                let g = _mm256_max_epi16(_mm256_sub_epi16(row, _mm256_loadu_si256(UnsafeRawPointer(columns + x).assumingMemoryBound(to: __m256i.self))), zero)
                p0 = _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(p0, g), bias), 3)
                p1 = _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(p1, g), bias), 3)
                p2 = _mm256_srai_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(p2, g), bias), 3)
            } else {
                p0 = _mm256_srai_epi16(p0, 4)
                p1 = _mm256_srai_epi16(p1, 4)
                p2 = _mm256_srai_epi16(p2, 4)
            }
            @inline(__always) func clamp(_ v: __m256i) -> __m256i { _mm256_min_epi16(_mm256_max_epi16(v, zero), top) }
            let c0 = clamp(p0), c1 = clamp(p1), c2 = clamp(p2)
            let lo = passFirst ? _mm256_slli_epi16(c0, 8) : _mm256_or_si256(c0, _mm256_slli_epi16(c1, 8))
            let hi = passFirst ? _mm256_or_si256(c1, _mm256_slli_epi16(c2, 8)) : c2
            let w0 = _mm256_or_si256(_mm256_and_si256(lo, low16), _mm256_slli_epi32(hi, 16))
            let w1 = _mm256_or_si256(_mm256_srli_epi32(lo, 16), _mm256_and_si256(hi, high16))
            store(_mm256_or_si256(w0, _mm256_and_si256(v0, alpha)), x, x &+ 8)
            store(_mm256_or_si256(w1, _mm256_and_si256(v1, alpha)), x &+ 4, x &+ 12)
            x &+= 16
        }
        return x
    }
}
#endif
