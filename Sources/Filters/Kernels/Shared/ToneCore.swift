// This file is compiled four times, like GreyCore.swift: into Filters over its 128-bit SSE2 `Wide` and, through
// their Shared links, into FiltersAVX2 and FiltersAVX512 over theirs and into FiltersPortable (without SWIFTCAM_INTRINSICS)
// over Swift's SIMD types. Every step is lane-wise in 16- or 32-bit lanes (pmaddwd, pmulhw, packs and unpacks within
// 128-bit lanes), so each width gives the same bytes; RGBTonePass.pixel is the same arithmetic one pixel at a time.
#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel
#endif

/// The row loops of the tone pass (RGBTonePass): a colour map whose matrix rows are multiples of one row (sepia,
/// mono, and any map after either: contrast, saturation, brightness, invert), with or without a vignette, is one
/// weighted sum per pixel and one multiply per colour byte, instead of the 3×3 pass's nine.
///
/// Per pixel: `h = (Σ wᵢ·bᵢ) >> 7` over the four bytes (Q14 weights, 0 for alpha/padding; `even` pairs the weights of
/// bytes 0 and 2, `odd` those of 1 and 3, for two pmaddwd), the grey level with 7 fraction bits in a 16-bit lane;
/// per colour byte j `p = mulhi(h, gains[j]) + offsets[j]` (Q14 gains: 5 fraction bits). Without a vignette the byte
/// is `clamp(p >> 5)` (the rounding half is in the offset); with one, `g = max(0, row − column)` (Q15) and the byte
/// is `clamp((mulhi(p, g) + biases[j]) >> 4)`. The byte `keep` masks is copied from the source.
package enum ToneCore {
    #if SWIFTCAM_INTRINSICS
    /// Pixels per step of `row`: two vectors.
    package static var step: Int { 2 * Wide.pixels }

    /// The pixel whose column term lane `lane` of a step's gain vector holds: each 128-bit lane of the packed sums
    /// holds four pixels of the first vector, then the same four of the second.
    package static func pixel(atLane lane: Int) -> Int {
        let block = lane % step / 8, index = lane % 8
        return lane - lane % step + (index < 4 ? 4 * block + index : Wide.pixels + 4 * block + index - 4)
    }

    /// Runs whole steps of one row from `src` to `dst` (which may be the same memory unless `mirrored`); returns how
    /// many pixels it did. `columns`: the vignette's Q15 column terms in `pixel(atLane:)` order from the row's first
    /// pixel, nil without a vignette; `row`: the row term; `mirrored`: pixel x goes to `width − 1 − x` of `dst`.
    /// `table` (AVX-512 only; elsewhere nothing is done and 0 returned): 256 bytes, each entry xored with 0x80, that
    /// every byte goes through first (a table pass before this one, gamma in the 6-chain, done inside it).
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        gains: SIMD4<Int16>, offsets: SIMD4<Int16>, biases: SIMD4<Int16>, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, table: UnsafePointer<UInt8>? = nil
    ) -> Int {
        #if !SWIFTCAM_AVX512
        guard table == nil else { return 0 }
        #endif
        let t = UnsafeRawPointer(table ?? UnsafePointer(bitPattern: 64)!)
        // Each combination of the flags its own loop (constants in an always-inlined `run`).
        @inline(__always) func loop(_ gain: Bool, _ alphaFirst: Bool) -> Int {
            table == nil
                ? run(src, dst, width, even, odd, gains, offsets, biases, keep, columns, row, mirrored, t, gain, alphaFirst, false)
                : run(src, dst, width, even, odd, gains, offsets, biases, keep, columns, row, mirrored, t, gain, alphaFirst, true)
        }
        switch (columns != nil, keep == 0xFF) {
        case (false, false): return loop(false, false)
        case (false, true): return loop(false, true)
        case (true, false): return loop(true, false)
        case (true, true): return loop(true, true)
        }
    }

    #if SWIFTCAM_AVX512
    /// Every byte of `v` through the table's four 64-byte quarters (two-source byte permutes and a blend on the top bit,
    /// ByteTableCore's lookup), xored back from the centring.
    @inline(__always)
    private static func lookUp(_ v: __m512i, _ t: (__m512i, __m512i, __m512i, __m512i)) -> __m512i {
        let found = _mm512_mask_blend_epi8(
            _mm512_movepi8_mask(v), _mm512_permutex2var_epi8(t.0, v, t.1), _mm512_permutex2var_epi8(t.2, v, t.3))
        return _mm512_xor_si512(found, _mm512_set1_epi8(-128))
    }
    #endif

    @inline(__always)
    private static func run(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ even: Int32, _ odd: Int32,
        _ gains: SIMD4<Int16>, _ offsets: SIMD4<Int16>, _ biases: SIMD4<Int16>, _ keep: UInt32,
        _ columns: UnsafePointer<Int16>?, _ rowTerm: Int16, _ mirrored: Bool, _ table: UnsafeRawPointer, _ gain: Bool,
        _ alphaFirst: Bool, _ lookup: Bool
    ) -> Int {
        typealias W = Wide
        let evenWeights = W.splat32(even), oddWeights = W.splat32(odd), low = W.splat32(0x00FF_00FF)
        let alpha = W.splat32(Int32(bitPattern: keep)), zero = W.zero(), row = W.splat16(rowTerm)
        let k = (W.splat16(gains[0]), W.splat16(gains[1]), W.splat16(gains[2]), W.splat16(gains[3]))
        let o = (W.splat16(offsets[0]), W.splat16(offsets[1]), W.splat16(offsets[2]), W.splat16(offsets[3]))
        let b = (W.splat16(biases[0]), W.splat16(biases[1]), W.splat16(biases[2]), W.splat16(biases[3]))
        @inline(__always) func level(_ v: W.V) -> W.V {
            let sum = W.add32(W.multiplyAdd16(W.and(v, low), evenWeights), W.multiplyAdd16(W.and(W.shiftRight32(v, 8), low), oddWeights))
            return W.shiftRightArithmetic32(sum, 7)
        }
        let columnTerms = columns ?? UnsafePointer(bitPattern: 64)!
        #if SWIFTCAM_AVX512
        let quarters = lookup ? (W.load(table), W.load(table + 64), W.load(table + 128), W.load(table + 192)) : (zero, zero, zero, zero)
        #endif
        let step = Self.step
        var x = 0
        while x &+ step <= width {
            let first = W.load(src + 4 &* x), second = W.load(src + 4 &* (x &+ W.pixels))
            #if SWIFTCAM_AVX512
            let (inFirst, inSecond) = lookup ? (lookUp(first, quarters), lookUp(second, quarters)) : (first, second)
            #else
            let (inFirst, inSecond) = (first, second)
            #endif
            // Per 128-bit lane: four pixels of `first`, then the same four of `second`.
            let h = W.packSigned32(level(inFirst), level(inSecond))
            let g = gain ? W.max16(W.sub16(row, W.load(UnsafeRawPointer(columnTerms + x))), zero) : zero
            @inline(__always) func byte(_ k: W.V, _ o: W.V, _ bias: W.V) -> W.V {
                let p = W.add16(W.mulHigh16(h, k), o)
                return gain ? W.shiftRight16(W.add16(W.mulHigh16(p, g), bias), 4) : W.shiftRight16(p, 5)
            }
            let c0 = alphaFirst ? zero : byte(k.0, o.0, b.0), c1 = byte(k.1, o.1, b.1), c2 = byte(k.2, o.2, b.2)
            let c3 = alphaFirst ? byte(k.3, o.3, b.3) : zero
            // Bytes 0 and 2, 1 and 3 (the pack clamps), then pairs, then pixels: back in the order they were read.
            let evenBytes = W.packUnsigned16(c0, c2), oddBytes = W.packUnsigned16(c1, c3)
            let pairs01 = W.unpackLow8(evenBytes, oddBytes), pairs23 = W.unpackHigh8(evenBytes, oddBytes)
            let outFirst = W.or(W.unpackLow16(pairs01, pairs23), W.and(first, alpha))
            let outSecond = W.or(W.unpackHigh16(pairs01, pairs23), W.and(second, alpha))
            if mirrored {
                W.store(dst + 4 &* (width &- x &- W.pixels), W.reversePixels(outFirst))
                W.store(dst + 4 &* (width &- x &- step), W.reversePixels(outSecond))
            } else {
                W.store(dst + 4 &* x, outFirst)
                W.store(dst + 4 &* (x &+ W.pixels), outSecond)
            }
            x &+= step
        }
        return x
    }
    #else
    /// Pixels per step of `row`.
    package static var step: Int { 8 }

    /// The pixel whose column term lane `lane` holds: the row's own order here.
    package static func pixel(atLane lane: Int) -> Int { lane }

    /// The constants of `row` as vectors.
    private struct Constants {
        var even: I16x8, odd: I16x8, zero: I16x8
        /// Masks, loaded at run time too: with literal masks LLVM took the bytes apart one at a time (RGBFixedKernel).
        var pairs: SIMD4<UInt32>
        var k: (I16x8, I16x8, I16x8, I16x8), o: (I16x8, I16x8, I16x8, I16x8), b: (I16x8, I16x8, I16x8, I16x8)
    }

    /// `row`'s constants as vectors in memory the caller keeps (and frees with `free`): a multiplier splatted from a
    /// scalar in the loop, or from a local the optimizer can see, came out as 32-bit multiplies (FixedPoint.swift).
    package static func vectors(
        even: Int32, odd: Int32, gains: SIMD4<Int16>, offsets: SIMD4<Int16>, biases: SIMD4<Int16>
    )
        -> UnsafeMutableRawPointer
    {
        @inline(__always) func splat(_ v: Int16) -> I16x8 { I16x8(repeating: v) }
        let constants = UnsafeMutablePointer<Constants>.allocate(capacity: 1)
        constants.initialize(
            to: Constants(
                even: unsafeBitCast(SIMD4<Int32>(repeating: even), to: I16x8.self),
                odd: unsafeBitCast(SIMD4<Int32>(repeating: odd), to: I16x8.self), zero: splat(0),
                pairs: SIMD4(repeating: 0x00FF_00FF),
                k: (splat(gains[0]), splat(gains[1]), splat(gains[2]), splat(gains[3])),
                o: (splat(offsets[0]), splat(offsets[1]), splat(offsets[2]), splat(offsets[3])),
                b: (splat(biases[0]), splat(biases[1]), splat(biases[2]), splat(biases[3]))))
        return UnsafeMutableRawPointer(constants)
    }

    /// `row` in Swift's SIMD types (FixedPoint.swift's helpers, which LLVM lowers to pmaddwd, pmulhw, pmaxsw/pminsw
    /// on SSE2 and their NEON counterparts), eight pixels a step, with `vectors`' constants: the grey levels of pixels
    /// j and 4 + j share a 32-bit lane, so the 16-bit steps need no shuffle; the same operations per lane as the
    /// vector paths, so the same bytes.
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, vectors: UnsafeRawPointer, keep: UInt32,
        columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        let c = vectors.assumingMemoryBound(to: Constants.self)
        // Generic over the two flags (FixedPoint.swift's On/Off), so each combination is its own loop.
        switch (columns != nil, keep == 0xFF) {
        case (false, false): return run(src, dst, width, c, keep, columns, row, mirrored, Off.self, Off.self)
        case (false, true): return run(src, dst, width, c, keep, columns, row, mirrored, Off.self, On.self)
        case (true, false): return run(src, dst, width, c, keep, columns, row, mirrored, On.self, Off.self)
        case (true, true): return run(src, dst, width, c, keep, columns, row, mirrored, On.self, On.self)
        }
    }

    @inline(__always)
    private static func run<Gain: Flag, AlphaFirst: Flag>(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ c: UnsafePointer<Constants>,
        _ keep: UInt32, _ columns: UnsafePointer<Int16>?, _ rowTerm: Int16, _ mirrored: Bool, _: Gain.Type, _: AlphaFirst.Type
    ) -> Int {
        let gain = Gain.on, alphaFirst = AlphaFirst.on
        let row = I16x8(repeating: rowTerm)
        let columnTerms = UnsafeRawPointer(columns ?? UnsafePointer(bitPattern: 64)!)
        let kept = SIMD4<UInt32>(repeating: keep)
        var x = 0
        while x &+ 8 <= width {
            let (v0, v1) = eightPixels(src + 4 &* x)
            // Levels are 0...32767: packed to 16 bits they are exact (packssdw).
            let h = weightedLevels(src + 4 &* x, pairs: c.pointee.pairs, even: c.pointee.even, odd: c.pointee.odd, shift: 7)
            let g = gain ? gainTerm(row, columnTerms.loadUnaligned(fromByteOffset: 2 &* x, as: I16x8.self), c.pointee.zero) : c.pointee.zero
            @inline(__always) func colour(_ k: I16x8, _ o: I16x8, _ bias: I16x8) -> I16x8 {
                let p = mulHigh(h, k) &+ o
                return clampByte(gain ? (mulHigh(p, g) &+ bias) &>> 4 : p &>> 5)
            }
            let k = c.pointee.k, o = c.pointee.o, b = c.pointee.b
            // Bytes 0|1 and 2|3 of each pixel in 16-bit lanes, then interleaved (punpcklwd, punpckhwd).
            let low = alphaFirst ? colour(k.1, o.1, b.1) &<< 8 : colour(k.0, o.0, b.0) | colour(k.1, o.1, b.1) &<< 8
            let high = alphaFirst ? colour(k.2, o.2, b.2) | colour(k.3, o.3, b.3) &<< 8 : colour(k.2, o.2, b.2)
            let (w0, w1) = interleavePixels(low, high)
            let out0 = w0 | (v0 & kept), out1 = w1 | (v1 & kept)
            if mirrored {
                dst.storeBytes(of: SIMD4(out0[3], out0[2], out0[1], out0[0]), toByteOffset: 4 &* (width &- x &- 4), as: SIMD4<UInt32>.self)
                dst.storeBytes(of: SIMD4(out1[3], out1[2], out1[1], out1[0]), toByteOffset: 4 &* (width &- x &- 8), as: SIMD4<UInt32>.self)
            } else {
                dst.storeBytes(of: out0, toByteOffset: 4 &* x, as: SIMD4<UInt32>.self)
                dst.storeBytes(of: out1, toByteOffset: 4 &* x &+ 16, as: SIMD4<UInt32>.self)
            }
            x &+= 8
        }
        return x
    }
    #endif
}
