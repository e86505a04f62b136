/// Sobel magnitude of luma, written as grey: R = G = B (alpha kept) or Y with neutral chroma.
///
/// One pass over the frame: each thread keeps three luma rows (edges extended by one pixel) in a
/// ring in L1, makes the next row's luma while the current one's gradient is taken, and writes
/// each output row as soon as it is known. Luma is Q15; the gradients are 16-bit lanes, gx² + gy²
/// 32-bit, √ in float: the row loops are `EdgesCore`, 16 pixels a step, on the SIMD path selected.
///
/// In place, a piece's first and last rows need the luma of rows the neighbouring pieces overwrite,
/// so those two rows per piece are made before the pieces start (into another frame, by the piece).
enum EdgesKernel {
    static func run(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let w = source.width, h = source.height
        let bands = context.bands(rows: h, samples: w * h)
        // w pixels + one each side, then slack for 16-wide loads and stores past the end.
        let rowBytes = (w + 2 + 31) & ~15
        let pieces = bands > 1 ? min(h, bands * RowParallel.piecesPerBand) : 1
        let ring = context.perBand(.rowA, bands: bands, bytes: 3 * rowBytes)
        // The luma of the row above a piece and the row below it: made first, per piece, only in place; into
        // another frame each piece reads them from the source itself.
        let inPlace = source.isSameMemory(as: destination)
        let halos = context.perBand(.rowB, bands: inPlace ? pieces : bands, bytes: 2 * rowBytes)
        let magnitudes = context.perBand(.rowC, bands: bands, bytes: rowBytes)
        let luma = LumaSource(
            source, context.kernels, vectors: context.perBand(.table, bands: 1, bytes: KernelSet.edgesLumaVectorBytes).base)
        let offset = source.format.isRGB ? 0 : Int32(source.color.lumaQuantization.offset)
        func makeHalo(_ rows: Range<Int>, into halo: UnsafeMutablePointer<UInt8>) {
            luma.row(max(rows.lowerBound - 1, 0), into: halo)
            luma.row(min(rows.upperBound, h - 1), into: halo + rowBytes)
        }

        if inPlace {
            for piece in 0..<pieces {
                let rows = RowParallel.range(band: piece, of: pieces, rows: h)
                guard !rows.isEmpty else { continue }
                makeHalo(rows, into: (halos.base + piece * halos.stride).assumingMemoryBound(to: UInt8.self))
            }
        }
        RowParallel.run(pieces: pieces, bands: bands) { slot, piece in
            let rows = RowParallel.range(band: piece, of: pieces, rows: h)
            guard !rows.isEmpty else { return }
            let halo = (halos.base + (inPlace ? piece : slot) * halos.stride).assumingMemoryBound(to: UInt8.self)
            if !inPlace { makeHalo(rows, into: halo) }
            let slots = (ring.base + slot * ring.stride).assumingMemoryBound(to: UInt8.self)
            let m = (magnitudes.base + slot * magnitudes.stride).assumingMemoryBound(to: UInt8.self)
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
                context.kernels.table.edgesSobel(above + 1, UnsafePointer(here + 1), below + 1, width: w, offset: offset, into: m)
                write(m, row: y, source, destination, context.kernels)
                // Rotate: the row below becomes the current one.
                above = UnsafePointer(here)
                (here, next, spare) = (next, spare, here)
            }
        }
        if let layout = YUVLayout(source.format) {
            let cw = layout.chromaWidth(w)
            for row in 0..<layout.chromaHeight(h) {
                let u = layout.row(layout.u, destination, row), v = layout.row(layout.v, destination, row)
                // Whole rows of chroma (I420's planes, NV12's interleaved pairs) at memset speed: byte by byte,
                // NV12's half a million pairs were the serial part that kept two threads at 1.4x one.
                if layout.u.plane != layout.y.plane, layout.u.step == 1 {
                    u.update(repeating: 128, count: cw)
                    v.update(repeating: 128, count: cw)
                } else if layout.u.plane != layout.y.plane, layout.u.step == 2, v == u + 1 {
                    u.update(repeating: 128, count: 2 * cw)
                } else {
                    for x in 0..<cw {
                        u[x * layout.u.step] = 128
                        v[x * layout.v.step] = 128
                    }
                }
            }
        }
    }

    /// Where luma rows come from: RGB through Q15 weights, YUV's Y samples as they are.
    struct LumaSource {
        let frame: Frame
        /// Q15 weights of R, G and B (summing to 2¹⁵) and those channels' bit offsets in a pixel.
        let weights: SIMD3<Int32>, shifts: SIMD3<UInt32>
        let kernels: KernelSet
        /// The portable kernel's weights as vectors, in scratch (written here, read by every band).
        let vectors: UnsafeRawPointer

        init(_ frame: Frame, _ kernels: KernelSet, vectors: UnsafeMutableRawPointer) {
            self.frame = frame
            self.kernels = kernels
            let k = frame.color.lumaCoefficients
            let kr = Int32((k.r * 32768).rounded()), kb = Int32((k.b * 32768).rounded())
            weights = SIMD3(kr, 32768 - kr - kb, kb)
            let o = frame.format.rgbOffsets
            shifts = SIMD3(UInt32(8 * o.r), UInt32(8 * o.g), UInt32(8 * o.b))
            kernels.edgesLumaVectors(weights, shifts, into: vectors)
            self.vectors = UnsafeRawPointer(vectors)
        }

        /// Luma of row `y` at `p[1...w]`, with `p[0]` and `p[w + 1]` repeating the edge pixels.
        func row(_ y: Int, into p: UnsafeMutablePointer<UInt8>) {
            let w = frame.width
            if frame.format.isRGB {
                let s = (frame.planes[0].base + y * frame.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                kernels.table.edgesLuma(s, width: w, weights: weights, shifts: shifts, vectors: vectors, into: p + 1)
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

    /// Writes magnitudes as grey RGB (alpha from the source) or as Y.
    @inline(__always)
    static func write(_ m: UnsafePointer<UInt8>, row y: Int, _ source: Frame, _ destination: Frame, _ kernels: KernelSet) {
        let w = source.width
        if source.format.isRGB {
            let s = (source.planes[0].base + y * source.planes[0].stride).assumingMemoryBound(to: UInt8.self)
            let d = (destination.planes[0].base + y * destination.planes[0].stride).assumingMemoryBound(to: UInt8.self)
            kernels.table.edgesGrey(m, s, width: w, alpha: UInt32(0xFF) << (8 * UInt32(source.format.rgbOffsets.a)), into: d)
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
