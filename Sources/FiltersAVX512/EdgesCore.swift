// Only in FiltersAVX512: edges' two passes over four-byte pixels (FiltersAVX2's EdgesCore does the
// Sobel rows, whose ring rows are bytes), 16 pixels a step in 512 bits, the same integer arithmetic.
import _Builtin_intrinsics.intel

/// The RGB rows of edges at 512 bits: luma in, grey pixels out.
package enum EdgesCore {
    /// FiltersAVX2's `EdgesCore.luma` (p[x] = (kr·R + kg·G + kb·B + 2¹⁴) >> 15, Q15 weights summing to 2¹⁵) on whole
    /// groups of 16 pixels; returns how many pixels it did. The sum is at most 255.5·2¹⁵, so the truncating
    /// `vpmovdb` needs no clamp.
    package static func luma(
        _ s: UnsafePointer<UInt8>, width w: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>,
        into p: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var byteWeight = SIMD4<Int32>()
        byteWeight[Int(shifts.x / 8)] = weights.x
        byteWeight[Int(shifts.y / 8)] = weights.y
        byteWeight[Int(shifts.z / 8)] = weights.z
        // Bytes 0 and 2 of a pixel are the 16-bit halves of `v & 0x00FF00FF`, bytes 1 and 3 those of `(v >> 8) & …`.
        let even = _mm512_set1_epi32(byteWeight[0] | byteWeight[2] << 16), odd = _mm512_set1_epi32(byteWeight[1] | byteWeight[3] << 16)
        let mask = _mm512_set1_epi32(0x00FF_00FF), half = _mm512_set1_epi32(16384)
        var x = 0
        while x &+ 16 <= w {
            let v = _mm512_loadu_si512(UnsafeRawPointer(s + 4 &* x))
            let lo = _mm512_and_si512(v, mask), hi = _mm512_and_si512(_mm512_srli_epi32(v, 8), mask)
            let sum = _mm512_add_epi32(_mm512_add_epi32(_mm512_madd_epi16(lo, even), _mm512_madd_epi16(hi, odd)), half)
            _mm_storeu_si128(
                UnsafeMutableRawPointer(p + x).assumingMemoryBound(to: __m128i.self), _mm512_cvtepi32_epi8(_mm512_srli_epi32(sum, 15)))
            x &+= 16
        }
        return x
    }

    /// FiltersAVX2's `EdgesCore.grey` on whole groups of 16 pixels: each magnitude byte spread to its pixel's four
    /// bytes by one `vpermb`, the alpha byte (`alpha` masks it in a pixel) taken from `s`. Returns how many pixels it did.
    package static func grey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width w: Int, alpha: UInt32,
        into d: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let spread = _mm512_set_epi32(
            0x0F0F_0F0F, 0x0E0E_0E0E, 0x0D0D_0D0D, 0x0C0C_0C0C, 0x0B0B_0B0B, 0x0A0A_0A0A, 0x0909_0909, 0x0808_0808,
            0x0707_0707, 0x0606_0606, 0x0505_0505, 0x0404_0404, 0x0303_0303, 0x0202_0202, 0x0101_0101, 0)
        // Bit i set where byte i of 64 is an alpha byte.
        var keep: UInt64 = 0
        for byte in 0..<4 where alpha >> UInt32(8 * byte) & 0xFF != 0 { keep |= 0x1111_1111_1111_1111 << UInt64(byte) }
        var x = 0
        while x &+ 16 <= w {
            let bytes = _mm512_castsi128_si512(_mm_loadu_si128(UnsafeRawPointer(m + x).assumingMemoryBound(to: __m128i.self)))
            let grey = _mm512_permutexvar_epi8(spread, bytes)
            _mm512_storeu_si512(
                UnsafeMutableRawPointer(d + 4 &* x), _mm512_mask_blend_epi8(keep, grey, _mm512_loadu_si512(UnsafeRawPointer(s + 4 &* x))))
            x &+= 16
        }
        return x
    }
}
