// This file is compiled into Filters for baseline x86-64 (SSE2) and, through their Shared links, into FiltersAVX2 for
// x86-64-v3 (AVX2), where each 8-lane vector is one ymm register, and into FiltersPortable (BoxCascadeFixedCore's use). The
// arithmetic is lane-wise and in the same order on both, so both give the same bits.

/// The 1-D box cascade of blur, the loop worth a wider instruction set.
package enum BoxCascadeCore {
    /// One pass: `inner` weights the 2r + 1 central samples, `outer` the two at distance r + 1.
    package struct Box: Equatable, Sendable {
        package var radius: Int
        package var inner, outer: Float

        package init(radius: Int, inner: Float, outer: Float) { (self.radius, self.inner, self.outer) = (radius, inner, outer) }
    }

    /// Samples of one lane group per position.
    package typealias Lanes = SIMD8<Float>

    /// `passes` box passes along positions `stride` vectors apart, all in one sweep over `a`, in place.
    /// Pass k is valid on positions k·(r+1)..<positions − k·(r+1); on return the last pass's value at
    /// position p is in a[(p − passes·(r+1))·stride], so a blur padded by passes·(r+1) on both sides
    /// starts at a[0]. Needs positions > 2·passes·(r+1).
    ///
    /// Why one sweep: pass k runs (r+1) positions behind pass k − 1 and writes its output over the
    /// input sample that has just left its window (pass k's value at p goes where pass k − 1's value
    /// at p − (r+1) was), so every pass reads and writes a window of a few positions that stays in
    /// L1, the sums stay in registers, and the buffer is read and written once instead of per pass.
    ///
    /// Unnormalised: each pass computes `S + β·(ends)` with β = outer/inner, so the result is the
    /// blur times `gain(box, passes)`, which the caller folds into its final scale (one multiply
    /// fewer per pass; in float the growth, < 2³² at σ = 50, costs no precision).
    // Not inlined: inside `run` LLVM split the lanes into even/odd halves around the loop (shufps/unpcklps per position).
    @inline(never)
    package static func cascade(_ a: UnsafeMutablePointer<Lanes>, positions: Int, stride: Int, box: Box, passes: Int) {
        let r = box.radius, reach = r + 1
        let beta = Lanes(repeating: box.outer / box.inner)
        let leaving = -reach * stride, entering = r * stride, next = reach * stride
        @inline(__always) func first(_ q: UnsafeMutablePointer<Lanes>) -> Lanes {
            var sum = Lanes()
            for j in -r...r { sum += q[j &* stride] }
            q[leaving] = sum + beta * (q[leaving] + q[next])
            return sum
        }
        /// The sum moves on by one and the output replaces the sample that left.
        @inline(__always) func step(_ q: UnsafeMutablePointer<Lanes>, _ sum: inout Lanes) {
            let l = q[leaving]
            sum += q[entering] - l
            q[leaving] = sum + beta * (l + q[next])
        }
        sweep(a, positions: positions, stride: stride, radius: r, passes: passes, first: first, step: step)
    }

    /// The schedule of `cascade` for any lane type, its arithmetic given: `first(q)` starts a pass around `q`
    /// (writes its output at q − reach and returns its running sum), `step(q, &sum)` moves a pass on to `q`.
    @inline(__always)
    package static func sweep<V>(
        _ a: UnsafeMutablePointer<V>, positions: Int, stride: Int, radius r: Int, passes: Int,
        first: (UnsafeMutablePointer<V>) -> V, step: (UnsafeMutablePointer<V>, inout V) -> Void
    ) {
        let reach = r + 1
        // Step t runs pass k at position t − (k−1)·reach; pass k starts at step (2k−1)·reach and
        // every pass ends at the same step.
        // Callers pad by passes·(r+1) on both sides of at least one sample, so this never returns here;
        // it is a guard rather than a trap because GStreamer's threads run this.
        guard positions > 2 * passes * reach else { return }
        let end = positions - reach
        let steady = (2 * passes - 1) * reach + 1
        // Pass k reads its input around position t − 2(k−1)·reach of the buffer: `distance` apart.
        let distance = 2 * reach * stride

        withUnsafeTemporaryAllocation(of: V.self, capacity: passes) { sums in
            // Start-up: each pass begins with the sum of its first window.
            for t in reach..<steady {
                for k in 0..<passes {
                    let i = t - k * reach, start = (k + 1) * reach
                    guard i >= start else { break }
                    let q = a + (t - 2 * k * reach) &* stride
                    if i == start {
                        (sums.baseAddress! + k).initialize(to: first(q))
                    } else {
                        step(q, &sums[k])
                    }
                }
            }
            // Steady state: every pass at every step, the sums in registers.
            var q = a + steady &* stride
            let last = a + end &* stride
            switch passes {
            case 4:
                var s0 = sums[0], s1 = sums[1], s2 = sums[2], s3 = sums[3]
                while q < last {
                    step(q, &s0); step(q - distance, &s1); step(q - 2 * distance, &s2); step(q - 3 * distance, &s3)
                    q += stride
                }
            case 6:
                var s0 = sums[0], s1 = sums[1], s2 = sums[2], s3 = sums[3], s4 = sums[4], s5 = sums[5]
                while q < last {
                    step(q, &s0); step(q - distance, &s1); step(q - 2 * distance, &s2)
                    step(q - 3 * distance, &s3); step(q - 4 * distance, &s4); step(q - 5 * distance, &s5)
                    q += stride
                }
            default:
                while q < last {
                    for k in 0..<passes { step(q - k * distance, &sums[k]) }
                    q += stride
                }
            }
        }
    }

    // The conversions around the cascade, here so that they too run 8 lanes wide on AVX2. Through the
    // float mantissa: bytes OR 2²³'s bit pattern minus 2²³ is the byte as a float, and v + 1.5·2²³ puts
    // round(v) in the low mantissa bits; lane-wise integer and float operations only, exact either way.
    private static let magic: Float = 12_582_912

    /// round(v) for |v| < 2²².
    @inline(__always)
    package static func rounded(_ v: Lanes) -> SIMD8<Int32> {
        unsafeBitCast(v + Lanes(repeating: magic), to: SIMD8<Int32>.self) &- 0x4B40_0000
    }

    /// Eight small unsigned integers (< 2²³) as floats.
    @inline(__always)
    package static func float(_ v: SIMD8<UInt32>) -> Lanes {
        unsafeBitCast(v | 0x4B00_0000, to: Lanes.self) - Lanes(repeating: 8_388_608)
    }

    /// Two rows of four-channel pixels as lanes: lanes 0–3 a pixel of row 0, lanes 4–7 the same pixel of row 1.
    // Wrapping index arithmetic in these loops: with trapping `4 * x` the overflow checks and the
    // loop counter were a third of each iteration.
    package static func load4(_ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, width: Int, into a: UnsafeMutablePointer<Lanes>) {
        let p0 = UnsafeRawPointer(r0), p1 = UnsafeRawPointer(r1)
        for x in 0..<width {
            let pixels = SIMD8<UInt8>(
                lowHalf: p0.loadUnaligned(fromByteOffset: x &* 4, as: SIMD4<UInt8>.self),
                highHalf: p1.loadUnaligned(fromByteOffset: x &* 4, as: SIMD4<UInt8>.self))
            a[x] = float(SIMD8<UInt32>(truncatingIfNeeded: pixels))
        }
    }

    /// The inverse of `load4` after scaling: round(v·scale) as UInt16 (0 ≤ v·scale < 65536), lanes 0–3 to
    /// `o0`, 4–7 to `o1`.
    package static func store4(
        _ a: UnsafePointer<Lanes>, width: Int, scale: Lanes, _ o0: UnsafeMutablePointer<UInt16>,
        _ o1: UnsafeMutablePointer<UInt16>
    ) {
        let d0 = UnsafeMutableRawPointer(o0), d1 = UnsafeMutableRawPointer(o1)
        for x in 0..<width {
            let h = SIMD8<UInt16>(truncatingIfNeeded: rounded(a[x] * scale))
            d0.storeBytes(of: h.lowHalf, toByteOffset: x &* 8, as: SIMD4<UInt16>.self)
            d1.storeBytes(of: h.highHalf, toByteOffset: x &* 8, as: SIMD4<UInt16>.self)
        }
    }

    /// Lanes per row of a vertical strip: 64 samples, so each row of the strip reads two whole cache lines of
    /// the UInt16 plane and writes one whole line of bytes (32-sample strips: 3 % slower at 1080p RGBA).
    package static let stripGroups = 8

    /// `rows` rows of 8·`stripGroups` UInt16 samples, `rowStride` samples apart, as `stripGroups` lanes per row.
    package static func loadStrip(_ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<Lanes>) {
        var src = UnsafeRawPointer(plane), dst = a
        for _ in 0..<rows {
            for j in 0..<stripGroups {
                dst[j] = float(SIMD8<UInt32>(truncatingIfNeeded: src.loadUnaligned(fromByteOffset: 16 &* j, as: SIMD8<UInt16>.self)))
            }
            src += rowStride &* 2
            dst += stripGroups
        }
    }

    /// Eight floats rounded and clamped to 0...255, as bytes.
    @inline(__always)
    package static func storeBytes(_ v: Lanes, _ d: UnsafeMutablePointer<UInt8>) {
        let r = pointwiseMin(pointwiseMax(rounded(v), SIMD8(repeating: 0)), SIMD8(repeating: 255))
        UnsafeMutableRawPointer(d).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: r), as: SIMD8<UInt8>.self)
    }

    /// `rows` rows of `stripGroups` lanes, times `scale`, as bytes to rows `rowBytes` apart.
    package static func storeStrip(_ a: UnsafePointer<Lanes>, rows: Int, scale: Lanes, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        var src = a, dst = d
        for _ in 0..<rows {
            for j in 0..<stripGroups { storeBytes(src[j] * scale, dst + 8 &* j) }
            src += stripGroups
            dst += rowBytes
        }
    }
}
