#if canImport(_Builtin_intrinsics.intel)
import _Builtin_intrinsics.intel
#endif

// Compiled twice, like BoxCascadeCore: into Filters for SSE2 and, through a symlink, into FiltersAVX2,
// where each 16-lane vector is one ymm register. Lane-wise integer operations only, so both give the same bits.

/// The box cascade of blur in 16-bit fixed point: 16 samples a vector, where the float cascade has 8.
///
/// Samples carry `fractionBits` fraction bits (value·2^f). A pass computes
/// `mulhi(S + bias, inner) + mulhi(l + n, outer)`: S the running sum of the 2r + 1 central samples,
/// l and n the two at distance r + 1, `mulhi` the high half of the unsigned 16×16-bit product (pmulhuw),
/// `inner` and `outer` the weights ·2¹⁶. The running sum wraps modulo 2¹⁶ while it runs but is exact
/// whenever the true window sum is below 2¹⁶, which `fractionBits(radius:)` makes sure of. Each pass is
/// normalised, so the values stay below 2^f·256. Both high multiplies truncate, −1/2 unit each on average;
/// `bias` (≈ 2¹⁶/inner, carried in the running sum at no cost) adds one unit back to the first, so a pass
/// is off by less than one unit either way and by none on average.
///
/// Integer sums are exact, so the result does not depend on where a sweep starts: bands of rows give the
/// same bits as one sweep over the frame.
package enum BoxCascadeFixedCore {
    /// Samples of one lane group per position.
    package typealias Lanes = SIMD16<UInt16>

    /// One pass in fixed point.
    package struct Box: Equatable, Sendable {
        package var radius: Int
        /// The weight of each of the 2r + 1 central samples, ·2¹⁶.
        package var inner: UInt16
        /// The weight of each of the two samples at r + 1, ·2¹⁶.
        package var outer: UInt16
        /// Where each running sum starts: ≈ 2¹⁶/inner, so that it adds one unit after the multiply.
        package var bias: UInt16

        package init(radius: Int, inner: UInt16, outer: UInt16, bias: UInt16) {
            self.radius = radius
            self.inner = inner
            self.outer = outer
            self.bias = bias
        }
    }

    /// The most a pass's output can exceed 255·2^f by: the bias adds at most one unit per pass, and at most
    /// eight passes run before the last one of an axis (four per axis).
    package static let growth = 8

    /// The fraction bits a cascade of boxes of radius up to `radius` can carry: 5 or 4, or nil when even 4
    /// would let a window sum reach 2¹⁶ (radius > 7; the float cascade runs there). 5 bits up to radius 3.
    package static func fractionBits(radius: Int) -> Int? {
        for f in [5, 4] {
            let top = 255 << f + growth
            // The bias is below 2¹⁶/inner ≤ 2r + 3 + 1.
            if (2 * radius + 1) * top + 2 * radius + 4 < 65_536 { return f }
        }
        return nil
    }

    /// The high 16 bits of each lane's unsigned product (pmulhuw).
    @inline(__always)
    static func mulhi(_ a: Lanes, _ b: Lanes) -> Lanes {
        #if SWIFTCAM_AVX2
        return unsafeBitCast(_mm256_mulhi_epu16(unsafeBitCast(a, to: __m256i.self), unsafeBitCast(b, to: __m256i.self)), to: Lanes.self)
        #elseif canImport(_Builtin_intrinsics.intel)
        @inline(__always) func half(_ x: SIMD8<UInt16>, _ y: SIMD8<UInt16>) -> SIMD8<UInt16> {
            unsafeBitCast(_mm_mulhi_epu16(unsafeBitCast(x, to: __m128i.self), unsafeBitCast(y, to: __m128i.self)), to: SIMD8<UInt16>.self)
        }
        return Lanes(lowHalf: half(a.lowHalf, b.lowHalf), highHalf: half(a.highHalf, b.highHalf))
        #else
        return Lanes(truncatingIfNeeded: (SIMD16<UInt32>(truncatingIfNeeded: a) &* SIMD16<UInt32>(truncatingIfNeeded: b)) &>> 16)
        #endif
    }

    /// `passes` box passes along positions `stride` vectors apart, in one sweep over `a`, in place: the same
    /// schedule as `BoxCascadeCore.cascade` (read its comment), so the last pass's value at position p is in
    /// a[(p − passes·(r+1))·stride]. Needs positions > 2·passes·(r+1).
    @inline(never)
    package static func cascade(_ a: UnsafeMutablePointer<Lanes>, positions: Int, stride: Int, box: Box, passes: Int) {
        let r = box.radius, reach = r + 1
        let inner = Lanes(repeating: box.inner), outer = Lanes(repeating: box.outer)
        // A guard rather than a trap: GStreamer's threads run this; callers pad so that it never returns here.
        guard positions > 2 * passes * reach else { return }
        let end = positions - reach
        let steady = (2 * passes - 1) * reach + 1
        let distance = 2 * reach * stride
        let leaving = -reach * stride, entering = r * stride, next = reach * stride

        @inline(__always) func step(_ q: UnsafeMutablePointer<Lanes>, _ sum: inout Lanes) {
            let l = q[leaving]
            sum &+= q[entering] &- l
            q[leaving] = mulhi(sum, inner) &+ mulhi(l &+ q[next], outer)
        }

        withUnsafeTemporaryAllocation(of: Lanes.self, capacity: passes) { sums in
            for t in reach..<steady {
                for k in 0..<passes {
                    let i = t - k * reach, start = (k + 1) * reach
                    guard i >= start else { break }
                    let q = a + (t - 2 * k * reach) &* stride
                    if i == start {
                        var sum = Lanes(repeating: box.bias)
                        for j in -r...r { sum &+= q[j &* stride] }
                        sums[k] = sum
                        q[leaving] = mulhi(sum, inner) &+ mulhi(q[leaving] &+ q[next], outer)
                    } else {
                        step(q, &sums[k])
                    }
                }
            }
            var q = a + steady &* stride
            let last = a + end &* stride
            if passes == 4 {
                var s0 = sums[0], s1 = sums[1], s2 = sums[2], s3 = sums[3]
                while q < last {
                    step(q, &s0); step(q - distance, &s1); step(q - 2 * distance, &s2); step(q - 3 * distance, &s3)
                    q += stride
                }
            } else {
                while q < last {
                    for k in 0..<passes { step(q - k * distance, &sums[k]) }
                    q += stride
                }
            }
        }
    }

    /// Four rows of four-channel pixels as lanes, ·2^f: lanes 4k…4k+3 a pixel of row k.
    static func load4(_ rows: UnsafePointer<UnsafePointer<UInt8>>, width: Int, fractionBits f: Int, into a: UnsafeMutablePointer<Lanes>) {
        let p0 = UnsafeRawPointer(rows[0]), p1 = UnsafeRawPointer(rows[1]), p2 = UnsafeRawPointer(rows[2]), p3 = UnsafeRawPointer(rows[3])
        let shift = Lanes(repeating: UInt16(f))
        for x in 0..<width {
            let o = x &* 4
            let bytes = SIMD16<UInt8>(
                lowHalf: SIMD8(lowHalf: p0.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self),
                               highHalf: p1.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self)),
                highHalf: SIMD8(lowHalf: p2.loadUnaligned(fromByteOffset: o, as: SIMD4<UInt8>.self),
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

    /// Lane groups per row of a vertical strip: 64 samples, one whole cache line of bytes out per row.
    package static let stripGroups = 4

    /// `rows` rows of 16·`stripGroups` samples, `rowStride` samples apart, as `stripGroups` lanes per row.
    static func loadStrip(_ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<Lanes>) {
        var src = UnsafeRawPointer(plane), dst = a
        for _ in 0..<rows {
            for j in 0..<stripGroups { dst[j] = src.loadUnaligned(fromByteOffset: 32 &* j, as: Lanes.self) }
            src += rowStride &* 2
            dst += stripGroups
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
        #elseif canImport(_Builtin_intrinsics.intel)
        @inline(__always) func pack(_ v: Lanes) -> SIMD16<UInt8> {
            unsafeBitCast(_mm_packus_epi16(unsafeBitCast(v.lowHalf, to: __m128i.self), unsafeBitCast(v.highHalf, to: __m128i.self)), to: SIMD16<UInt8>.self)
        }
        return SIMD32(lowHalf: pack(x), highHalf: pack(y))
        #else
        let m = Lanes(repeating: 255)
        return SIMD32(lowHalf: SIMD16(truncatingIfNeeded: pointwiseMin(x, m)), highHalf: SIMD16(truncatingIfNeeded: pointwiseMin(y, m)))
        #endif
    }

    /// `rows` rows of `stripGroups` lanes as bytes to rows `rowBytes` apart.
    static func storeStrip(_ a: UnsafePointer<Lanes>, rows: Int, fractionBits f: Int, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        var src = a, dst = UnsafeMutableRawPointer(d)
        for _ in 0..<rows {
            dst.storeBytes(of: bytes(src[0], src[1], fractionBits: f), as: SIMD32<UInt8>.self)
            dst.storeBytes(of: bytes(src[2], src[3], fractionBits: f), toByteOffset: 32, as: SIMD32<UInt8>.self)
            src += stripGroups
            dst += rowBytes
        }
    }

    /// Horizontal blur of four rows of four-channel pixels (`rows[k]`, `width` pixels, some may repeat) to
    /// `out[k]` as samples with f fraction bits; `a` holds width + 2·passes·(r+1) lanes.
    package static func horizontal(_ rows: UnsafePointer<UnsafePointer<UInt8>>, width: Int, box: Box, passes: Int, fractionBits f: Int,
                                   buffer a: UnsafeMutablePointer<Lanes>, into out: UnsafePointer<UnsafeMutablePointer<UInt16>>) {
        let pad = passes * (box.radius + 1)
        load4(rows, width: width, fractionBits: f, into: a + pad)
        (a).update(repeating: a[pad], count: pad)
        (a + pad + width).update(repeating: a[pad + width - 1], count: pad)
        cascade(a, positions: width + 2 * pad, stride: 1, box: box, passes: passes)
        store4(a, width: width, into: out)
    }

    /// Vertical blur of the `count` (≤ 16·`stripGroups`) columns of `rows` rows of samples at `plane`, `rowStride`
    /// samples apart, to bytes at `d`, rows `rowBytes` apart; `a` holds (rows + 2·passes·(r+1))·`stripGroups` lanes.
    package static func vertical(_ plane: UnsafePointer<UInt16>, rowStride: Int, count: Int, rows: Int, box: Box, passes: Int,
                                 fractionBits f: Int, buffer a: UnsafeMutablePointer<Lanes>, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        let pad = passes * (box.radius + 1), g = stripGroups
        let full = count == 16 * g
        if full {
            loadStrip(plane, rowStride: rowStride, rows: rows, into: a + pad * g)
        } else {
            // The last strip of a row: the missing columns are zeros, filtered and dropped.
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: 16 * g) { row in
                row.initialize(repeating: 0)
                for y in 0..<rows {
                    for i in 0..<count { row[i] = plane[y &* rowStride &+ i] }
                    loadStrip(row.baseAddress!, rowStride: 0, rows: 1, into: a + (pad + y) * g)
                }
            }
        }
        for p in 0..<pad {
            (a + p * g).update(from: a + pad * g, count: g)
            (a + (pad + rows + p) * g).update(from: a + (pad + rows - 1) * g, count: g)
        }
        for j in 0..<g where j * 16 < count {
            cascade(a + j, positions: rows + 2 * pad, stride: g, box: box, passes: passes)
        }
        if full {
            storeStrip(a, rows: rows, fractionBits: f, into: d, rowBytes: rowBytes)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16 * g) { bytes in
            for y in 0..<rows {
                storeStrip(a + y * g, rows: 1, fractionBits: f, into: bytes.baseAddress!, rowBytes: 0)
                (d + y * rowBytes).update(from: bytes.baseAddress!, count: count)
            }
        }
    }
}
