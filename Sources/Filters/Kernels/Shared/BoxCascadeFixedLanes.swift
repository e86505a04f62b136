#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel
#endif

// Compiled three times with BoxCascadeFixedCore.swift (in FiltersPortable and FiltersAVX2 through their Shared links): the moves
// between rows of bytes and the cascade's lanes, and back.

extension BoxCascadeFixedCore {
    /// Four rows of four-channel pixels as lanes, ·2^f: lanes 4k…4k+3 a pixel of row k.
    static func load4(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, from x0: Int, width: Int, fractionBits f: Int, into a: UnsafeMutablePointer<Lanes>
    ) {
        let p0 = UnsafeRawPointer(rows[0] + 4 * x0), p1 = UnsafeRawPointer(rows[1] + 4 * x0)
        let p2 = UnsafeRawPointer(rows[2] + 4 * x0), p3 = UnsafeRawPointer(rows[3] + 4 * x0)
        let shift = Lanes(repeating: UInt16(f))
        for x in 0..<width {
            let o = x &* 4
            let bytes = SIMD16<UInt8>(
                lowHalf: SIMD8(
                    lowHalf: p0.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self),
                    highHalf: p1.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self)),
                highHalf: SIMD8(
                    lowHalf: p2.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self),
                    highHalf: p3.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self)))
            a[x] = Lanes(truncatingIfNeeded: bytes) &<< shift
        }
    }

    /// The inverse of `load4` without the scaling: lanes 4k…4k+3 to `out[k]`.
    static func store4(_ a: UnsafePointer<Lanes>, width: Int, into out: UnsafePointer<UnsafeMutablePointer<UInt16>>) {
        let d0 = UnsafeMutableRawPointer(out[0]), d1 = UnsafeMutableRawPointer(out[1])
        let d2 = UnsafeMutableRawPointer(out[2]), d3 = UnsafeMutableRawPointer(out[3])
        for x in 0..<width {
            let v = a[x], o = x &* 8
            d0.storeBytes(of: v.lowHalf.lowHalf, toByteOffset: o, as: SIMD4<UInt16>.self)
            d1.storeBytes(of: v.lowHalf.highHalf, toByteOffset: o, as: SIMD4<UInt16>.self)
            d2.storeBytes(of: v.highHalf.lowHalf, toByteOffset: o, as: SIMD4<UInt16>.self)
            d3.storeBytes(of: v.highHalf.highHalf, toByteOffset: o, as: SIMD4<UInt16>.self)
        }
    }

    /// Sixteen rows of one-channel samples as lanes, ·2^f: lane k a sample of row k. Sixteen positions a step by a
    /// 16×16 byte transpose in SSE2 unpacks (a lane at a time costs a load and an insert per sample).
    static func load16(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, from x0: Int, width: Int, fractionBits f: Int, into a: UnsafeMutablePointer<Lanes>
    ) {
        let shift = Lanes(repeating: UInt16(f))
        var x = 0
        #if SWIFTCAM_INTRINSICS
        let zero = _mm_setzero_si128()
        // The column count comes back as the closure's result: a `var` of the function captured by the closure (and
        // by `column` in it) was checked for exclusive access at run time on every access (swift_beginAccess and a
        // thread-local access set, a visible share of the NV12 blur's time in a profile).
        x = withUnsafeTemporaryAllocation(of: __m128i.self, capacity: 32) { buffer -> Int in
            let u = buffer.baseAddress!, w = u + 16
            var x = 0
            while x &+ 16 <= width {
                for i in 0..<16 { u[i] = _mm_loadu_si128(UnsafeRawPointer(rows[i] + x0 + x).assumingMemoryBound(to: __m128i.self)) }
                // w[8h + i]: rows 2i, 2i+1 of columns 8h…8h+7, in 16-bit units.
                for i in 0..<8 {
                    w[i] = _mm_unpacklo_epi8(u[2 * i], u[2 * i + 1])
                    w[8 + i] = _mm_unpackhi_epi8(u[2 * i], u[2 * i + 1])
                }
                // u[8h + 2j + q]: rows 4j…4j+3 of columns 8h + 4q…, in 32-bit units.
                for h in 0..<2 {
                    for j in 0..<4 {
                        u[8 * h + 2 * j] = _mm_unpacklo_epi16(w[8 * h + 2 * j], w[8 * h + 2 * j + 1])
                        u[8 * h + 2 * j + 1] = _mm_unpackhi_epi16(w[8 * h + 2 * j], w[8 * h + 2 * j + 1])
                    }
                }
                // w[8h + 4q + 2m + s]: rows 8m…8m+7 of columns 8h + 4q + 2s…, in 64-bit units.
                for h in 0..<2 {
                    for q in 0..<2 {
                        for m in 0..<2 {
                            w[8 * h + 4 * q + 2 * m] = _mm_unpacklo_epi32(u[8 * h + 4 * m + q], u[8 * h + 4 * m + 2 + q])
                            w[8 * h + 4 * q + 2 * m + 1] = _mm_unpackhi_epi32(u[8 * h + 4 * m + q], u[8 * h + 4 * m + 2 + q])
                        }
                    }
                }
                let at = a + x
                @inline(__always) func column(_ v: __m128i, _ c: Int) {
                    let lanes = Lanes(
                        lowHalf: unsafeBitCast(_mm_unpacklo_epi8(v, zero), to: SIMD8<UInt16>.self),
                        highHalf: unsafeBitCast(_mm_unpackhi_epi8(v, zero), to: SIMD8<UInt16>.self))
                    at[c] = lanes &<< shift
                }
                for h in 0..<2 {
                    for q in 0..<2 {
                        for s in 0..<2 {
                            let c = 8 * h + 4 * q + 2 * s
                            column(_mm_unpacklo_epi64(w[8 * h + 4 * q + s], w[8 * h + 4 * q + 2 + s]), c)
                            column(_mm_unpackhi_epi64(w[8 * h + 4 * q + s], w[8 * h + 4 * q + 2 + s]), c + 1)
                        }
                    }
                }
                x &+= 16
            }
            return x
        }
        #endif
        while x < width {
            var v = Lanes()
            for k in 0..<16 { v[k] = UInt16(rows[k][x0 + x]) }
            a[x] = v &<< shift
            x += 1
        }
    }

    #if SWIFTCAM_INTRINSICS
    /// An 8×8 transpose of 16-bit samples in SSE2 unpacks: `store(k, v)` gets lane k of each of `load(0…7)`.
    @inline(__always)
    static func transpose8x8(_ load: (Int) -> __m128i, _ store: (Int, __m128i) -> Void) {
        let t0 = _mm_unpacklo_epi16(load(0), load(1)), t1 = _mm_unpackhi_epi16(load(0), load(1))
        let t2 = _mm_unpacklo_epi16(load(2), load(3)), t3 = _mm_unpackhi_epi16(load(2), load(3))
        let t4 = _mm_unpacklo_epi16(load(4), load(5)), t5 = _mm_unpackhi_epi16(load(4), load(5))
        let t6 = _mm_unpacklo_epi16(load(6), load(7)), t7 = _mm_unpackhi_epi16(load(6), load(7))
        let u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2), u2 = _mm_unpacklo_epi32(t1, t3),
            u3 = _mm_unpackhi_epi32(t1, t3)
        let u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6), u6 = _mm_unpacklo_epi32(t5, t7),
            u7 = _mm_unpackhi_epi32(t5, t7)
        store(0, _mm_unpacklo_epi64(u0, u4)); store(1, _mm_unpackhi_epi64(u0, u4))
        store(2, _mm_unpacklo_epi64(u1, u5)); store(3, _mm_unpackhi_epi64(u1, u5))
        store(4, _mm_unpacklo_epi64(u2, u6)); store(5, _mm_unpackhi_epi64(u2, u6))
        store(6, _mm_unpacklo_epi64(u3, u7)); store(7, _mm_unpackhi_epi64(u3, u7))
    }
    #endif

    /// The inverse of `load16` without the scaling: lane k to `out[k]`, eight positions a step by 8×8 transposes.
    static func store16(_ a: UnsafePointer<Lanes>, width: Int, into out: UnsafePointer<UnsafeMutablePointer<UInt16>>) {
        var x = 0
        #if SWIFTCAM_INTRINSICS
        let raw = UnsafeRawPointer(a)
        while x &+ 8 <= width {
            for half in 0..<2 {
                transpose8x8({ i in raw.loadUnaligned(fromByteOffset: 32 &* (x &+ i) &+ 16 &* half, as: __m128i.self) }) { k, v in
                    UnsafeMutableRawPointer(out[8 * half + k] + x).storeBytes(of: v, as: __m128i.self)
                }
            }
            x &+= 8
        }
        #endif
        while x < width {
            for k in 0..<16 { out[k][x] = a[x][k] }
            x += 1
        }
    }

    /// Two vectors rounded from f fraction bits and saturated to bytes, in lane order.
    @inline(__always)
    static func bytes(_ v: Lanes, _ w: Lanes, fractionBits f: Int) -> SIMD32<UInt8> {
        let half = Lanes(repeating: UInt16(1) << UInt16(f - 1)), shift = Lanes(repeating: UInt16(f))
        let x = (v &+ half) &>> shift, y = (w &+ half) &>> shift
        #if SWIFTCAM_AVX2
        // packuswb works within 128-bit halves; the dword permute puts them back in order (vpermq is a
        // macro Swift cannot import).
        let packed = _mm256_packus_epi16(unsafeBitCast(x, to: __m256i.self), unsafeBitCast(y, to: __m256i.self))
        let order = unsafeBitCast(SIMD8<Int32>(0, 1, 4, 5, 2, 3, 6, 7), to: __m256i.self)
        return unsafeBitCast(_mm256_permutevar8x32_epi32(packed, order), to: SIMD32<UInt8>.self)
        #elseif SWIFTCAM_INTRINSICS
        @inline(__always) func pack(_ v: Lanes) -> SIMD16<UInt8> {
            unsafeBitCast(
                _mm_packus_epi16(unsafeBitCast(v.lowHalf, to: __m128i.self), unsafeBitCast(v.highHalf, to: __m128i.self)),
                to: SIMD16<UInt8>.self)
        }
        return SIMD32(lowHalf: pack(x), highHalf: pack(y))
        #else
        // A vector select for the clamp and the low byte of each lane (`evenHalf` of the bytes): lane loops of min and
        // truncation stayed scalar.
        let top = Lanes(repeating: 255)
        var cx = x, cy = y
        cx.replace(with: top, where: x .> top)
        cy.replace(with: top, where: y .> top)
        return SIMD32(
            lowHalf: unsafeBitCast(cx, to: SIMD32<UInt8>.self).evenHalf, highHalf: unsafeBitCast(cy, to: SIMD32<UInt8>.self).evenHalf)
        #endif
    }
}
