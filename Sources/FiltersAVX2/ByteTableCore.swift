// FiltersAVX2's own: the baseline and portable paths look byte tables up one byte at a time.
import _Builtin_intrinsics.intel

/// RGBTableKernel's byte table where the colour bytes share one table and the fourth keeps its value (gamma,
/// posterize, invert), 32 bytes a step without a gather: vpshufb looks 16 entries up at a time and gives 0 where the
/// index byte's top bit is set, so the index is stepped down by 16 (signed, saturating) between 8 slices of the
/// table, each slice xored with the one before it: where an index has passed 0 its lanes add nothing, and the xors
/// of the slices it has seen telescope to its own entry. Indices from 128 on take the same 8 steps on `index ^ 0x80`
/// over the upper half. Table reads, so the same bytes as the scalar loop.
package enum ByteTableCore {
    /// Looks the bytes of `source` whose bit is set in `mask` (repeating every 32 bytes) up through the 256-byte
    /// `table`, copies the others, into `destination` (may be `source`), whole groups of 32 bytes; returns how many
    /// bytes it did.
    package static func uniform(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, table: UnsafePointer<UInt8>,
        mask: UInt32
    ) -> Int {
        guard bytes >= 32 else { return 0 }
        // slices[k]: entries 16k… xored with entries 16(k − 1)… (k mod 8 ≠ 0), in both 128-bit lanes. Set up per
        // call (a row): 16 loads and 14 xors.
        return withUnsafeTemporaryAllocation(of: __m256i.self, capacity: 16) { buffer -> Int in
            let slices = buffer.baseAddress!
            @inline(__always) func slice(_ k: Int) -> __m256i {
                _mm256_broadcastsi128_si256(_mm_loadu_si128(UnsafeRawPointer(table + 16 &* k).assumingMemoryBound(to: __m128i.self)))
            }
            for k in 0..<16 { slices[k] = k % 8 == 0 ? slice(k) : _mm256_xor_si256(slice(k), slice(k - 1)) }
            // Byte i of the blend mask is bit i of `mask`: each 32-bit lane shifts it so its own four bits come first,
            // spread to the top bit of each byte.
            let bits = _mm256_set1_epi32(Int32(bitPattern: mask))
            let lanes = _mm256_srlv_epi32(bits, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28))
            let spread = _mm256_shuffle_epi8(
                lanes,
                _mm256_setr_epi8(
                    0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12,
                    0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12))
            let bit = _mm256_set1_epi32(0x0804_0201)
            let lookedUp = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit)
            let sixteen = _mm256_set1_epi8(16), top = _mm256_set1_epi8(-128)
            var o = 0
            while o &+ 32 <= bytes {
                let v = _mm256_loadu_si256((source + o).assumingMemoryBound(to: __m256i.self))
                var low = v, high = _mm256_xor_si256(v, top)
                var found = _mm256_setzero_si256()
                for k in 0..<8 {
                    found = _mm256_xor_si256(found, _mm256_shuffle_epi8(slices[k], low))
                    found = _mm256_xor_si256(found, _mm256_shuffle_epi8(slices[8 + k], high))
                    low = _mm256_subs_epi8(low, sixteen)
                    high = _mm256_subs_epi8(high, sixteen)
                }
                _mm256_storeu_si256((destination + o).assumingMemoryBound(to: __m256i.self), _mm256_blendv_epi8(v, found, lookedUp))
                o &+= 32
            }
            return o
        }
    }
}
