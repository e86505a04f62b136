#if SWIFTCAM_INTRINSICS
import _Builtin_intrinsics.intel
#endif

// Compiled three times, like BoxCascadeCore: into Filters for SSE2, through their Shared links into FiltersPortable (without
// SWIFTCAM_INTRINSICS: Swift SIMD types only) and into FiltersAVX2, where each 16-lane vector is one ymm register.
// Lane-wise integer operations only, so every copy gives the same bits.

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
        /// ·2¹⁶: `inner` the weight of each of the 2r + 1 central samples, `outer` of each of the two at r + 1; `bias`
        /// where each running sum starts, ≈ 2¹⁶/inner, so that it adds one unit after the multiply.
        package var inner, outer, bias: UInt16

        package init(radius: Int, inner: UInt16, outer: UInt16, bias: UInt16) {
            (self.radius, self.inner, self.outer, self.bias) = (radius, inner, outer, bias)
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
        #elseif SWIFTCAM_INTRINSICS
        @inline(__always) func half(_ x: SIMD8<UInt16>, _ y: SIMD8<UInt16>) -> SIMD8<UInt16> {
            unsafeBitCast(_mm_mulhi_epu16(unsafeBitCast(x, to: __m128i.self), unsafeBitCast(y, to: __m128i.self)), to: SIMD8<UInt16>.self)
        }
        return Lanes(lowHalf: half(a.lowHalf, b.lowHalf), highHalf: half(a.highHalf, b.highHalf))
        #else
        // A lane loop: the generic widening conversions stayed calls (LLVM finds pmulhuw / umull in this one).
        var r = Lanes()
        for i in 0..<16 { r[i] = UInt16(truncatingIfNeeded: (UInt32(a[i]) &* UInt32(b[i])) &>> 16) }
        return r
        #endif
    }

    /// `passes` box passes along positions `stride` vectors apart, in one sweep over `a`, in place: the same
    /// schedule as `BoxCascadeCore.cascade` (read its comment), so the last pass's value at position p is in
    /// a[(p − passes·(r+1))·stride]. Needs positions > 2·passes·(r+1).
    @inline(never)
    package static func cascade(_ a: UnsafeMutablePointer<Lanes>, positions: Int, stride: Int, box: Box, passes: Int) {
        let r = box.radius, reach = r + 1
        let inner = Lanes(repeating: box.inner), outer = Lanes(repeating: box.outer)
        let leaving = -reach * stride, entering = r * stride, next = reach * stride
        @inline(__always) func first(_ q: UnsafeMutablePointer<Lanes>) -> Lanes {
            var sum = Lanes(repeating: box.bias)
            for j in -r...r { sum &+= q[j &* stride] }
            q[leaving] = mulhi(sum, inner) &+ mulhi(q[leaving] &+ q[next], outer)
            return sum
        }
        @inline(__always) func step(_ q: UnsafeMutablePointer<Lanes>, _ sum: inout Lanes) {
            let l = q[leaving]
            sum &+= q[entering] &- l
            q[leaving] = mulhi(sum, inner) &+ mulhi(l &+ q[next], outer)
        }
        BoxCascadeCore.sweep(a, positions: positions, stride: stride, radius: r, passes: passes, first: first, step: step)
    }

    /// Horizontal blur of pixels x0..<x0 + count of 16/`ch` rows (`rows[k]`, `width` pixels of `ch` = 4 or 1 samples,
    /// edges extended; rows may repeat) to `out[k]` as samples with f fraction bits; `a` holds
    /// count + 2·passes·(r+1) lanes. Exact integer sums: the same values as one sweep over the whole row.
    /// `left` and `right`, when given, hold the passes·(r+1) pixels either side of the panel instead of `rows`
    /// (column 0 is pixel x0 − passes·(r+1), resp. x0 + count).
    static func horizontal(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, left: UnsafePointer<UnsafePointer<UInt8>>?,
        right: UnsafePointer<UnsafePointer<UInt8>>?, channels ch: Int, width: Int, from x0: Int, count: Int, box: Box,
        passes: Int, fractionBits f: Int, buffer a: UnsafeMutablePointer<Lanes>, into out: UnsafePointer<UnsafeMutablePointer<UInt16>>
    ) {
        let pad = passes * (box.radius + 1), x1 = x0 + count
        // Buffer index i holds pixel x0 − pad + i.
        let lo = max(0, x0 - pad), hi = min(width, x1 + pad)
        let first = lo - (x0 - pad), last = hi - (x0 - pad)
        @inline(__always) func load(
            _ rows: UnsafePointer<UnsafePointer<UInt8>>, from x: Int, width: Int, into a: UnsafeMutablePointer<Lanes>
        ) {
            if ch == 4 {
                load4(rows, from: x, width: width, fractionBits: f, into: a)
            } else {
                load16(rows, from: x, width: width, fractionBits: f, into: a)
            }
        }
        load(left ?? rows, from: left == nil ? lo : first, width: x0 - lo, into: a + first)
        load(rows, from: x0, width: count, into: a + pad)
        load(right ?? rows, from: right == nil ? x1 : 0, width: hi - x1, into: a + pad + count)
        a.update(repeating: a[first], count: first)
        (a + last).update(repeating: a[last - 1], count: count + 2 * pad - last)
        cascade(a, positions: count + 2 * pad, stride: 1, box: box, passes: passes)
        if ch == 4 { store4(a, width: count, into: out) } else { store16(a, width: count, into: out) }
    }

    /// Steps the vertical pass runs at a time: the ring is swept once per batch.
    static let batch = 16

    /// Rows of the vertical pass's ring for `ch` samples a pixel: the 2·passes·(r+1) + 1 the sweep spans at each step,
    /// a batch, and a group of 16/`ch` rows inserted.
    package static func ringRows(_ box: Box, passes: Int, channels ch: Int) -> Int { 2 * passes * (box.radius + 1) + batch + 16 / ch + 4 }

    /// Vectors from one ring row to the next for rows of `vectors`: an odd number of 64-byte lines, so that a walk
    /// down a column of the ring spreads over every set of the L1 cache (rows an even number of lines apart use only
    /// a few of its sets, and a blur's column walk then misses the cache almost every row).
    static func ringStride(_ vectors: Int) -> Int {
        let lines = (vectors + 1) / 2
        return 2 * (lines | 1)
    }

    /// Vectors in a ring row of `samples` samples, rounded up to even: the vertical pass takes them in pairs (the lanes
    /// past the panel carry whatever was there, filtered and never written out).
    static func evenVectors(_ samples: Int) -> Int { ((samples + 15) / 16 + 1) / 2 * 2 }

    /// Scratch bytes `panel` needs for panels of up to `count` pixels of `ch` samples.
    package static func panelBytes(count: Int, channels ch: Int, horizontal: Box, vertical: Box, passes: Int) -> Int {
        let vectors = evenVectors(count * ch)
        let lanes =
            ringRows(vertical, passes: passes, channels: ch) * ringStride(vectors) + (passes + 1) * vectors + count + 2 * passes
            * (horizontal.radius + 1)
        return lanes * MemoryLayout<Lanes>.stride + batch * 3 * passes * MemoryLayout<UnsafeMutablePointer<Lanes>>.stride
    }

    /// Blur of the panel of pixels x0..<x0 + count (all rows) of a plane of `ch` (4 or 1) samples a pixel. In place,
    /// `left` and `right` (rows `haloStride` bytes apart) hold copies of the passes·(r+1) source pixels either side of
    /// the panel, which the neighbouring panels overwrite (column 0: pixel x0 − passes·(r+1), resp. x0 + count). The
    /// horizontal pass goes 16/`ch` rows at a time (one vector) into a ring of rows of the panel, which
    /// the vertical pass sweeps as rows arrive and leaves as bytes, so nothing between the axes leaves the
    /// cache (a panel's ring is sized to stay in L2 by the caller). `scratch`: `panelBytes` bytes, 32-aligned.
    package static func panel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int,
        channels ch: Int, width: Int, height: Int, from x0: Int, count: Int, horizontal hBox: Box, vertical box: Box,
        passes: Int, fractionBits f: Int, scratch: UnsafeMutableRawPointer
    ) {
        // Only four passes: `growth` and the unrolled steady loop below assume it; the caller checks.
        guard passes == 4, ch == 4 || ch == 1 else { return }
        let vectors = evenVectors(count * ch), ringCount = ringRows(box, passes: passes, channels: ch), stride = ringStride(vectors)
        let group = 16 / ch
        let ring = scratch.bindMemory(to: Lanes.self, capacity: ringCount * stride)
        let sums = ring + ringCount * stride
        // The last image row, which the bottom padding repeats (its ring row is overwritten by the first pass before then).
        let lastRow = sums + passes * vectors
        let hBuffer = lastRow + vectors
        let hPositions = count + 2 * passes * (hBox.radius + 1)
        let table = UnsafeMutableRawPointer(hBuffer + hPositions).bindMemory(
            to: UnsafeMutablePointer<Lanes>.self, capacity: batch * 3 * passes)
        let r = box.radius, reach = r + 1, pad = passes * reach
        let inner = Lanes(repeating: box.inner), outer = Lanes(repeating: box.outer)
        // Buffer index j (image row j − pad, edges extended) lives in ring row j mod ringCount. The sweep's
        // schedule is `cascade`'s: step t runs pass k around index t − 2k·reach and completes output row
        // t − (2·passes − 1)·reach at index of the same number.
        @inline(__always) func row(_ j: Int) -> UnsafeMutablePointer<Lanes> { ring + (j % ringCount) &* stride }
        let positions = height + 2 * pad, end = positions - reach
        let steady = (2 * passes - 1) * reach + 1, lag = (2 * passes - 1) * reach
        var t = reach

        /// Steps t..<limit, then the rows they completed as bytes.
        func advance(to limit: Int) {
            let from = t, to = min(limit, end)
            // Start-up: passes begin one after another, each with the sum of its first window.
            while t < min(to, steady) {
                for k in 0..<passes {
                    let i = t - k * reach, start = (k + 1) * reach
                    guard i >= start else { break }
                    let q = t - 2 * k * reach
                    let l = row(q - reach), e = row(q + r), n = row(q + reach), s = sums + k * vectors
                    if i == start {
                        for v in 0..<vectors {
                            var sum = Lanes(repeating: box.bias)
                            for j in -r...r { sum &+= row(q + j)[v] }
                            s[v] = sum
                            l[v] = mulhi(sum, inner) &+ mulhi(l[v] &+ n[v], outer)
                        }
                    } else {
                        for v in 0..<vectors {
                            let left = l[v], sum = s[v] &+ e[v] &- left
                            s[v] = sum
                            l[v] = mulhi(sum, inner) &+ mulhi(left &+ n[v], outer)
                        }
                    }
                }
                t += 1
            }
            // Steady state in batches: per pair of column vectors, the batch's steps with the sums in registers,
            // so each column's window stays in L1 while the batch runs down it. The ring rows of a step come from a
            // table, loaded once for both vectors; pass k + 1 reads as its sample at r + 1 ahead the value pass k has
            // just written, so that one is passed on in a register.
            while t < to {
                let steps = min(batch, to - t)
                for s in 0..<steps {
                    let e = table + 9 * s
                    e[0] = row(t + s + reach)
                    for k in 0..<passes {
                        let q = t + s - 2 * k * reach
                        e[1 + 2 * k] = row(q - reach); e[2 + 2 * k] = row(q + r)
                    }
                }
                var v = 0
                while v < vectors {
                    let w = v + 1
                    var a0 = sums[v], a1 = sums[vectors + v], a2 = sums[2 * vectors + v], a3 = sums[3 * vectors + v]
                    var b0 = sums[w], b1 = sums[vectors + w], b2 = sums[2 * vectors + w], b3 = sums[3 * vectors + w]
                    var e = table
                    for _ in 0..<steps {
                        var na = e[0][v], nb = e[0][w]
                        @inline(__always) func pass(
                            _ l: UnsafeMutablePointer<Lanes>, _ entering: UnsafeMutablePointer<Lanes>,
                            _ sa: inout Lanes, _ sb: inout Lanes
                        ) {
                            let la = l[v], lb = l[w]
                            sa &+= entering[v] &- la
                            sb &+= entering[w] &- lb
                            na = mulhi(sa, inner) &+ mulhi(la &+ na, outer)
                            nb = mulhi(sb, inner) &+ mulhi(lb &+ nb, outer)
                            l[v] = na; l[w] = nb
                        }
                        pass(e[1], e[2], &a0, &b0); pass(e[3], e[4], &a1, &b1); pass(e[5], e[6], &a2, &b2); pass(e[7], e[8], &a3, &b3)
                        e += 9
                    }
                    sums[v] = a0; sums[vectors + v] = a1; sums[2 * vectors + v] = a2; sums[3 * vectors + v] = a3
                    sums[w] = b0; sums[vectors + w] = b1; sums[2 * vectors + w] = b2; sums[3 * vectors + w] = b3
                    v += 2
                }
                t += steps
            }
            for y in max(0, from - lag)..<max(0, t - lag) {
                storeRow(row(y), samples: ch * count, into: destination + y * destinationStride + ch * x0, fractionBits: f)
            }
        }

        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 48) { rows in
            withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt16>.self, capacity: 16) { out in
                var y = 0, inserted = 0
                while inserted < positions {
                    if y < height {
                        for k in 0..<group {
                            let yy = min(y + k, height - 1)
                            rows[k] = source + yy * sourceStride
                            if let left { rows[16 + k] = left + yy * haloStride }
                            if let right { rows[32 + k] = right + yy * haloStride }
                            out[k] = UnsafeMutableRawPointer(row(yy + pad)).assumingMemoryBound(to: UInt16.self)
                        }
                        horizontal(
                            rows.baseAddress!, left: left == nil ? nil : rows.baseAddress! + 16,
                            right: right == nil ? nil : rows.baseAddress! + 32,
                            channels: ch, width: width, from: x0, count: count, box: hBox, passes: passes, fractionBits: f, buffer: hBuffer,
                            into: out.baseAddress!)
                        if y == 0 { for j in 0..<pad { row(j).update(from: row(pad), count: vectors) } }
                        if y + group >= height { lastRow.update(from: row(height - 1 + pad), count: vectors) }
                        y += group
                        inserted = min(y, height) + pad
                    } else {
                        let next = min(inserted + 4, positions)
                        for j in inserted..<next { row(j).update(from: lastRow, count: vectors) }
                        inserted = next
                    }
                    if inserted - reach - t >= batch || inserted == positions { advance(to: inserted - reach) }
                }
            }
        }
    }

    /// `samples` samples of a ring row as bytes.
    static func storeRow(_ a: UnsafePointer<Lanes>, samples: Int, into d: UnsafeMutablePointer<UInt8>, fractionBits f: Int) {
        let raw = UnsafeMutableRawPointer(d)
        var v = 0
        while (v + 2) * 16 <= samples {
            raw.storeBytes(of: bytes(a[v], a[v + 1], fractionBits: f), toByteOffset: v &* 16, as: SIMD32<UInt8>.self)
            v += 2
        }
        guard v * 16 < samples else { return }
        let tail = bytes(a[v], (v + 1) * 16 < samples ? a[v + 1] : a[v], fractionBits: f)
        for i in 0..<(samples - v * 16) { d[v * 16 + i] = tail[i] }
    }
}
