// This file is compiled three times, like BoxCascadeCore.swift: into Filters for baseline x86-64 (SSE2)
// and, through their Shared links, into FiltersPortable (without SWIFTCAM_INTRINSICS: Swift SIMD types only) and FiltersAVX2
// (where each 16-lane vector of 16-bit values is one ymm register). Integer arithmetic and one correctly rounded √: the
// same bytes in every copy.
#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel
#endif

/// The row loops of edges (Sobel magnitude of luma), the part worth a wider instruction set.
package enum EdgesCore {
    /// Luma of one row of four-byte pixels: p[x] = (kr·R + kg·G + kb·B + 2¹⁴) >> 15, weights in Q15
    /// summing to 2¹⁵; `shifts` are the bit offsets of R, G and B in a little-endian pixel. The portable copy reads the
    /// weights from `vectors` (`lumaVectors`, in memory the caller keeps: a multiplier splatted in the loop came out as
    /// 32-bit multiplies, FixedPoint.swift); the others ignore it.
    package static func luma(
        _ s: UnsafePointer<UInt8>, width w: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        // The weight of each byte of a pixel (0 for alpha/padding), paired for pmaddwd: bytes 0 and 2
        // of a pixel are the two 16-bit halves of `v & 0x00FF00FF`, bytes 1 and 3 those of `(v >> 8) & …`.
        let (evenPair, oddPair) = bytePairs(weights, shifts)
        let even = SIMD8<Int32>(repeating: evenPair), odd = SIMD8<Int32>(repeating: oddPair)
        var x = 0
        #if !SWIFTCAM_INTRINSICS
        let c = vectors.assumingMemoryBound(to: LumaVectors.self)
        while x + 16 <= w {
            let v = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: SIMD16<UInt32>.self)
            @inline(__always) func sum(_ q: SIMD4<UInt32>) -> SIMD4<Int32> {
                weightedBytes(q, pairs: c.pointee.pairs, even: c.pointee.even, odd: c.pointee.odd)
            }
            let sums = SIMD16<Int32>(
                lowHalf: SIMD8(lowHalf: sum(v.lowHalf.lowHalf), highHalf: sum(v.lowHalf.highHalf)),
                highHalf: SIMD8(lowHalf: sum(v.highHalf.lowHalf), highHalf: sum(v.highHalf.highHalf)))
            UnsafeMutableRawPointer(p + x).storeBytes(of: clampedBytes((sums &+ 16384) &>> 15), as: SIMD16<UInt8>.self)
            x += 16
        }
        #endif
        while x + 16 <= w {
            let v = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: SIMD16<UInt32>.self)
            let sum = SIMD16<Int32>(lowHalf: weightedSum(v.lowHalf, even, odd), highHalf: weightedSum(v.highHalf, even, odd))
            UnsafeMutableRawPointer(p + x).storeBytes(of: clampedBytes((sum &+ 16384) &>> 15), as: SIMD16<UInt8>.self)
            x += 16
        }
        while x < w {
            let v = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: UInt32.self)
            let sum =
                weights.x &* Int32((v >> shifts.x) & 0xFF) &+ weights.y &* Int32((v >> shifts.y) & 0xFF)
                &+ weights.z &* Int32((v >> shifts.z) & 0xFF)
            p[x] = UInt8(truncatingIfNeeded: (sum &+ 16384) &>> 15)
            x += 1
        }
    }

    /// The Q15 weights of R, G and B at their bytes (0 for alpha/padding), bytes 0 and 2 paired in one 32-bit value, 1
    /// and 3 in the other, for pmaddwd.
    static func bytePairs(_ weights: SIMD3<Int32>, _ shifts: SIMD3<UInt32>) -> (even: Int32, odd: Int32) {
        var byteWeight = SIMD4<Int32>()
        byteWeight[Int(shifts.x / 8)] = weights.x
        byteWeight[Int(shifts.y / 8)] = weights.y
        byteWeight[Int(shifts.z / 8)] = weights.z
        return (byteWeight[0] | byteWeight[2] << 16, byteWeight[1] | byteWeight[3] << 16)
    }

    /// The portable `luma`'s weights as vectors, and the byte-pair mask (loaded at run time too: with a literal mask
    /// LLVM took the bytes apart one at a time).
    package struct LumaVectors {
        var even: SIMD8<Int16>, odd: SIMD8<Int16>, pairs: SIMD4<UInt32>
    }

    /// Writes `luma`'s vectors for `weights` and `shifts` at `vectors` (`MemoryLayout<LumaVectors>.size` bytes, 16-byte
    /// aligned).
    package static func lumaVectors(_ weights: SIMD3<Int32>, _ shifts: SIMD3<UInt32>, into vectors: UnsafeMutableRawPointer) {
        let (even, odd) = bytePairs(weights, shifts)
        vectors.bindMemory(to: LumaVectors.self, capacity: 1).initialize(
            to: LumaVectors(
                even: unsafeBitCast(SIMD4<Int32>(repeating: even), to: SIMD8<Int16>.self),
                odd: unsafeBitCast(SIMD4<Int32>(repeating: odd), to: SIMD8<Int16>.self), pairs: SIMD4(repeating: 0x00FF_00FF)))
    }

    /// Σ byte·weight over the four bytes of each pixel: two pmaddwd (bytes are < 2⁸, weights < 2¹⁵).
    @inline(__always)
    static func weightedSum(_ v: SIMD8<UInt32>, _ even: SIMD8<Int32>, _ odd: SIMD8<Int32>) -> SIMD8<Int32> {
        let lo = unsafeBitCast(v & 0x00FF_00FF, to: SIMD8<Int32>.self), hi = unsafeBitCast((v &>> 8) & 0x00FF_00FF, to: SIMD8<Int32>.self)
        #if SWIFTCAM_AVX2
        @inline(__always) func m(_ a: SIMD8<Int32>) -> __m256i { unsafeBitCast(a, to: __m256i.self) }
        return unsafeBitCast(_mm256_add_epi32(_mm256_madd_epi16(m(lo), m(even)), _mm256_madd_epi16(m(hi), m(odd))), to: SIMD8<Int32>.self)
        #elseif SWIFTCAM_INTRINSICS
        @inline(__always) func m(_ a: SIMD4<Int32>) -> __m128i { unsafeBitCast(a, to: __m128i.self) }
        @inline(__always) func half(_ l: SIMD4<Int32>, _ h: SIMD4<Int32>, _ e: SIMD4<Int32>, _ o: SIMD4<Int32>) -> SIMD4<Int32> {
            unsafeBitCast(_mm_add_epi32(_mm_madd_epi16(m(l), m(e)), _mm_madd_epi16(m(h), m(o))), to: SIMD4<Int32>.self)
        }
        return SIMD8(
            lowHalf: half(lo.lowHalf, hi.lowHalf, even.lowHalf, odd.lowHalf),
            highHalf: half(lo.highHalf, hi.highHalf, even.highHalf, odd.highHalf))
        #else
        let e = (even & 0xFFFF, even &>> 16), o = (odd & 0xFFFF, odd &>> 16)
        return (lo & 0xFFFF) &* e.0 &+ (lo &>> 16) &* e.1 &+ (hi & 0xFFFF) &* o.0 &+ (hi &>> 16) &* o.1
        #endif
    }

    /// `m[0..<w]` = min(255, round(√(gx² + gy²) + offset)) from three luma rows whose `[-1]` and `[w]` are
    /// readable; whole groups of 16, so the rows and `m` need 15 bytes of slack past `w + 1`.
    package static func sobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width w: Int,
        offset: Int32, into m: UnsafeMutablePointer<UInt8>
    ) {
        typealias Lanes = SIMD16<Int16>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> Lanes {
            let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
            var r = Lanes()
            for i in 0..<16 { r[i] = Int16(v[i]) }
            return r
        }
        var x = 0
        while x < w {
            let al = load(a + x - 1), ac = load(a + x), ar = load(a + x + 1)
            let hl = load(h + x - 1), hr = load(h + x + 1)
            let bl = load(b + x - 1), bc = load(b + x), br = load(b + x + 1)
            let gx = (ar &- al) &+ ((hr &- hl) &<< 1) &+ (br &- bl)
            let gy = (bl &- al) &+ ((bc &- ac) &<< 1) &+ (br &- ar)
            UnsafeMutableRawPointer(m + x).storeBytes(of: magnitudes(gx, gy, offset: offset), as: SIMD16<UInt8>.self)
            x += 16
        }
    }

    /// min(255, max(0, round(√(gx² + gy²)) + offset)) of 16 lanes, |gx|, |gy| ≤ 1020 (so gx² + gy² < 2²²).
    ///
    /// On x86 the squares are one pmaddwd per 8 lanes over gx and gy interleaved (unpack low/high: lanes
    /// 0–3 and 4–7 of each 128-bit half, which the signed pack after the root puts back in order). The
    /// root is sqrtps on the baseline path; on AVX2 (sqrtps goes through the divider, slow on Zen 4) it is
    /// rsqrtps (relative error ≤ 1.5·2⁻¹²) refined by one Newton step (≈ 2·10⁻⁷ relative, with the float
    /// roundings about 10⁻⁴ absolute below 256), well inside the 4.9·10⁻⁴
    /// by which √n of a whole n < 256² misses every half (n = k² + k is the closest, 0.125/(k + ½) away):
    /// both round to the same whole number (`SIMDPathTests.EdgesRootTests`, every (gx, gy) in range).
    @inline(__always)
    static func magnitudes(_ gx: SIMD16<Int16>, _ gy: SIMD16<Int16>, offset: Int32) -> SIMD16<UInt8> {
        #if SWIFTCAM_AVX2
        @inline(__always) func m(_ v: SIMD16<Int16>) -> __m256i { unsafeBitCast(v, to: __m256i.self) }
        let one = _mm256_set1_ps(1), half = _mm256_set1_ps(0.5), magic = _mm256_set1_ps(12_582_912)
        // The root's float bits minus the magic number's are the rounded root; the offset goes in the same subtraction.
        let unbias = _mm256_set1_epi32(0x4B40_0000 &- offset)
        @inline(__always) func roots(_ squares: __m256i) -> __m256i {
            let n = _mm256_cvtepi32_ps(squares)
            let r = _mm256_rsqrt_ps(_mm256_max_ps(n, one))
            let y = _mm256_mul_ps(n, r)
            let refined = _mm256_fmadd_ps(_mm256_mul_ps(y, half), _mm256_fnmadd_ps(y, r, one), y)
            return _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(refined, magic)), unbias)
        }
        let low = _mm256_unpacklo_epi16(m(gx), m(gy)), high = _mm256_unpackhi_epi16(m(gx), m(gy))
        let words = _mm256_packs_epi32(roots(_mm256_madd_epi16(low, low)), roots(_mm256_madd_epi16(high, high)))
        let halves = unsafeBitCast(words, to: SIMD16<Int16>.self)
        return unsafeBitCast(
            _mm_packus_epi16(unsafeBitCast(halves.lowHalf, to: __m128i.self), unsafeBitCast(halves.highHalf, to: __m128i.self)),
            to: SIMD16<UInt8>.self)
        #elseif SWIFTCAM_INTRINSICS
        @inline(__always) func m(_ v: SIMD8<Int16>) -> __m128i { unsafeBitCast(v, to: __m128i.self) }
        let magic = _mm_set1_ps(12_582_912), unbias = _mm_set1_epi32(0x4B40_0000 &- offset)
        @inline(__always) func roots(_ squares: __m128i) -> __m128i {
            _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(_mm_sqrt_ps(_mm_cvtepi32_ps(squares)), magic)), unbias)
        }
        @inline(__always) func eight(_ x: SIMD8<Int16>, _ y: SIMD8<Int16>) -> __m128i {
            let low = _mm_unpacklo_epi16(m(x), m(y)), high = _mm_unpackhi_epi16(m(x), m(y))
            return _mm_packs_epi32(roots(_mm_madd_epi16(low, low)), roots(_mm_madd_epi16(high, high)))
        }
        return unsafeBitCast(_mm_packus_epi16(eight(gx.lowHalf, gy.lowHalf), eight(gx.highHalf, gy.highHalf)), to: SIMD16<UInt8>.self)
        #else
        // The squares in float (exact below 2²⁴): 32-bit integer multiplies are slow where SSE2 lowers them.
        var x = SIMD16<Float>(), y = SIMD16<Float>()
        for i in 0..<16 {
            x[i] = Float(gx[i])
            y[i] = Float(gy[i])
        }
        return clampedBytes(roundedSquareRoot(x * x + y * y) &+ SIMD16<Int32>(repeating: offset))
        #endif
    }

    /// `magnitudes` of `count` (a multiple of 16) lanes, for tests: every path must give the same bytes.
    package static func magnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        for i in stride(from: 0, to: count, by: 16) {
            let x = UnsafeRawPointer(gx + i).loadUnaligned(as: SIMD16<Int16>.self)
            let y = UnsafeRawPointer(gy + i).loadUnaligned(as: SIMD16<Int16>.self)
            UnsafeMutableRawPointer(m + i).storeBytes(of: magnitudes(x, y, offset: offset), as: SIMD16<UInt8>.self)
        }
    }

    /// Each lane clamped to 0...255, as bytes (lane loops where a generic SIMD conversion or `pointwiseMin` stayed a
    /// call to an outlined specialisation): two saturating packs (a lane loop of min/max and
    /// truncation stayed scalar, about 60 instructions per 16 lanes).
    @inline(__always)
    static func clampedBytes(_ v: SIMD16<Int32>) -> SIMD16<UInt8> {
        #if SWIFTCAM_INTRINSICS
        @inline(__always) func m(_ q: SIMD4<Int32>) -> __m128i { unsafeBitCast(q, to: __m128i.self) }
        let words = (
            _mm_packs_epi32(m(v.lowHalf.lowHalf), m(v.lowHalf.highHalf)), _mm_packs_epi32(m(v.highHalf.lowHalf), m(v.highHalf.highHalf))
        )
        return unsafeBitCast(_mm_packus_epi16(words.0, words.1), to: SIMD16<UInt8>.self)
        #else
        // The clamp as shifts and masks (`replace(with:where:)` became scalar code with a branch per lane), then the low
        // half of each lane twice (`evenHalf` of 32 lanes; of the 64 bytes at once it went through the stack a byte at a time).
        let low = v & ~(v &>> 31), high = (255 &- low) &>> 31
        let c = (low & ~high) | (255 & high)
        let words = unsafeBitCast(c, to: SIMD32<UInt16>.self).evenHalf
        return unsafeBitCast(words, to: SIMD32<UInt8>.self).evenHalf
        #endif
    }

    /// round(√n) for whole 0 ≤ n < 2²⁴, lane-wise (the portable path). Float √ is correctly rounded and √n (n whole)
    /// never lies within 10⁻³ of a half for √n < 256, so rounding it is exact where the output is not saturated.
    @inline(__always)
    static func roundedSquareRoot(_ squares: SIMD16<Float>) -> SIMD16<Int32> {
        var root = SIMD16<Float>()
        for i in 0..<16 { root[i] = squares[i].squareRoot() }
        // Rounded through the mantissa (x + 1.5·2²³): no range-checked scalar conversions.
        return unsafeBitCast(root + SIMD16<Float>(repeating: 12_582_912), to: SIMD16<Int32>.self) &- 0x4B40_0000
    }

    /// One row of magnitudes as grey four-byte pixels: every byte the magnitude except the alpha
    /// byte (`alpha` masks it), which keeps the source's.
    package static func grey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width w: Int, alpha: UInt32,
        into d: UnsafeMutablePointer<UInt8>
    ) {
        let keep = SIMD16<UInt32>(repeating: alpha)
        var x = 0
        while x + 16 <= w {
            let bytes = UnsafeRawPointer(m + x).loadUnaligned(as: SIMD16<UInt8>.self)
            var b = SIMD16<UInt32>()
            for i in 0..<16 { b[i] = UInt32(bytes[i]) }
            // Shifts, not a multiply by 0x0101_0101: SSE2 has no 32-bit multiply.
            let g = b | b &<< 8 | b &<< 16 | b &<< 24
            let src = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: SIMD16<UInt32>.self)
            UnsafeMutableRawPointer(d + 4 * x).storeBytes(of: (g & ~keep) | (src & keep), as: SIMD16<UInt32>.self)
            x += 16
        }
        while x < w {
            let src = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: UInt32.self)
            UnsafeMutableRawPointer(d + 4 * x).storeBytes(of: (UInt32(m[x]) &* 0x0101_0101 & ~alpha) | (src & alpha), as: UInt32.self)
            x += 1
        }
    }
}
