/// Digital zoom: bilinear resampling of a 1/factor window around a normalized centre, per view.
///
/// Output pixel centre p maps to source `left + (p + 0.5)/factor − 0.5`, so factor 1 is an exact copy.
/// Weights are 8-bit fixed point; column tables live in scratch and are rebuilt per frame (cheap).
enum ZoomKernel {
    static func run(_ source: Frame, _ destination: Frame, factor: Double, x: Double, y: Double, _ context: SpatialContext) {
        guard factor > 1 + 1e-9 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        let input = context.unaliased(source, destination)
        for view in ChannelView.views(source: input, destination: destination) {
            resample(view, factor: factor, centreX: x, centreY: y, context)
        }
    }

    /// Source index and 8-bit weight of the next sample, for each output position of an axis.
    private static func axis(length: Int, factor: Double, centre: Double, into table: UnsafeMutablePointer<Int32>) {
        let window = Double(length) / factor
        let middle = min(max(centre * Double(length), window / 2), Double(length) - window / 2)
        let left = middle - window / 2
        for p in 0..<length {
            let s = min(max(left + (Double(p) + 0.5) / factor - 0.5, 0), Double(length - 1))
            let i = Int(s)
            table[2 * p] = Int32(i)
            table[2 * p + 1] = Int32(((s - Double(i)) * 256).rounded())
        }
    }

    /// Separable: a source row is interpolated horizontally once (into 16-bit Q8 samples, through
    /// precomputed sample indices and weights) and kept while output rows still use it; each output
    /// row is then one vertical blend of two such rows, 8 samples at a time. Exactly the 2-D
    /// bilinear it replaces: (t·(256 − wx) + u·wx)·(256 − wy) + … is the same sum in another order.
    private static func resample(_ view: ChannelView, factor: Double, centreX: Double, centreY: Double, _ context: SpatialContext) {
        let columns = context.scratch.buffer(SpatialContext.Slot.table.rawValue, bytes: view.width * 8).assumingMemoryBound(to: Int32.self)
        let rowTable = context.scratch.buffer(SpatialContext.Slot.table.rawValue + 1, bytes: view.height * 8).assumingMemoryBound(
            to: Int32.self)
        axis(length: view.width, factor: factor, centre: centreX, into: columns)
        axis(length: view.height, factor: factor, centre: centreY, into: rowTable)
        let ch = view.channels, samples = view.rowSamples
        // Per-sample taps: first sample index, second sample index, weight of the second.
        let taps = context.scratch.buffer(SpatialContext.Slot.table.rawValue + 2, bytes: samples * 12).assumingMemoryBound(to: Int32.self)
        for x in 0..<view.width {
            let x0 = Int(columns[2 * x]), x1 = min(x0 + 1, view.width - 1)
            for c in 0..<ch {
                taps[3 * (x * ch + c)] = Int32(x0 * ch + c)
                taps[3 * (x * ch + c) + 1] = Int32(x1 * ch + c)
                taps[3 * (x * ch + c) + 2] = columns[2 * x + 1]
            }
        }
        let padded = (samples + 15) & ~15
        let bands = context.bands(rows: view.height, samples: samples * view.height)
        // Per band: two interpolated rows (UInt16), a gathered source row, an output row.
        let scratch = context.perBand(.rowA, bands: bands, bytes: 2 * padded * 2 + 2 * padded)
        RowParallel.run(rows: view.height, bands: bands) { band, rows in
            let base = scratch.base + band * scratch.stride
            let cache = base.bindMemory(to: UInt16.self, capacity: 2 * padded)
            let gathered = (base + 4 * padded).bindMemory(to: UInt8.self, capacity: 2 * padded)
            let out = gathered + padded
            var cached = (-1, -1)  // source rows held in cache slots 0 and 1
            func interpolated(_ r: Int) -> UnsafeMutablePointer<UInt16> {
                if cached.0 == r { return cache }
                if cached.1 == r { return cache + padded }
                // Evict the slot not holding the other row this output row needs (rows only grow).
                let slot = cached.0 < cached.1 ? 0 : 1
                let h = cache + slot * padded
                let s = view.packedSourceRow(r, buffer: gathered)
                if ch == 4 {
                    // One tap pair per pixel, four channels as one vector (on AVX2 four pixels a step first).
                    for x in context.kernels.table.zoomHorizontal4(s, columns: columns, width: view.width, into: h)..<view.width {
                        let t = 3 * 4 * x
                        let w = UInt16(truncatingIfNeeded: taps[t + 2])
                        let p = UnsafeRawPointer(s + Int(taps[t])).loadUnaligned(as: SIMD4<UInt8>.self)
                        let q = UnsafeRawPointer(s + Int(taps[t + 1])).loadUnaligned(as: SIMD4<UInt8>.self)
                        var v = SIMD4<UInt16>()
                        for c in 0..<4 { v[c] = UInt16(p[c]) &* (256 &- w) &+ UInt16(q[c]) &* w }
                        UnsafeMutableRawPointer(h + 4 * x).storeBytes(of: v, as: SIMD4<UInt16>.self)
                    }
                } else {
                    for i in 0..<samples {
                        let w = UInt16(truncatingIfNeeded: taps[3 * i + 2])
                        h[i] = UInt16(s[Int(taps[3 * i])]) &* (256 &- w) &+ UInt16(s[Int(taps[3 * i + 1])]) &* w
                    }
                }
                if slot == 0 { cached.0 = r } else { cached.1 = r }
                return h
            }
            for y in rows {
                let y0 = Int(rowTable[2 * y]), wy = UInt32(rowTable[2 * y + 1])
                let upper = interpolated(y0), lower = interpolated(min(y0 + 1, view.height - 1))
                let direct = view.step == ch
                let d = direct ? view.destinationRow(y) : out
                blend(upper, lower, weight: wy, count: samples, into: d, context.kernels)
                if !direct { view.scatter(row: y, from: out) }
            }
        }
    }

    /// d[i] = (a[i]·(256 − w) + b[i]·w + 2¹⁵) >> 16: the path's groups first (`SIMDKernels.zoomBlend`), then these.
    @inline(__always)
    private static func blend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight w: UInt32, count: Int,
        into d: UnsafeMutablePointer<UInt8>, _ kernels: KernelSet
    ) {
        let wa = 256 &- w
        var i = kernels.table.zoomBlend(a, b, weight: w, count: count, into: d)
        // The portable path: the scalar loop's sums in 32-bit lanes, 16 samples a step. Lane loops widen and narrow (the
        // generic conversions stayed calls), and the weights (≤ 256) go through UInt16, so LLVM sees both factors fit
        // 16 bits and multiplies in 16-bit halves (pmullw/pmulhuw here), not in emulated 32-bit ones.
        let first = SIMD16<UInt32>(repeating: UInt32(UInt16(truncatingIfNeeded: wa)))
        let second = SIMD16<UInt32>(repeating: UInt32(UInt16(truncatingIfNeeded: w)))
        while i + 16 <= count {
            let p = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD16<UInt16>.self)
            let q = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD16<UInt16>.self)
            var x = SIMD16<UInt32>(), y = SIMD16<UInt32>()
            for j in 0..<16 { x[j] = UInt32(p[j]); y[j] = UInt32(q[j]) }
            let r = (x &* first &+ y &* second &+ 32768) &>> 16
            var out = SIMD16<UInt8>()
            for j in 0..<16 { out[j] = UInt8(truncatingIfNeeded: r[j]) }
            UnsafeMutableRawPointer(d + i).storeBytes(of: out, as: SIMD16<UInt8>.self)
            i += 16
        }
        while i < count {
            d[i] = UInt8(truncatingIfNeeded: (UInt32(a[i]) &* wa &+ UInt32(b[i]) &* w &+ 32768) &>> 16)
            i += 1
        }
    }
}
