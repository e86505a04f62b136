#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Separable Gaussian in fixed point, used by blur (plain) and sharpen (unsharp mask) below
/// `BoxCascadeKernel.minimumSigma`; from there on the box cascade, whose cost does not grow with σ.
///
/// Weights are Q14 and sum to exactly 16384, so a constant frame stays exactly constant. The
/// horizontal pass writes Q8 UInt16 rows into a ring of 2r + 1 rows per thread, just ahead of the
/// vertical pass, which accumulates Int32 over them and rounds once. Edges are extended. The frame
/// is cut into pieces of rows; each piece's first and last r rows go through the horizontal pass
/// before any piece starts (its neighbours need them, and in place it overwrites them), so no piece
/// reads a source row another piece writes, and no row goes through the horizontal pass twice.
enum GaussianKernel {
    /// Q14 weights of a Gaussian with standard deviation `sigma` pixels, 2r+1 taps (r = ⌈3σ⌉, at least 1).
    static func weights(sigma: Double) -> [Int32] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (-r...r).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        var q = raw.map { Int32(($0 / total * 16384).rounded()) }
        q[r] += 16384 - q.reduce(0, +)
        return q
    }

    /// Blurs (amount nil) or sharpens every view of the frame pair.
    static func run(_ source: Frame, _ destination: Frame, sigma: Double, sharpenAmount: Double?, _ context: SpatialContext) {
        guard sigma >= 0.05 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        for view in ChannelView.views(source: source, destination: destination) {
            if min(sigma / Double(view.subX), sigma / Double(view.subY)) >= BoxCascadeKernel.minimumSigma {
                BoxCascadeKernel.run(view, sigma: sigma, amount: sharpenAmount.map(Float.init), context)
                continue
            }
            // UInt16 weights: with both factors known to fit 16 bits, LLVM multiplies with
            // pmullw/pmulhuw instead of emulating 32-bit pmulld on SSE2 (seen in perf annotate).
            let horizontal = weights(sigma: sigma / Double(view.subX)).map { UInt16(truncatingIfNeeded: $0) }
            let vertical = weights(sigma: sigma / Double(view.subY)).map { UInt16(truncatingIfNeeded: $0) }
            run(view, horizontal, vertical, sharpenAmount.map(Float.init), context)
        }
    }

    /// Pieces a frame is cut into per band: each piece's first and last `r` rows go through the horizontal pass before
    /// the pieces start (its neighbours read them), so fewer pieces than the point passes'.
    static let piecesPerBand = 2

    private static func run(_ view: ChannelView, _ horizontal: [UInt16], _ vertical: [UInt16], _ amount: Float?, _ context: SpatialContext)
    {
        let ch = view.channels, samples = view.rowSamples, h = view.height
        let hr = horizontal.count / 2, vr = vertical.count / 2, ringRows = vertical.count
        let bands = context.bands(rows: h, samples: samples * h)
        let pieces = bands > 1 ? min(h, bands * piecesPerBand) : 1
        // Rows within `edge` of a piece's first or last row are its edge rows (none in one piece).
        let edge = pieces > 1 ? vr : 0
        // Per band a ring of the horizontal pass's rows (Q8, 16 bits) as the vertical pass needs them, which stays in L2
        // (a whole plane of them, 16 MB for a 1080p RGBA frame, had been written to memory and read back).
        let rings = context.perBand(.planeA, bands: bands, bytes: ringRows * samples * 2)
        // Per piece, its edge rows through the horizontal pass: made before any piece writes, read by it and its neighbours.
        let edges = pieces > 1 ? context.perBand(.planeB, bands: pieces, bytes: 2 * edge * samples * 2) : (base: rings.base, stride: 0)
        // +16: the 8-sample loads of the last taps read up to 7 bytes past the padded row.
        let padded = context.perBand(.rowA, bands: bands, bytes: (view.width + 2 * hr) * ch + 16)
        let accumulators = context.perBand(.rowB, bands: bands, bytes: samples * 4)
        let packed = context.perBand(.rowC, bands: bands, bytes: samples * 2)

        horizontal.withUnsafeBufferPointer { hw in
            vertical.withUnsafeBufferPointer { vw in
                /// Source row `y` through the horizontal taps into `out`.
                func horizontalRow(_ y: Int, slot: Int, into out: UnsafeMutablePointer<UInt16>) {
                    let p = (padded.base + slot * padded.stride).assumingMemoryBound(to: UInt8.self)
                    let acc = (accumulators.base + slot * accumulators.stride).assumingMemoryBound(to: Int32.self)
                    view.gather(row: y, into: p + hr * ch)
                    for k in 0..<hr {
                        for c in 0..<ch {
                            p[k * ch + c] = p[hr * ch + c]
                            p[(hr + view.width + k) * ch + c] = p[(hr + view.width - 1) * ch + c]
                        }
                    }
                    let done = context.kernels.table.gaussianHorizontal(p, taps: hw, channels: ch, samples: samples, into: out)
                    (acc + done).update(repeating: 32, count: samples - done)
                    for k in 0..<hw.count {
                        let w = hw[k], tap = p + k * ch
                        for i in done..<samples { acc[i] &+= Int32(w) &* Int32(tap[i]) }
                    }
                    for i in done..<samples { out[i] = UInt16(truncatingIfNeeded: acc[i] &>> 6) }
                }
                /// Where edge row `y` of `piece` (rows `rows`) is kept: the first `edge` rows, then the last (a piece
                /// shorter than 2·edge rows fills both parts, each row once).
                func edgeRow(_ y: Int, of piece: Int, _ rows: Range<Int>) -> UnsafeMutablePointer<UInt16> {
                    let index = y - rows.lowerBound < edge ? y - rows.lowerBound : 2 * edge - (rows.upperBound - y)
                    return (edges.base + piece * edges.stride).assumingMemoryBound(to: UInt16.self) + index * samples
                }
                func isEdge(_ y: Int, _ rows: Range<Int>) -> Bool { y < rows.lowerBound + edge || y >= rows.upperBound - edge }
                // Every piece's edge rows first (nothing is written yet).
                if pieces > 1 {
                    RowParallel.run(pieces: pieces, bands: bands) { slot, piece in
                        let rows = RowParallel.range(band: piece, of: pieces, rows: h)
                        for y in rows where isEdge(y, rows) { horizontalRow(y, slot: slot, into: edgeRow(y, of: piece, rows)) }
                    }
                }
                RowParallel.run(pieces: pieces, bands: bands) { slot, piece in
                    let rows = RowParallel.range(band: piece, of: pieces, rows: h)
                    guard !rows.isEmpty else { return }
                    let ring = (rings.base + slot * rings.stride).assumingMemoryBound(to: UInt16.self)
                    let acc = (accumulators.base + slot * accumulators.stride).assumingMemoryBound(to: Int32.self)
                    let out = (packed.base + slot * packed.stride).assumingMemoryBound(to: UInt8.self)
                    let original = out + samples
                    /// Where the horizontal pass's row `y` is: this piece's other rows in the ring (row y at y mod ringRows),
                    /// edge rows (its own, and its neighbours' within `vr` rows) where the first phase put them.
                    func row(_ y: Int) -> UnsafePointer<UInt16> {
                        if rows.contains(y) {
                            return UnsafePointer(isEdge(y, rows) ? edgeRow(y, of: piece, rows) : ring + y % ringRows * samples)
                        }
                        // A neighbour's row within `vr` of this piece is within `vr` of that piece's end: one of its edge rows.
                        var other = piece, range = rows
                        repeat {
                            other += y < range.lowerBound ? -1 : 1
                            range = RowParallel.range(band: other, of: pieces, rows: h)
                        } while !range.contains(y)
                        return UnsafePointer(edgeRow(y, of: other, range))
                    }
                    var next = rows.lowerBound
                    withUnsafeTemporaryAllocation(of: UnsafePointer<UInt16>.self, capacity: ringRows) { taps in
                        let taps = taps.baseAddress!
                        for y in rows {
                            // The ring holds the piece's rows y − vr … y + vr that are not edge rows: the new row takes
                            // the slot of y − vr − 1.
                            while next <= min(y + vr, rows.upperBound - 1) {
                                if !isEdge(next, rows) { horizontalRow(next, slot: slot, into: ring + next % ringRows * samples) }
                                next += 1
                            }
                            for k in 0..<ringRows { taps[k] = row(min(max(y - vr + k, 0), h - 1)) }
                            let done = context.kernels.table.gaussianVertical(UnsafePointer(taps), taps: vw, samples: samples, into: acc)
                            (acc + done).update(repeating: 1 << 21, count: samples - done)
                            for k in 0..<vw.count {
                                let w = vw[k], tapRow = taps[k]
                                for i in done..<samples { acc[i] &+= Int32(w) &* Int32(tapRow[i]) }
                            }
                            if let amount {
                                view.gather(row: y, into: original)
                                for i in context.kernels.table.gaussianSharpen(
                                    original, acc, amount: amount, samples: samples, into: out)..<samples
                                {
                                    let s = Float(original[i])
                                    let blurred = Float(acc[i] &- (1 << 21)) * (1 / 4_194_304)
                                    out[i] = clampByte(s + amount * (s - blurred))
                                }
                            } else {
                                for i in 0..<samples { out[i] = UInt8(truncatingIfNeeded: acc[i] &>> 22) }
                            }
                            view.scatter(row: y, from: out)
                        }
                    }
                }
            }
        }
    }

    // The portable path's accumulation loops (`SIMDKernels.gaussianHorizontal` and the two after it): the same integer
    // sums (and sharpen's float steps) as the scalar loops, in Swift's SIMD types,
    // 16 samples a step with the sums held in registers across the taps; the lane loops read and wrote the row of sums
    // once per tap. Widening is a lane loop: the generic `init(truncatingIfNeeded:)` from bytes stayed a call per tap.

    /// out[i] = (32 + Σ w_k·p[i + k·ch]) >> 6 for whole groups of 16 samples; returns how many were done.
    static func horizontalPortable(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels ch: Int,
        samples: Int, into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        let row = UnsafeRawPointer(p)
        var i = 0
        while i &+ 16 <= samples {
            var sum = SIMD16<UInt32>(repeating: 32)
            for k in 0..<taps.count {
                let bytes = row.loadUnaligned(fromByteOffset: i &+ k &* ch, as: SIMD16<UInt8>.self)
                var v = SIMD16<UInt32>()
                for j in 0..<16 { v[j] = UInt32(bytes[j]) }
                sum &+= v &* UInt32(taps[k])
            }
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD16<UInt16>(truncatingIfNeeded: sum &>> 6), as: SIMD16<UInt16>.self)
            i &+= 16
        }
        return i
    }

    /// acc[i] = 2²¹ + Σ w_k·rows[k][i] for whole groups of 16 (unsigned sums: below 2³¹, so the same bits as signed
    /// ones); returns how many were done.
    static func verticalPortable(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int,
        into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        var i = 0
        while i &+ 16 <= samples {
            var sum = SIMD16<UInt32>(repeating: 1 << 21)
            for k in 0..<taps.count {
                let samples = UnsafeRawPointer(rows[k] + i).loadUnaligned(as: SIMD16<UInt16>.self)
                var v = SIMD16<UInt32>()
                for j in 0..<16 { v[j] = UInt32(samples[j]) }
                sum &+= v &* UInt32(taps[k])
            }
            UnsafeMutableRawPointer(acc + i).storeBytes(of: sum, as: SIMD16<UInt32>.self)
            i &+= 16
        }
        return i
    }

    /// Sharpen's last step for whole groups of 8, clampByte(s + amount·(s − blurred)) with the scalar loop's float
    /// operations lane by lane; returns how many were done.
    static func sharpenPortable(
        _ original: UnsafePointer<UInt8>, _ acc: UnsafePointer<Int32>, amount: Float, samples: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        typealias F = SIMD8<Float>
        let zero = F(repeating: 0), top = F(repeating: 255), big = F(repeating: 8_388_608)
        var i = 0
        while i &+ 8 <= samples {
            let bytes = UnsafeRawPointer(original + i).loadUnaligned(as: SIMD8<UInt8>.self)
            let sums = UnsafeRawPointer(acc + i).loadUnaligned(as: SIMD8<Int32>.self) &- (1 << 21)
            var s = F(), blurred = F()
            for j in 0..<8 {
                s[j] = Float(bytes[j])
                blurred[j] = Float(sums[j]) * (1 / 4_194_304)
            }
            var v = s + amount * (s - blurred)
            v.replace(with: zero, where: .!(v .> zero))
            v.replace(with: top, where: v .> top)
            v += 0.5
            // Truncated (v ≥ 0.5: floored) without a checked convert per lane: the nearest integer, less 1 where that
            // is above v, read from the bits of 2²³ + it.
            var t = (v + big) - big
            t.replace(with: t - 1, where: t .> v)
            let r = SIMD8<UInt8>(truncatingIfNeeded: unsafeBitCast(t + big, to: SIMD8<UInt32>.self))
            UnsafeMutableRawPointer(out + i).storeBytes(of: r, as: SIMD8<UInt8>.self)
            i &+= 8
        }
        return i
    }
}
