// This file is compiled four times: into Filters over its 128-bit SSE2 `Wide` and, through their Shared links, into
// FiltersAVX2 and FiltersAVX512 over theirs and into FiltersPortable (without SWIFTCAM_INTRINSICS) over Swift's SIMD
// types. Every step stays within 128-bit lanes (pmaddwd, packs, unpacks), so each width gives the same bytes; RGBGreyPass.pixel is the same arithmetic one pixel at a time.
#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel
#endif

/// The row loops of the grey pass (RGBGreyPass): a colour map whose three matrix rows are equal (mono,
/// sepia at full intensity, the luma before threshold's step) is one weighted sum per pixel.
package enum GreyCore {
    #if SWIFTCAM_INTRINSICS
    /// Runs whole steps (two vectors of pixels) of one row from `src` to `dst` (which may be the same
    /// memory); returns how many pixels it did.
    ///
    /// `G = Σ wᵢ·bᵢ` over the four bytes of a pixel (Q14 weights, 0 for alpha/padding; `even` pairs the
    /// weights of bytes 0 and 2 in a 32-bit lane, `odd` those of 1 and 3, for two pmaddwd), `h = G >> 8`
    /// (6 fraction bits) packed to 16 bits, and byte j of the pixel `clamp((h + offsets[j]) >> 6)`, the
    /// pack to bytes clamping; the byte `keep` masks is copied from `src`. With `uniform` all four offsets
    /// are equal (mono): the shift comes before the spread to the four bytes.
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, uniform: Bool, keep: UInt32
    ) -> Int {
        typealias W = Wide
        let evenWeights = W.splat32(even), oddWeights = W.splat32(odd), low = W.splat32(0x00FF_00FF)
        let alpha = W.splat32(Int32(bitPattern: keep))
        let pattern =
            UInt64(UInt16(bitPattern: offsets[0])) | UInt64(UInt16(bitPattern: offsets[1])) << 16
            | UInt64(UInt16(bitPattern: offsets[2])) << 32 | UInt64(UInt16(bitPattern: offsets[3])) << 48
        let perByte = W.splat64(Int64(bitPattern: pattern))
        let same = W.splat16(offsets[0])
        @inline(__always) func grey(_ v: W.V) -> W.V {
            let sum = W.add32(W.multiplyAdd16(W.and(v, low), evenWeights), W.multiplyAdd16(W.and(W.shiftRight32(v, 8), low), oddWeights))
            return W.shiftRightArithmetic32(sum, 8)
        }
        @inline(__always) func finish(_ v: W.V, _ source: W.V) -> W.V { W.or(W.andNot(alpha, v), W.and(source, alpha)) }
        let step = 2 * W.pixels
        var x = 0
        while x &+ step <= width {
            let a = W.load(src + 4 &* x), b = W.load(src + 4 &* (x &+ W.pixels))
            // Per 128-bit lane: a's four pixels, then b's.
            let h = W.packSigned32(grey(a), grey(b))
            let outA: W.V, outB: W.V
            if uniform {
                let y = W.shiftRight16(W.add16(h, same), 6)
                let bytes = W.packUnsigned16(y, y)
                let pairs = W.unpackLow8(bytes, bytes)
                outA = W.unpackLow16(pairs, pairs)
                outB = W.unpackHigh16(pairs, pairs)
            } else {
                // `words`: each of four pixels' h twice; out: each four times, plus its byte's offset.
                @inline(__always) func spread(_ words: W.V) -> W.V {
                    let first = W.unpackLow32(words, words), second = W.unpackHigh32(words, words)
                    return W.packUnsigned16(W.shiftRight16(W.add16(first, perByte), 6), W.shiftRight16(W.add16(second, perByte), 6))
                }
                outA = spread(W.unpackLow16(h, h))
                outB = spread(W.unpackHigh16(h, h))
            }
            W.store(dst + 4 &* x, finish(outA, a))
            W.store(dst + 4 &* (x &+ W.pixels), finish(outB, b))
            x &+= step
        }
        return x
    }
    #else
    /// The constants of `row` as vectors.
    private struct Constants {
        var even: I16x8, odd: I16x8
        /// Loaded at run time: with a literal mask LLVM took the bytes apart one at a time (RGBFixedKernel).
        var pairs: SIMD4<UInt32>
        var offsets: (I16x8, I16x8, I16x8, I16x8)
    }

    /// `row`'s constants as vectors in memory the caller keeps (and frees): a multiplier splatted from a scalar in the
    /// loop, or from a local the optimizer can see, came out as 32-bit multiplies (FixedPoint.swift).
    package static func vectors(even: Int32, odd: Int32, offsets: SIMD4<Int16>) -> UnsafeMutableRawPointer {
        @inline(__always) func splat(_ v: Int16) -> I16x8 { I16x8(repeating: v) }
        let constants = UnsafeMutablePointer<Constants>.allocate(capacity: 1)
        constants.initialize(
            to: Constants(
                even: unsafeBitCast(SIMD4<Int32>(repeating: even), to: I16x8.self),
                odd: unsafeBitCast(SIMD4<Int32>(repeating: odd), to: I16x8.self), pairs: SIMD4(repeating: 0x00FF_00FF),
                offsets: (splat(offsets[0]), splat(offsets[1]), splat(offsets[2]), splat(offsets[3]))))
        return UnsafeMutableRawPointer(constants)
    }

    /// `row` in Swift's SIMD types (FixedPoint.swift's helpers: pmaddwd, packs and pmaxsw/pminsw on SSE2, their NEON
    /// counterparts on ARM64), eight pixels a step with `vectors`' constants: the same operations per lane, so the
    /// same bytes (the pack to 16 bits never saturates and the add never wraps for what RGBGreyPass accepts).
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        let c = vectors.assumingMemoryBound(to: Constants.self)
        return uniform ? run(src, dst, width, c, keep, On.self) : run(src, dst, width, c, keep, Off.self)
    }

    @inline(__always)
    private static func run<Uniform: Flag>(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ c: UnsafePointer<Constants>, _ keep: UInt32,
        _: Uniform.Type
    ) -> Int {
        let kept = SIMD4<UInt32>(repeating: keep)
        var x = 0
        while x &+ 8 <= width {
            let (v0, v1) = eightPixels(src + 4 &* x)
            let h = weightedLevels(src + 4 &* x, pairs: c.pointee.pairs, even: c.pointee.even, odd: c.pointee.odd, shift: 8)
            let o = c.pointee.offsets
            let c0 = clampByte((h &+ o.0) &>> 6)
            let low = Uniform.on ? c0 | c0 &<< 8 : c0 | clampByte((h &+ o.1) &>> 6) &<< 8
            let high = Uniform.on ? low : clampByte((h &+ o.2) &>> 6) | clampByte((h &+ o.3) &>> 6) &<< 8
            let (w0, w1) = interleavePixels(low, high)
            dst.storeBytes(of: (w0 & ~kept) | (v0 & kept), toByteOffset: 4 &* x, as: SIMD4<UInt32>.self)
            dst.storeBytes(of: (w1 & ~kept) | (v1 & kept), toByteOffset: 4 &* x &+ 16, as: SIMD4<UInt32>.self)
            x &+= 8
        }
        return x
    }
    #endif

    /// `dst[x] = table[clampRound(((r·k0 + g·k1) + b·k2) + offset)] | (alpha[x] & keep)` for the first `count`
    /// pixels, in whole groups of 16 (returns how many it did): the float pass's luma, operation for operation
    /// (RGBPointKernel's affine and `clampRound`), so a step curve after it sees every pixel on the same side.
    /// Without `table`, the index itself in every byte but the kept one (for byte tables after it).
    /// `dst` may be `src` or `alpha`: each group is read before it is written.
    package static func tableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int,
        shifts: SIMD3<UInt32>, k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int {
        // Two loops: with the table test inside one, LLVM no longer vectorised the luma (14 instead of 7 ins/px).
        let kept = SIMD16<UInt32>(repeating: keep)
        var x = 0
        if let table {
            while x &+ 16 <= count {
                let index = luma(src + 4 &* x, shifts, k, offset)
                var out = alpha.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD16<UInt32>.self) & kept
                for i in 0..<16 { out[i] |= table[Int(index[i])] }
                dst.storeBytes(of: out, toByteOffset: 4 &* x, as: SIMD16<UInt32>.self)
                x &+= 16
            }
        } else {
            while x &+ 16 <= count {
                let index = luma(src + 4 &* x, shifts, k, offset)
                let out = (alpha.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD16<UInt32>.self) & kept) | ((index &* 0x0101_0101) & ~kept)
                dst.storeBytes(of: out, toByteOffset: 4 &* x, as: SIMD16<UInt32>.self)
                x &+= 16
            }
        }
        return x
    }

    /// `tableRow` for a table of two entries, `low` below index `cut` and `high` from it on (threshold): a compare
    /// and a select instead of a lookup.
    package static func stepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int,
        shifts: SIMD3<UInt32>, k: SIMD3<Float>, offset: Float, cut: UInt32, low: UInt32, high: UInt32, keep: UInt32
    ) -> Int {
        let kept = SIMD16<UInt32>(repeating: keep), cuts = SIMD16<UInt32>(repeating: cut)
        let lows = SIMD16<UInt32>(repeating: low), highs = SIMD16<UInt32>(repeating: high)
        var x = 0
        while x &+ 16 <= count {
            var colour = lows
            colour.replace(with: highs, where: luma(src + 4 &* x, shifts, k, offset) .>= cuts)
            let out = (alpha.loadUnaligned(fromByteOffset: 4 &* x, as: SIMD16<UInt32>.self) & kept) | colour
            dst.storeBytes(of: out, toByteOffset: 4 &* x, as: SIMD16<UInt32>.self)
            x &+= 16
        }
        return x
    }

    /// The 16 indices of `tableRow` for the pixels at `p`.
    @inline(__always)
    private static func luma(_ p: UnsafeRawPointer, _ shifts: SIMD3<UInt32>, _ k: SIMD3<Float>, _ offset: Float) -> SIMD16<UInt32> {
        typealias F = SIMD16<Float>
        let mask = SIMD16<UInt32>(repeating: 0xFF)
        let v = p.loadUnaligned(as: SIMD16<UInt32>.self)
        @inline(__always) func channel(_ shift: UInt32) -> F {
            let c = unsafeBitCast((v &>> shift) & mask, to: SIMD16<Int32>.self)
            var f = F()
            for i in 0..<16 { f[i] = Float(c[i]) }
            return f
        }
        var l =
            channel(shifts.x) * F(repeating: k.x) + channel(shifts.y) * F(repeating: k.y) + channel(shifts.z) * F(repeating: k.z)
            + F(repeating: offset)
        l.replace(with: F(repeating: 0), where: .!(l .> 0))
        l.replace(with: F(repeating: 255), where: l .> 255)
        return unsafeBitCast(l + F(repeating: 12_582_912), to: SIMD16<UInt32>.self) & mask
    }
}
