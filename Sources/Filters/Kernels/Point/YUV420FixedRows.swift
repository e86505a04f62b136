/// The row loops of the 4:2:0 fixed-point pass: one generic loop per combination of gain, crossed chroma and curve
/// (each specialised), over the luma, chroma and joint rows, with the AVX-512 rows first where the path has them.
extension YUV420FixedKernel {
    /// Processes luma rows `rows` (starting on an even row) and the chroma rows they cover.
    ///
    /// With `mirror` (scratch of 4 × width bytes) the frame is also mirrored: in place each output row is written
    /// to the scratch and reversed into place while it is in L1; into another frame the AVX-512 rows store their
    /// groups mirrored themselves and only a row's end goes through the scratch. So a mirror in the chain costs no
    /// pass of its own. (The gain is symmetric, so mirroring after it is mirroring before.)
    func run(source: Frame, destination: Frame, rows: Range<Int>, mirror: UnsafeMutableRawPointer? = nil) {
        if source.format == .nv12 {
            let s = source.planes[1], d = destination.planes[1]
            run(
                InterleavedChroma(source: s.base, sourceStride: s.stride, destination: d.base, destinationStride: d.stride),
                source, destination, rows, mirror)
        } else {
            let su = source.planes[1], sv = source.planes[2], du = destination.planes[1], dv = destination.planes[2]
            run(
                PlanarChroma(
                    u: su.base, uStride: su.stride, v: sv.base, vStride: sv.stride,
                    du: du.base, duStride: du.stride, dv: dv.base, dvStride: dv.stride),
                source, destination, rows, mirror)
        }
    }

    private func run<Chroma: ChromaRows>(
        _ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
        _ mirror: UnsafeMutableRawPointer?
    ) {
        if lumaTable != nil {
            run(chroma, source, destination, rows, mirror, On.self)
        } else {
            run(chroma, source, destination, rows, mirror, Off.self)
        }
    }

    private func run<Chroma: ChromaRows, Curve: Flag>(
        _ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>,
        _ mirror: UnsafeMutableRawPointer?, _: Curve.Type
    ) {
        switch (gain != nil, crossChroma) {
        case (false, false): run(chroma, source, destination, rows, mirror, Off.self, Off.self, Curve.self)
        case (false, true): run(chroma, source, destination, rows, mirror, Off.self, On.self, Curve.self)
        case (true, false): run(chroma, source, destination, rows, mirror, On.self, Off.self, Curve.self)
        case (true, true): run(chroma, source, destination, rows, mirror, On.self, On.self, Curve.self)
        }
    }

    private func run<Chroma: ChromaRows, Gain: Flag, Cross: Flag, Curve: Flag>(
        _ chroma: Chroma, _ source: Frame, _ destination: Frame, _ rows: Range<Int>, _ mirror: UnsafeMutableRawPointer?,
        _: Gain.Type, _: Cross.Type, _: Curve.Type
    ) {
        let width = source.width, height = source.height
        let chromaWidth = (width + 1) / 2
        let chromaRows = (rows.lowerBound / 2)..<((rows.upperBound + 1) / 2)
        let sy = source.planes[0], dy = destination.planes[0]
        let sameY = sy.base == dy.base && sy.stride == dy.stride
        let sameC = source.isSameMemory(as: destination)
        let lumaColumns = lumaColumns ?? UnsafeMutablePointer(bitPattern: 64)!
        let chromaColumns = chromaColumns ?? UnsafeMutablePointer(bitPattern: 64)!
        withUnsafePointer(to: constants) { c in
            // Without a curve the tables are never read.
            let lumaBlock = LumaBlock<Gain, Curve>(
                c: c, columns: lumaColumns, wideColumns: lumaColumnsWide,
                table: lumaTable ?? UnsafeMutablePointer(bitPattern: 64)!, tableBytes: lumaTableBytes)
            let blockTable = blockTable ?? UnsafeMutablePointer(bitPattern: 64)!
            let chromaBlock = ChromaBlock<Gain, Cross>(c: c, columns: chromaColumns, wideColumns: chromaColumnsWide)
            if mixed {
                for crow in chromaRows {
                    let row0 = 2 * crow, row1 = min(2 * crow + 1, height - 1)
                    let r0 = Gain.on ? lumaRowTerm(row0, height: height) : .zero
                    let r1 = Gain.on ? lumaRowTerm(row1, height: height) : .zero
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    let d0 = dy.base + row0 * dy.stride, d1 = dy.base + row1 * dy.stride
                    guard let mirror else {
                        Self.jointRows(
                            kernels, sy.base + row0 * sy.stride, d0, sy.base + row1 * sy.stride, d1,
                            chroma, crow, width, chromaWidth, r0, r1, rc, lumaBlock, chromaBlock, blockTable, c)
                        continue
                    }
                    Self.jointRows(
                        kernels, sy.base + row0 * sy.stride, mirror, sy.base + row1 * sy.stride, mirror + width,
                        chroma.redirected(to: mirror + 2 * width, chromaWidth), crow, width, chromaWidth, r0, r1, rc,
                        lumaBlock, chromaBlock, blockTable, c)
                    MirrorFlipKernel.reverse(mirror, d0, bytes: width, size: 1, kernels)
                    MirrorFlipKernel.reverse(mirror + width, d1, bytes: width, size: 1, kernels)
                    chroma.reverse(crow, from: mirror + 2 * width, chromaWidth, skipping: 0, kernels)
                }
                return
            }
            for row in rows {
                let s = (sy.base + row * sy.stride).assumingMemoryBound(to: UInt8.self)
                let d = (dy.base + row * dy.stride).assumingMemoryBound(to: UInt8.self)
                if let mirror {
                    // The identity maps compute exactly (a00 = 1 is 4096 in Q12), so they need no copy of their own here.
                    // Into another frame the wide path stores mirrored itself and only the row's end goes through the scratch.
                    let r = Gain.on ? lumaRowTerm(row, height: height) : .zero
                    Self.lumaRow(kernels, s, mirror.assumingMemoryBound(to: UInt8.self), width, r, lumaBlock, mirroredInto: d)
                } else if lumaIdentity {
                    if !sameY { d.update(from: s, count: width) }
                } else {
                    let r = Gain.on ? lumaRowTerm(row, height: height) : .zero
                    Self.lumaRow(kernels, s, d, width, r, lumaBlock)
                }
            }
            for crow in chromaRows {
                if let mirror {
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    Self.chromaRow(
                        kernels, chroma.redirected(to: mirror, chromaWidth), crow, chromaWidth, rc, chromaBlock, mirroredInto: chroma)
                } else if chromaIdentity {
                    if !sameC { chroma.copy(crow, chromaWidth) }
                } else {
                    let rc = Gain.on ? chromaRowTerm(crow, height: height) : .zero
                    Self.chromaRow(kernels, chroma, crow, chromaWidth, rc, chromaBlock)
                }
            }
        }
    }

    /// One luma row from `s` to `d`. With `final`, `d` is a row of scratch and the row ends up mirrored in
    /// `final`: stored there reversed by the wide path when `final` does not overlap `s`, the rest reversed from `d`.
    private static func lumaRow<Gain: Flag, Curve: Flag>(
        _ kernels: KernelSet, _ s: UnsafeMutablePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ width: Int,
        _ row: I16x8, _ block: LumaBlock<Gain, Curve>,
        mirroredInto final: UnsafeMutablePointer<UInt8>? = nil
    ) {
        let k = block.c.pointee
        let constant = (k.lumaConstant, k.lumaConstant)
        let direct = final.map { disjoint($0, s, width) } ?? false
        var x = kernels.table.yuv420Luma(
            s, (direct ? final : nil) ?? d, width: width, table: block.tableBytes, scale: k.lumaScale[0], constant: k.lumaConstant[0],
            bias: k.lumaBias[0], columns: Gain.on ? block.wideColumns : nil, row: row[0], mirrored: direct)
        let done = direct ? x : 0
        defer { if let final { MirrorFlipKernel.reverse(d + done, final, bytes: width - done, size: 1, kernels) } }
        while x &+ 16 <= width {
            let y = UnsafeRawPointer(s + x).loadUnaligned(as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(d + x).storeBytes(of: block.apply(y, constant, x, row), as: SIMD16<UInt8>.self)
            x &+= 16
        }
        if x < width {
            let count = width - x
            var y = SIMD16<UInt8>.zero
            withUnsafeMutableBytes(of: &y) { $0.baseAddress!.copyMemory(from: s + x, byteCount: count) }
            let out = block.apply(y, constant, x, row)
            withUnsafeBytes(of: out) { d.advanced(by: x).update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count) }
        }
    }

    /// One chroma row. With `final`, `chroma` writes to scratch (`redirected`) and the row ends up mirrored in
    /// `final`'s destination: stored there reversed by the wide path when that does not overlap the source, the rest
    /// reversed from the scratch.
    private static func chromaRow<Chroma: ChromaRows, Gain: Flag, Cross: Flag>(
        _ kernels: KernelSet, _ chroma: Chroma, _ crow: Int, _ chromaWidth: Int,
        _ row: I16x8, _ block: ChromaBlock<Gain, Cross>,
        mirroredInto final: Chroma? = nil
    ) {
        let rows = chroma.rows(crow)
        let k = block.c.pointee
        let p = rows.pointers
        let target = final?.rows(crow).pointers
        let direct =
            target.map { t in
                guard let dv = t.dv, let v = t.v else { return disjoint(t.du, t.u, 2 * chromaWidth) }
                return disjoint(t.du, t.u, chromaWidth) && disjoint(dv, v, chromaWidth)
            } ?? false
        let out = (direct ? target : nil) ?? p
        var cx = kernels.table.yuv420Chroma(
            p.u, p.v, out.du, out.dv, pairs: chromaWidth,
            diagonal: pair(k.chromaDiagonal), cross: Cross.on ? pair(k.chromaCross) : nil,
            constant: pair(k.chromaConstant), bias: pair(k.chromaBias),
            columns: Gain.on ? block.wideColumns : nil, row: row[0], mirrored: direct)
        let done = direct ? cx : 0
        defer { final?.reverse(crow, from: chroma.scratch, chromaWidth, skipping: done, kernels) }
        while cx &+ 8 <= chromaWidth {
            rows.store(block.apply(rows.load(cx), (.zero, .zero), cx, row, mixed: false), cx)
            cx &+= 8
        }
        if cx < chromaWidth {
            let count = chromaWidth - cx
            rows.storePartial(block.apply(rows.loadPartial(cx, count), (.zero, .zero), cx, row, mixed: false), cx, count)
        }
    }

    /// Two luma rows and their chroma row; `row1` may be `row0` (odd height), and is then written twice with the same values.
    private static func jointRows<Chroma: ChromaRows, Gain: Flag, Cross: Flag, Curve: Flag>(
        _ kernels: KernelSet, _ s0: UnsafeMutableRawPointer, _ d0: UnsafeMutableRawPointer, _ s1: UnsafeMutableRawPointer,
        _ d1: UnsafeMutableRawPointer,
        _ chroma: Chroma, _ crow: Int, _ width: Int, _ chromaWidth: Int, _ r0: I16x8, _ r1: I16x8, _ rc: I16x8,
        _ luma: LumaBlock<Gain, Curve>, _ block: ChromaBlock<Gain, Cross>, _ blockTable: UnsafeMutablePointer<Int16>,
        _ c: UnsafePointer<Constants>
    ) {
        let rows = chroma.rows(crow)
        let fromChroma = c.pointee.lumaFromChroma, constant32 = c.pointee.lumaConstant32
        let ones = I16x8(repeating: 1)
        @inline(__always) func step(
            _ y0: SIMD16<UInt8>, _ y1: SIMD16<UInt8>, _ uv: SIMD16<UInt8>, _ x: Int
        )
            -> (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>)
        {
            let (ul, uh) = widenCentred(uv)
            // Each chroma pair's contribution to its four luma samples, in both 16-bit halves of a 32-bit lane.
            @inline(__always) func spread(_ centred: I16x8) -> I16x8 {
                let p = (multiplyAdd(centred &>> 8, fromChroma) &+ constant32) &>> 8
                return unsafeBitCast((p & 0xFFFF) | (p &<< 16), to: I16x8.self)
            }
            // The sum of the block's four luma samples, ×32, in both halves: the chroma side reads it as mean·128.
            let (a0, a1) = widen(y0), (b0, b1) = widen(y1)
            @inline(__always) func sum(_ a: I16x8, _ b: I16x8) -> I16x8 {
                let p = multiplyAdd(a &+ b, ones)
                if Curve.on {
                    // The curve acts on the block's mean, as in the general path: a table on the sum.
                    let t = (blockTable[Int(p[0])], blockTable[Int(p[1])], blockTable[Int(p[2])], blockTable[Int(p[3])])
                    return I16x8(t.0, t.0, t.1, t.1, t.2, t.2, t.3, t.3)
                }
                return unsafeBitCast((p &<< 5) | (p &<< 21), to: I16x8.self)
            }
            let d = (spread(ul), spread(uh))
            return (
                luma.apply(y0, d, x, r0), luma.apply(y1, d, x, r1),
                block.apply(uv, (sum(a0, b0), sum(a1, b1)), x / 2, rc, mixed: true)
            )
        }
        var x = 0
        if !Curve.on {
            // The chroma side's curve is a table on the block sum, which the 64-byte rows do not read.
            let k = c.pointee, p = rows.pointers
            x = kernels.table.yuv420Joint(
                s0.assumingMemoryBound(to: UInt8.self), d0.assumingMemoryBound(to: UInt8.self),
                s1.assumingMemoryBound(to: UInt8.self), d1.assumingMemoryBound(to: UInt8.self), p.u, p.v, p.du, p.dv,
                width: width, luma: (k.lumaScale[0], k.lumaBias[0], Gain.on ? UnsafePointer(luma.columns) : nil, r0[0], r1[0]),
                chroma: (
                    pair(k.chromaDiagonal), Cross.on ? pair(k.chromaCross) : nil, pair(k.chromaConstant), pair(k.chromaBias),
                    Gain.on ? UnsafePointer(block.columns) : nil, rc[0]
                ),
                mixing: (pair(k.lumaFromChroma), k.lumaConstant32[0], pair(k.chromaFromLuma)))
        }
        while x &+ 16 <= width {
            let y0 = UnsafeRawPointer(s0 + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let y1 = UnsafeRawPointer(s1 + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let out = step(y0, y1, rows.load(x / 2), x)
            (d0 + x).storeBytes(of: out.0, as: SIMD16<UInt8>.self)
            (d1 + x).storeBytes(of: out.1, as: SIMD16<UInt8>.self)
            rows.store(out.2, x / 2)
            x &+= 16
        }
        guard x < width else { return }
        // The tail: luma padded with its last sample, so a lone column's block mean is that sample.
        let count = width - x, pairs = chromaWidth - x / 2
        func padded(_ p: UnsafeMutableRawPointer) -> SIMD16<UInt8> {
            var v = SIMD16<UInt8>(repeating: p.load(fromByteOffset: x + count - 1, as: UInt8.self))
            withUnsafeMutableBytes(of: &v) { $0.baseAddress!.copyMemory(from: p + x, byteCount: count) }
            return v
        }
        let out = step(padded(s0), padded(s1), rows.loadPartial(x / 2, pairs), x)
        withUnsafeBytes(of: out.0) { (d0 + x).copyMemory(from: $0.baseAddress!, byteCount: count) }
        withUnsafeBytes(of: out.1) { (d1 + x).copyMemory(from: $0.baseAddress!, byteCount: count) }
        rows.storePartial(out.2, x / 2, pairs)
    }

    /// Sixteen luma samples: `Y' = zero + gain·(a00·(C(Y) − 128) + D)`, D per column (constant or from chroma), C the curve.
    private struct LumaBlock<Gain: Flag, Curve: Flag> {
        let c: UnsafePointer<Constants>
        let columns: UnsafeMutablePointer<Int16>
        /// `columns` for the AVX-512 row (its lane order); nil without a vignette.
        let wideColumns: UnsafeMutablePointer<Int16>?
        let table: UnsafeMutablePointer<Int16>
        let tableBytes: UnsafeMutablePointer<UInt8>?

        @inline(__always)
        func apply(_ y: SIMD16<UInt8>, _ d: (I16x8, I16x8), _ x: Int, _ row: I16x8) -> SIMD16<UInt8> {
            let scale = c.pointee.lumaScale, bias = c.pointee.lumaBias
            var (lo, hi) = Curve.on ? (I16x8(), I16x8()) : widenCentred(y)
            if Curve.on {
                for i in 0..<8 {
                    lo[i] = table[Int(y[i])]
                    hi[i] = table[Int(y[i &+ 8])]
                }
            }
            var tl = mulHigh(lo, scale) &+ d.0, th = mulHigh(hi, scale) &+ d.1
            if Gain.on {
                let cl = UnsafeRawPointer(columns + x).loadUnaligned(as: I16x8.self)
                let ch = UnsafeRawPointer(columns + x + 8).loadUnaligned(as: I16x8.self)
                tl = mulHigh(tl, gainTerm(row, cl, c.pointee.opaqueZero))
                th = mulHigh(th, gainTerm(row, ch, c.pointee.opaqueZero))
                return packSaturated((tl &+ bias) &>> 3, (th &+ bias) &>> 3)
            }
            return packSaturated((tl &+ bias) &>> 4, (th &+ bias) &>> 4)
        }
    }

    /// Eight chroma pairs, interleaved Cb, Cr: the 2×2 map, luma term when mixed, then the gain about 128.
    private struct ChromaBlock<Gain: Flag, Cross: Flag> {
        let c: UnsafePointer<Constants>
        let columns: UnsafeMutablePointer<Int16>
        /// `columns` for the AVX-512 row (its lane order); nil without a vignette.
        let wideColumns: UnsafeMutablePointer<Int16>?

        @inline(__always)
        func apply(_ uv: SIMD16<UInt8>, _ lumaSum: (I16x8, I16x8), _ cx: Int, _ row: I16x8, mixed: Bool) -> SIMD16<UInt8> {
            let k = c.pointee
            let (lo, hi) = widenCentred(uv)
            var tl = mulHigh(lo, k.chromaDiagonal) &+ k.chromaConstant
            var th = mulHigh(hi, k.chromaDiagonal) &+ k.chromaConstant
            if Cross.on {
                tl &+= mulHigh(swapPairs(lo), k.chromaCross)
                th &+= mulHigh(swapPairs(hi), k.chromaCross)
            }
            if mixed {
                tl &+= mulHigh(lumaSum.0, k.chromaFromLuma)
                th &+= mulHigh(lumaSum.1, k.chromaFromLuma)
            }
            if Gain.on {
                let cl = UnsafeRawPointer(columns + 2 * cx).loadUnaligned(as: I16x8.self)
                let ch = UnsafeRawPointer(columns + 2 * cx + 8).loadUnaligned(as: I16x8.self)
                tl = mulHigh(tl, gainTerm(row, cl, c.pointee.opaqueZero))
                th = mulHigh(th, gainTerm(row, ch, c.pointee.opaqueZero))
                return packSaturated((tl &+ k.chromaBias) &>> 3, (th &+ k.chromaBias) &>> 3)
            }
            return packSaturated((tl &+ k.chromaBias) &>> 4, (th &+ k.chromaBias) &>> 4)
        }
    }

    /// True when `count` bytes at `a` and at `b` do not overlap (a row may be stored mirrored from the other).
    private static func disjoint(_ a: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, _ count: Int) -> Bool {
        a + count <= b || b + count <= a
    }
}

/// Lanes 0 and 1 (a Cb, Cr pair of constants) packed in 32 bits, Cb low: how the 64-byte rows take them.
private func pair(_ v: I16x8) -> UInt32 { UInt32(UInt16(bitPattern: v[0])) | UInt32(UInt16(bitPattern: v[1])) << 16 }

@inline(__always)
private func swapPairs(_ x: I16x8) -> I16x8 { I16x8(x[1], x[0], x[3], x[2], x[5], x[4], x[7], x[6]) }
