#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel

// The SSE2 path's own 128-bit rows for the direct blur, zoom's blend and the box cascade's transposes. Each starts at
// `from`, so a wider path runs it on what its own groups left (AVX2Kernels); the kernels' scalar loops finish a row.
extension SSE2Kernels {
    /// `p` as the address of a vector, for the unaligned loads and stores.
    @inline(__always)
    private static func vector<T>(_ p: UnsafePointer<T>) -> UnsafePointer<__m128i> {
        UnsafeRawPointer(p).assumingMemoryBound(to: __m128i.self)
    }

    /// `p` as the address of a vector, for the unaligned stores.
    @inline(__always)
    private static func vector<T>(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<__m128i> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: __m128i.self)
    }

    // The direct blur's two accumulation loops: taps in pairs through pmaddwd, 8 samples at a time, the same integer
    // sums as GaussianKernel's scalar loops.

    /// out[i] = (32 + Σ w_k·p[i + k·ch]) >> 6 for whole groups of 8 samples from `start`; returns where it stopped.
    static func gaussianHorizontalGroups(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels ch: Int, samples: Int,
        into out: UnsafeMutablePointer<UInt16>, from start: Int
    ) -> Int {
        let zero = _mm_setzero_si128(), flip = _mm_set1_epi16(Int16(bitPattern: 0x8000))
        let rounding = _mm_set1_epi32(32), recentre = _mm_set1_epi32(32768)
        @inline(__always) func widened(_ at: UnsafePointer<UInt8>) -> __m128i {
            _mm_unpacklo_epi8(_mm_loadl_epi64(vector(at)), zero)
        }
        var i = start
        while i + 8 <= samples {
            var lo = rounding, hi = rounding
            var k = 0
            while k < taps.count {
                let a = widened(p + i + k * ch)
                let b = k + 1 < taps.count ? widened(p + i + (k + 1) * ch) : zero
                let next = k + 1 < taps.count ? Int32(taps[k + 1]) : 0
                let pair = _mm_set1_epi32(next << 16 | Int32(taps[k]))
                lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), pair))
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), pair))
                k += 2
            }
            // ≤ 65280 after the shift: recentred to signed for packssdw, then back.
            let lo16 = _mm_sub_epi32(_mm_srli_epi32(lo, 6), recentre), hi16 = _mm_sub_epi32(_mm_srli_epi32(hi, 6), recentre)
            _mm_storeu_si128(vector(out + i), _mm_xor_si128(_mm_packs_epi32(lo16, hi16), flip))
            i += 8
        }
        return i
    }

    /// acc[i] = 2²¹ + Σ w_k·rows[k][i] for whole groups of 8 from `start`; returns where it stopped.
    /// The Q8 samples (≤ 65280) are centred to signed 16 bits for pmaddwd: Σ w·v = Σ w·(v − 2¹⁵) + 2¹⁵·2¹⁴.
    static func gaussianVerticalGroups(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int,
        into acc: UnsafeMutablePointer<Int32>, from start: Int
    ) -> Int {
        let flip = _mm_set1_epi16(Int16(bitPattern: 0x8000))
        let initial = _mm_set1_epi32((1 << 21) + (1 << 29))
        var i = start
        while i + 8 <= samples {
            var lo = initial, hi = initial
            var k = 0
            while k < taps.count {
                let a = _mm_xor_si128(_mm_loadu_si128(vector(rows[k] + i)), flip)
                let b = k + 1 < taps.count ? _mm_xor_si128(_mm_loadu_si128(vector(rows[k + 1] + i)), flip) : _mm_setzero_si128()
                let next = k + 1 < taps.count ? Int32(taps[k + 1]) : 0
                let pair = _mm_set1_epi32(next << 16 | Int32(taps[k]))
                lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), pair))
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), pair))
                k += 2
            }
            _mm_storeu_si128(vector(acc + i), lo)
            _mm_storeu_si128(vector(acc + i + 4), hi)
            i += 8
        }
        return i
    }

    /// Sharpen's last step for whole groups of 8: clampByte(s + amount·(s − blurred)) with the scalar loop's exact
    /// float operations and rounding (clamp, + 0.5, truncate); returns how many were done.
    static func gaussianSharpenGroups(
        _ original: UnsafePointer<UInt8>, _ acc: UnsafePointer<Int32>, amount: Float, samples: Int, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let zero = _mm_setzero_si128(), zeroF = _mm_setzero_ps()
        let gain = _mm_set1_ps(amount), scale = _mm_set1_ps(1 / 4_194_304), top = _mm_set1_ps(255), half = _mm_set1_ps(0.5)
        let bias = _mm_set1_epi32(1 << 21)
        @inline(__always) func one(_ s: __m128i, _ a: __m128i) -> __m128i {
            let sf = _mm_cvtepi32_ps(s)
            let blurred = _mm_mul_ps(_mm_cvtepi32_ps(_mm_sub_epi32(a, bias)), scale)
            let v = _mm_add_ps(sf, _mm_mul_ps(gain, _mm_sub_ps(sf, blurred)))
            return _mm_cvttps_epi32(_mm_add_ps(_mm_min_ps(_mm_max_ps(v, zeroF), top), half))
        }
        var i = 0
        while i + 8 <= samples {
            let bytes = _mm_unpacklo_epi8(_mm_loadl_epi64(vector(original + i)), zero)
            let lo = one(_mm_unpacklo_epi16(bytes, zero), _mm_loadu_si128(vector(acc + i)))
            let hi = one(_mm_unpackhi_epi16(bytes, zero), _mm_loadu_si128(vector(acc + i + 4)))
            _mm_storel_epi64(vector(out + i), _mm_packus_epi16(_mm_packs_epi32(lo, hi), zero))
            i += 8
        }
        return i
    }

    /// Zoom's vertical blend, d[i] = (a[i]·(256 − w) + b[i]·w + 2¹⁵) >> 16, for whole groups of 8 from `start`;
    /// returns where it stopped. pmaddwd on centred samples: with a' = a − 2¹⁵ (a signed 16-bit lane),
    /// a·(256 − w) + b·w = a'·(256 − w) + b'·w + 2²³, so one multiply-add of (a', b') pairs by (256 − w, w) is exact.
    static func zoomBlendGroups(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight w: UInt32, count: Int, into d: UnsafeMutablePointer<UInt8>,
        from start: Int
    ) -> Int {
        let weights = _mm_set1_epi32(Int32(bitPattern: w << 16 | (256 &- w)))
        let flip = _mm_set1_epi16(Int16(bitPattern: 0x8000))
        let bias = _mm_set1_epi32((1 << 23) + (1 << 15))
        var i = start
        while i + 8 <= count {
            let x = _mm_xor_si128(_mm_loadu_si128(vector(a + i)), flip)
            let y = _mm_xor_si128(_mm_loadu_si128(vector(b + i)), flip)
            let lo = _mm_srli_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(x, y), weights), bias), 16)
            let hi = _mm_srli_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(x, y), weights), bias), 16)
            _mm_storel_epi64(vector(d + i), _mm_packus_epi16(_mm_packs_epi32(lo, hi), lo))
            i += 8
        }
        return i
    }

    /// Eight rows of bytes as the box cascade's lanes (lane k from row k, as floats), eight columns a step by an 8×8
    /// byte transpose in unpacks; returns how many columns were done.
    static func boxColumnGroups(_ rows: [UnsafePointer<UInt8>], width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) -> Int {
        let (r0, r1, r2, r3, r4, r5, r6, r7) = (rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7])
        let zero = _mm_setzero_si128()
        @inline(__always) func row(_ p: UnsafePointer<UInt8>, _ x: Int) -> __m128i { _mm_loadl_epi64(vector(p + x)) }
        @inline(__always) func column(_ c: __m128i, _ at: UnsafeMutablePointer<SIMD8<Float>>) {
            let raw = UnsafeMutableRawPointer(at)
            raw.storeBytes(of: _mm_cvtepi32_ps(_mm_unpacklo_epi16(c, zero)), as: SIMD4<Float>.self)
            raw.storeBytes(of: _mm_cvtepi32_ps(_mm_unpackhi_epi16(c, zero)), toByteOffset: 16, as: SIMD4<Float>.self)
        }
        var x = 0
        while x + 8 <= width {
            let t0 = _mm_unpacklo_epi8(row(r0, x), row(r1, x)), t1 = _mm_unpacklo_epi8(row(r2, x), row(r3, x))
            let t2 = _mm_unpacklo_epi8(row(r4, x), row(r5, x)), t3 = _mm_unpacklo_epi8(row(r6, x), row(r7, x))
            let u0 = _mm_unpacklo_epi16(t0, t1), u1 = _mm_unpackhi_epi16(t0, t1)
            let u2 = _mm_unpacklo_epi16(t2, t3), u3 = _mm_unpackhi_epi16(t2, t3)
            @inline(__always) func pair(_ v: __m128i, _ j: Int) {
                column(_mm_unpacklo_epi8(v, zero), a + x + 2 * j)
                column(_mm_unpackhi_epi8(v, zero), a + x + 2 * j + 1)
            }
            pair(_mm_unpacklo_epi32(u0, u2), 0)
            pair(_mm_unpackhi_epi32(u0, u2), 1)
            pair(_mm_unpacklo_epi32(u1, u3), 2)
            pair(_mm_unpackhi_epi32(u1, u3), 3)
            x += 8
        }
        return x
    }

    /// Lane k of positions 0..<width (8 UInt16 lanes per position) to row k of `out`, for whole blocks of 8 positions
    /// by 8×8 16-bit transposes; returns how many positions were done.
    static func boxTransposeGroups(
        _ lanes: UnsafePointer<UInt16>, width: Int, into out: UnsafeMutablePointer<UInt16>, rowStride: Int
    ) -> Int {
        var x = 0
        while x + 8 <= width {
            BoxCascadeFixedCore.transpose8x8({ i in _mm_loadu_si128(vector(lanes + 8 * (x + i))) }) { k, v in
                _mm_storeu_si128(vector(out + k * rowStride + x), v)
            }
            x += 8
        }
        return x
    }
}
#endif
