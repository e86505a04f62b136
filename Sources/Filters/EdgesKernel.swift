#if canImport(_Builtin_intrinsics.intel)
import _Builtin_intrinsics.intel
#endif

/// Sobel magnitude of luma, written as grey: R = G = B (alpha kept) or Y with neutral chroma.
///
/// One pass over the frame: each band keeps three luma rows (edges extended by one pixel) in a
/// ring in L1, makes the next row's luma while the current one's gradient is taken, and writes
/// each output row as soon as it is known. Luma is Q15 (pmaddwd of RGBA with (kr, kg, kb, 0)); the
/// gradients are 16-bit lanes; gx² + gy² is one pmaddwd of (gx, gy) pairs; √ in float.
///
/// In place, a band's first and last rows need the luma of rows the neighbouring bands overwrite,
/// so those two rows per band are made before the bands start.
enum EdgesKernel {
    static func run(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let w = source.width, h = source.height
        let bands = context.bands(rows: h, samples: w * h)
        // w pixels + one each side, then slack for 8-wide loads and stores past the end.
        let rowBytes = (w + 2 + 31) & ~15
        let ring = context.perBand(.rowA, bands: bands, bytes: 3 * rowBytes)
        let halos = context.perBand(.rowB, bands: bands, bytes: 2 * rowBytes)
        let magnitudes = context.perBand(.rowC, bands: bands, bytes: rowBytes)
        let luma = LumaSource(source)
        let offset = SIMD8<Int32>(repeating: source.format.isRGB ? 0 : Int32(source.color.lumaQuantization.offset))

        for band in 0..<bands {
            let rows = RowParallel.range(band: band, of: bands, rows: h)
            guard !rows.isEmpty else { continue }
            let halo = (halos.base + band * halos.stride).assumingMemoryBound(to: UInt8.self)
            luma.row(max(rows.lowerBound - 1, 0), into: halo)
            luma.row(min(rows.upperBound, h - 1), into: halo + rowBytes)
        }
        RowParallel.run(rows: h, bands: bands) { band, rows in
            let halo = (halos.base + band * halos.stride).assumingMemoryBound(to: UInt8.self)
            let slots = (ring.base + band * ring.stride).assumingMemoryBound(to: UInt8.self)
            let m = (magnitudes.base + band * magnitudes.stride).assumingMemoryBound(to: UInt8.self)
            var above = UnsafePointer(halo)
            var here = slots, next = slots + rowBytes, spare = slots + 2 * rowBytes
            luma.row(rows.lowerBound, into: here)
            for y in rows {
                let below: UnsafePointer<UInt8>
                if y + 1 < rows.upperBound {
                    luma.row(y + 1, into: next)
                    below = UnsafePointer(next)
                } else {
                    below = UnsafePointer(halo + rowBytes)
                }
                sobel(above + 1, UnsafePointer(here + 1), below + 1, width: w, offset: offset, into: m)
                write(m, row: y, source, destination)
                // Rotate: the row below becomes the current one.
                above = UnsafePointer(here)
                (here, next, spare) = (next, spare, here)
            }
        }
        if let layout = YUVLayout(source.format) {
            let cw = layout.chromaWidth(w)
            for row in 0..<layout.chromaHeight(h) {
                let u = layout.row(layout.u, destination, row), v = layout.row(layout.v, destination, row)
                for x in 0..<cw {
                    u[x * layout.u.step] = 128
                    v[x * layout.v.step] = 128
                }
            }
        }
    }

    /// Where luma rows come from: RGB through Q15 weights, YUV's Y samples as they are.
    struct LumaSource {
        let frame: Frame
        let coefficients: I16x8
        let kr: Int32, kg: Int32, kb: Int32

        init(_ frame: Frame) {
            self.frame = frame
            let k = frame.color.lumaCoefficients
            kr = Int32((k.r * 32768).rounded())
            kb = Int32((k.b * 32768).rounded())
            kg = 32768 - kr - kb
            let o = frame.format.rgbOffsets
            var c = I16x8()
            for pixel in 0..<2 {
                c[4 * pixel + o.r] = Int16(kr); c[4 * pixel + o.g] = Int16(kg); c[4 * pixel + o.b] = Int16(kb)
            }
            coefficients = c
        }

        /// Luma of row `y` at `p[1...w]`, with `p[0]` and `p[w + 1]` repeating the edge pixels.
        func row(_ y: Int, into p: UnsafeMutablePointer<UInt8>) {
            let w = frame.width
            if frame.format.isRGB {
                let s = (frame.planes[0].base + y * frame.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                var x = 0
                while x + 8 <= w {
                    let (lo, hi) = widen(UnsafeRawPointer(s + 4 * x).loadUnaligned(as: SIMD16<UInt8>.self))
                    let (lo2, hi2) = widen(UnsafeRawPointer(s + 4 * x + 16).loadUnaligned(as: SIMD16<UInt8>.self))
                    let a = multiplyAdd(lo, coefficients), b = multiplyAdd(hi, coefficients)
                    let c = multiplyAdd(lo2, coefficients), d = multiplyAdd(hi2, coefficients)
                    let sums = SIMD8<Int32>(lowHalf: SIMD4(lowHalf: a.evenHalf &+ a.oddHalf, highHalf: b.evenHalf &+ b.oddHalf),
                                            highHalf: SIMD4(lowHalf: c.evenHalf &+ c.oddHalf, highHalf: d.evenHalf &+ d.oddHalf))
                    let values = (sums &+ 16384) &>> 15
                    var bytes = SIMD8<UInt8>()
                    for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: values[i]) }
                    UnsafeMutableRawPointer(p + 1 + x).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
                    x += 8
                }
                let o = frame.format.rgbOffsets
                while x < w {
                    let sum = kr &* Int32(s[4 * x + o.r]) &+ kg &* Int32(s[4 * x + o.g]) &+ kb &* Int32(s[4 * x + o.b])
                    p[1 + x] = UInt8(truncatingIfNeeded: (sum &+ 16384) &>> 15)
                    x += 1
                }
            } else if let layout = YUVLayout(frame.format) {
                let s = layout.row(layout.y, frame, y)
                if layout.y.step == 1 {
                    (p + 1).update(from: s, count: w)
                } else {
                    for x in 0..<w { p[1 + x] = s[x * layout.y.step] }
                }
            }
            p[0] = p[1]
            p[w + 1] = p[w]
        }
    }

    /// `m[0..<w]` = min(255, round(√(gx² + gy²) + offset)) from three luma rows whose `[-1]` and `[w]` are readable.
    @inline(__always)
    static func sobel(_ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width w: Int,
                      offset: SIMD8<Int32>, into m: UnsafeMutablePointer<UInt8>) {
        func load(_ p: UnsafePointer<UInt8>) -> I16x8 {
            let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
            var r = I16x8()
            for i in 0..<8 { r[i] = Int16(v[i]) }
            return r
        }
        var x = 0
        // The row buffers have slack, so the last group may run past w; only m's slack sees it.
        while x < w {
            let al = load(a + x - 1), ac = load(a + x), ar = load(a + x + 1)
            let hl = load(h + x - 1), hr = load(h + x + 1)
            let bl = load(b + x - 1), bc = load(b + x), br = load(b + x + 1)
            let gx = (ar &- al) &+ ((hr &- hl) &<< 1) &+ (br &- bl)
            let gy = (bl &- al) &+ ((bc &- ac) &<< 1) &+ (br &- ar)
            var pairsLo = I16x8(), pairsHi = I16x8()
            for i in 0..<4 {
                pairsLo[2 * i] = gx[i]; pairsLo[2 * i + 1] = gy[i]
                pairsHi[2 * i] = gx[4 + i]; pairsHi[2 * i + 1] = gy[4 + i]
            }
            let squares = SIMD8<Int32>(lowHalf: multiplyAdd(pairsLo, pairsLo), highHalf: multiplyAdd(pairsHi, pairsHi))
            let root = roundedSquareRoot(squares) &+ offset
            var r = I16x8()
            for i in 0..<8 { r[i] = Int16(truncatingIfNeeded: root[i]) }
            let c = clampByte(r)
            var bytes = SIMD8<UInt8>()
            for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: c[i]) }
            UnsafeMutableRawPointer(m + x).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
            x += 8
        }
    }

    /// round(√n) for 0 ≤ n < 2²⁴, lane-wise. `Float.squareRoot()` lowers to a libm call per lane
    /// (errno), so on x86 this is sqrtps from Clang's intrinsics. Float √ is correctly rounded and
    /// √n (n whole) never lies within 10⁻³ of a half for √n < 256, so rounding it is exact where
    /// the output is not saturated.
    @inline(__always)
    static func roundedSquareRoot(_ squares: SIMD8<Int32>) -> SIMD8<Int32> {
        var n = SIMD8<Float>()
        for i in 0..<8 { n[i] = Float(squares[i]) }
        #if canImport(_Builtin_intrinsics.intel)
        let root = SIMD8<Float>(lowHalf: SIMD4<Float>(_mm_sqrt_ps(n.lowHalf)), highHalf: SIMD4<Float>(_mm_sqrt_ps(n.highHalf)))
        #else
        var root = n
        for i in 0..<8 { root[i] = n[i].squareRoot() }
        #endif
        // Rounded through the mantissa (x + 1.5·2²³): no range-checked scalar conversions.
        let biased = root + SIMD8<Float>(repeating: 12_582_912)
        var out = SIMD8<Int32>()
        for i in 0..<8 { out[i] = (Int32(bitPattern: biased[i].bitPattern) & 0x7F_FFFF) &- 0x40_0000 }
        return out
    }

    /// Writes magnitudes as grey RGB (alpha from the source) or as Y.
    @inline(__always)
    static func write(_ m: UnsafePointer<UInt8>, row y: Int, _ source: Frame, _ destination: Frame) {
        let w = source.width
        if source.format.isRGB {
            let s = (source.planes[0].base + y * source.planes[0].stride).assumingMemoryBound(to: UInt8.self)
            let d = (destination.planes[0].base + y * destination.planes[0].stride).assumingMemoryBound(to: UInt8.self)
            let o = source.format.rgbOffsets
            let alphaMask = SIMD8<UInt32>(repeating: UInt32(0xFF) << (8 * UInt32(o.a)))
            var x = 0
            while x + 8 <= w {
                let grey = UnsafeRawPointer(m + x).loadUnaligned(as: SIMD8<UInt8>.self)
                let src = UnsafeRawPointer(s + 4 * x).loadUnaligned(as: SIMD8<UInt32>.self)
                var g = SIMD8<UInt32>()
                for i in 0..<8 { g[i] = UInt32(grey[i]) &* 0x0101_0101 }
                UnsafeMutableRawPointer(d + 4 * x).storeBytes(of: (g & ~alphaMask) | (src & alphaMask), as: SIMD8<UInt32>.self)
                x += 8
            }
            while x < w {
                let alpha = s[4 * x + o.a]
                d[4 * x + o.r] = m[x]; d[4 * x + o.g] = m[x]; d[4 * x + o.b] = m[x]; d[4 * x + o.a] = alpha
                x += 1
            }
        } else if let layout = YUVLayout(source.format) {
            let d = layout.row(layout.y, destination, y)
            if layout.y.step == 1 {
                d.update(from: m, count: w)
            } else {
                for x in 0..<w { d[x * layout.y.step] = m[x] }
            }
        }
    }
}
