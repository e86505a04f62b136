// Only in FiltersAVX2 (FiltersAVX512 has its own, with byte permutes); no baseline copy: the baseline
// path is RGBFixedKernel's 8-pixel block.

/// RGBFixedKernel's block 16 pixels wide, with the same integer operations per lane (so the same bytes).
///
/// `Wide.loadBlocks` puts each 128-bit lane in exactly the 8-pixel block's lane order (16-bit lane
/// 2j pixel j, 2j + 1 pixel 4 + j), so the vignette's column table serves every width.
package enum RGBFixedCore {
    /// Pixels per step.
    static var step: Int { 2 * Wide.pixels }

    /// Runs whole steps of one row from `src` to `dst`; returns how many pixels it did.
    /// `m`: the Q12 matrix on memory bytes (output byte j, input byte i at 3j + i); `o`: the offsets
    /// (4 fraction bits, the rounding bias included when there is no gain), then the three biases added
    /// after a gain (3 fraction bits: rounding and a map after the gain); `keep`: the alpha mask;
    /// `columns`/`row`: the vignette's Q15 column table and row term, nil when there is no gain;
    /// `mirrored`: pixel x goes to `width − 1 − x` of `dst` (which must not be `src`'s memory). `table`: a byte table
    /// to apply first, which only FiltersAVX512's pass fuses: with one this does nothing (returns 0).
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool, table: UnsafePointer<UInt8>? = nil
    ) -> Int {
        guard table == nil else { return 0 }
        return switch (columns != nil, passFirst, mirrored) {
        case (false, false, false): run(src, dst, width, m, o, keep, false, false, false, columns, row)
        case (false, true, false): run(src, dst, width, m, o, keep, false, true, false, columns, row)
        case (true, false, false): run(src, dst, width, m, o, keep, true, false, false, columns, row)
        case (true, true, false): run(src, dst, width, m, o, keep, true, true, false, columns, row)
        case (false, false, true): run(src, dst, width, m, o, keep, false, false, true, columns, row)
        case (false, true, true): run(src, dst, width, m, o, keep, false, true, true, columns, row)
        case (true, false, true): run(src, dst, width, m, o, keep, true, false, true, columns, row)
        case (true, true, true): run(src, dst, width, m, o, keep, true, true, true, columns, row)
        }
    }

    @inline(__always)
    private static func run(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ m: UnsafePointer<Int16>, _ o: UnsafePointer<Int16>,
        _ keep: UInt32,
        _ gain: Bool, _ passFirst: Bool, _ mirrored: Bool, _ columns: UnsafePointer<Int16>?, _ rowTerm: Int16
    ) -> Int {
        typealias W = Wide
        // Splatted one by one: a `map` here allocated an array per row.
        let k0 = W.splat16(m[0]), k1 = W.splat16(m[1]), k2 = W.splat16(m[2])
        let k3 = W.splat16(m[3]), k4 = W.splat16(m[4]), k5 = W.splat16(m[5])
        let k6 = W.splat16(m[6]), k7 = W.splat16(m[7]), k8 = W.splat16(m[8])
        let o0 = W.splat16(o[0]), o1 = W.splat16(o[1]), o2 = W.splat16(o[2])
        let byte1 = W.splat32(0xFF00), byte3 = W.splat32(Int32(bitPattern: 0xFF00_0000))
        let centre = W.splat16(Int16.min), alpha = W.splat32(Int32(bitPattern: keep))
        let low16 = W.splat32(0xFFFF), high16 = W.splat32(Int32(bitPattern: 0xFFFF_0000))
        let zero = W.zero(), top = W.splat16(255)
        let bias0 = W.splat16(o[3]), bias1 = W.splat16(o[4]), bias2 = W.splat16(o[5])
        let row = W.splat16(rowTerm)
        // The matrix's rows are equal (sepia or mono before a vignette, the 6-chain): three multiplies, not nine.
        let equalRows = m[0] == m[3] && m[0] == m[6] && m[1] == m[4] && m[1] == m[7] && m[2] == m[5] && m[2] == m[8]
        let step = Self.step
        var x = 0
        while x &+ step <= width {
            let (v0, v1) = W.loadBlocks(src + 4 * x)
            // Byte n of each pixel as (b − 128)·256 in a 16-bit lane: v0's pixel in the low half of its
            // 32-bit lane, v1's in the high half.
            @inline(__always) func plane(_ byte: Int32) -> W.V {
                let a = byte == 0 ? W.shiftLeft32(v0, 8) : W.shiftRight32(v0, 8 * byte - 8)
                let b = byte == 3 ? v1 : W.shiftLeft32(v1, 24 - 8 * byte)
                return W.xor(W.or(W.and(a, byte1), W.and(b, byte3)), centre)
            }
            let first: Int32 = passFirst ? 1 : 0
            let b0 = plane(first), b1 = plane(first + 1), b2 = plane(first + 2)
            @inline(__always) func dot(_ c0: W.V, _ c1: W.V, _ c2: W.V, _ offset: W.V) -> W.V {
                W.add16(W.add16(W.add16(W.mulHigh16(b0, c0), W.mulHigh16(b1, c1)), W.mulHigh16(b2, c2)), offset)
            }
            var p0: W.V, p1: W.V, p2: W.V
            if equalRows {
                // One sum for the three channels (16-bit adds wrap, so the same lanes as three).
                let sum = W.add16(W.add16(W.mulHigh16(b0, k0), W.mulHigh16(b1, k1)), W.mulHigh16(b2, k2))
                (p0, p1, p2) = (W.add16(sum, o0), W.add16(sum, o1), W.add16(sum, o2))
            } else {
                (p0, p1, p2) = (dot(k0, k1, k2, o0), dot(k3, k4, k5, o1), dot(k6, k7, k8, o2))
            }
            if gain, let columns {
                let g = W.max16(W.sub16(row, W.load(UnsafeRawPointer(columns + x))), zero)
                p0 = W.shiftRight16(W.add16(W.mulHigh16(p0, g), bias0), 3)
                p1 = W.shiftRight16(W.add16(W.mulHigh16(p1, g), bias1), 3)
                p2 = W.shiftRight16(W.add16(W.mulHigh16(p2, g), bias2), 3)
            } else {
                p0 = W.shiftRight16(p0, 4)
                p1 = W.shiftRight16(p1, 4)
                p2 = W.shiftRight16(p2, 4)
            }
            @inline(__always) func clamp(_ v: W.V) -> W.V { W.min16(W.max16(v, zero), top) }
            let c0 = clamp(p0), c1 = clamp(p1), c2 = clamp(p2)
            let lo = passFirst ? W.shiftLeft16(c0, 8) : W.or(c0, W.shiftLeft16(c1, 8))
            let hi = passFirst ? W.or(c1, W.shiftLeft16(c2, 8)) : c2
            let w0 = W.or(W.and(lo, low16), W.shiftLeft32(hi, 16))
            let w1 = W.or(W.shiftRight32(lo, 16), W.and(hi, high16))
            if mirrored {
                W.storeBlocksReversed(dst + 4 * (width &- x &- step), W.or(w0, W.and(v0, alpha)), W.or(w1, W.and(v1, alpha)))
            } else {
                W.storeBlocks(dst + 4 * x, W.or(w0, W.and(v0, alpha)), W.or(w1, W.and(v1, alpha)))
            }
            x &+= step
        }
        return x
    }
}
