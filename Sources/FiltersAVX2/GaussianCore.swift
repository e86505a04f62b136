// Only in FiltersAVX2 (no baseline copy): the baseline path is GaussianKernel's SSE2 loops, which
// also finish each row from where these stop.
import _Builtin_intrinsics.intel

/// The direct Q14 blur's two accumulation loops 16 samples at a time, with GaussianKernel's integer
/// operations (taps in pairs through pmaddwd): the same sums, so the same bytes.
package enum GaussianCore {
    /// Σ_k w_k·tap_k for whole groups of 16 samples, taps in pairs through pmaddwd: `load(k, i)` gives tap
    /// k's 16 samples at i as 16-bit lanes, `finish(lo, hi, i)` takes the sums (per 128-bit half, `lo`
    /// holds samples 0–3 of it and `hi` 4–7) started from `start`; returns how many samples were done.
    @inline(__always)
    static func accumulate(
        _ taps: UnsafeBufferPointer<UInt16>, samples: Int, start: __m256i, _ load: (Int, Int) -> __m256i,
        _ finish: (__m256i, __m256i, Int) -> Void
    ) -> Int {
        withUnsafeTemporaryAllocation(of: __m256i.self, capacity: (taps.count + 1) / 2) { pairs in
            // (w_k, w_k+1) per 32-bit lane, the last tap paired with 0; built once per call, not per group.
            for k in stride(from: 0, to: taps.count, by: 2) {
                let next = k + 1 < taps.count ? Int32(taps[k + 1]) : 0
                pairs[k / 2] = _mm256_set1_epi32(next << 16 | Int32(taps[k]))
            }
            let zero = _mm256_setzero_si256()
            var i = 0
            while i &+ 16 <= samples {
                var lo = start, hi = start
                for (j, pair) in pairs.enumerated() {
                    let k = 2 &* j
                    let a = load(k, i), b = k &+ 1 < taps.count ? load(k &+ 1, i) : zero
                    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), pair))
                    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), pair))
                }
                finish(lo, hi, i)
                i &+= 16
            }
            return i
        }
    }

    /// Horizontal: out[i] = (32 + Σ w_k·p[i + k·ch]) >> 6 for whole groups of 16; returns how many were done.
    package static func horizontal(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels ch: Int, samples: Int,
        into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        let flip = _mm256_set1_epi16(Int16(bitPattern: 0x8000))
        let rounding = _mm256_set1_epi32(32), recentre = _mm256_set1_epi32(32768)
        @inline(__always) func widened(_ at: UnsafePointer<UInt8>) -> __m256i {
            _mm256_cvtepu8_epi16(_mm_loadu_si128(UnsafeRawPointer(at).assumingMemoryBound(to: __m128i.self)))
        }
        return accumulate(taps, samples: samples, start: rounding, { k, i in widened(p + (i &+ k &* ch)) }) { lo, hi, i in
            // packssdw puts the halves' samples back in order.
            let lo16 = _mm256_sub_epi32(_mm256_srli_epi32(lo, 6), recentre), hi16 = _mm256_sub_epi32(_mm256_srli_epi32(hi, 6), recentre)
            _mm256_storeu_si256(
                UnsafeMutableRawPointer(out + i).assumingMemoryBound(to: __m256i.self),
                _mm256_xor_si256(_mm256_packs_epi32(lo16, hi16), flip))
        }
    }

    /// Vertical: acc[i] = 2²¹ + Σ w_k·row_k[i] for whole groups of 16, `rows` the clamped source rows of
    /// the taps; returns how many were done. Samples centred to signed 16 bits, as in GaussianKernel.
    package static func vertical(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int,
        into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        let flip = _mm256_set1_epi16(Int16(bitPattern: 0x8000))
        let start = _mm256_set1_epi32((1 << 21) + (1 << 29))
        @inline(__always) func load(_ k: Int, _ i: Int) -> __m256i {
            _mm256_xor_si256(_mm256_loadu_si256(UnsafeRawPointer(rows[k] + i).assumingMemoryBound(to: __m256i.self)), flip)
        }
        return accumulate(taps, samples: samples, start: start, load) { lo, hi, i in
            @inline(__always) func at(_ n: Int) -> UnsafeMutablePointer<__m128i> {
                UnsafeMutableRawPointer(acc + (i &+ n)).assumingMemoryBound(to: __m128i.self)
            }
            _mm256_storeu2_m128i(at(8), at(0), lo)
            _mm256_storeu2_m128i(at(12), at(4), hi)
        }
    }
}
