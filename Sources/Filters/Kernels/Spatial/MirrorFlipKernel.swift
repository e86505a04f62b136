/// Mirror (reverse pixels within rows, per plane) and flip (reverse the row order, per plane).
///
/// Both are addressing, not arithmetic: flip reads the source through negative strides
/// (`Frame.flipped`), mirror reverses 16-byte blocks with one shuffle each (pshufd for RGBA,
/// pshuflw/pshufhw/pshufd for NV12's UV pairs, plus a byte swap for 8-bit planes). Run alone they
/// cost about a memcpy; after a point pass (`CompiledChain`) the mirror reverses each output row
/// while it is still in L1.
enum MirrorFlipKernel {
    /// Mirror and/or flip `source` into `destination`; in-place works (flip copies the frame first).
    static func run(_ source: Frame, _ destination: Frame, mirror: Bool, flip: Bool, _ context: SpatialContext) {
        guard mirror || flip else {
            if !source.isSameMemory(as: destination) { copyRows(source, destination, context) }
            return
        }
        guard mirror else {
            flipRows(source, destination, context)
            return
        }
        var input = source
        if flip { input = context.unaliased(source, destination).flipped() }
        let inPlace = input.isSameMemory(as: destination) || input.format == .yuy2
        let widest = (0..<input.planes.count).map { input.rowBytes(plane: $0) }.max() ?? 0
        let bands = context.bands(rows: input.height, samples: input.width * input.height)
        let buffers = context.perBand(.rowA, bands: bands, bytes: widest)
        let alignment = input.format == .i420 || input.format == .nv12 ? 2 : 1
        RowParallel.run(rows: input.height, bands: bands, alignment: alignment) { band, rows in
            let buffer = buffers.base + band * buffers.stride
            mirrorRows(input, destination, lumaRows: rows, buffer: inPlace ? buffer : nil, context.kernels)
        }
    }

    /// A plain copy into other memory: the rows of every plane split into pieces, so a copy on two cores moves what
    /// memory bandwidth allows (1080p frames from memory: 1.1–1.7x one core's here, from run to run; in cache 2x).
    static func copyRows(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let bands = context.bands(rows: source.height, samples: source.width * source.height)
        let pieces = bands > 1 ? bands * RowParallel.piecesPerBand : 1
        RowParallel.run(pieces: pieces, bands: bands) { _, piece in
            for index in source.planes.indices {
                let bytes = source.rowBytes(plane: index), s = source.planes[index], d = destination.planes[index]
                let rows = RowParallel.range(band: piece, of: pieces, rows: source.rows(plane: index))
                guard !rows.isEmpty else { continue }
                if s.stride == bytes, d.stride == bytes {
                    (d.base + rows.lowerBound * bytes).copyMemory(from: s.base + rows.lowerBound * bytes, byteCount: rows.count * bytes)
                    continue
                }
                for row in rows {
                    (d.base + row * d.stride).copyMemory(from: s.base + row * s.stride, byteCount: bytes)
                }
            }
        }
    }

    /// Flip alone: each row copied to its mirror row, or (in place) swapped with it through a row of scratch, so
    /// the frame is read and written once with no copy of it first. The rows (the top half's, in place) are split
    /// into pieces per plane, and each piece moves its share of every plane.
    static func flipRows(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let inPlace = source.isSameMemory(as: destination)
        let widest = (0..<source.planes.count).map { source.rowBytes(plane: $0) }.max() ?? 0
        let bands = context.bands(rows: source.height, samples: source.width * source.height)
        let buffers = context.perBand(.rowA, bands: bands, bytes: widest)
        let pieces = bands > 1 ? bands * RowParallel.piecesPerBand : 1
        RowParallel.run(pieces: pieces, bands: bands) { slot, piece in
            for index in source.planes.indices {
                let rows = source.rows(plane: index), bytes = source.rowBytes(plane: index)
                let s = source.planes[index], d = destination.planes[index]
                // In place, rows pair up and the middle row of an odd count stays.
                let count = inPlace ? rows / 2 : rows
                for row in RowParallel.range(band: piece, of: pieces, rows: count) {
                    let top = s.base + row * s.stride, bottom = s.base + (rows - 1 - row) * s.stride
                    if inPlace {
                        let spare = buffers.base + slot * buffers.stride
                        spare.copyMemory(from: top, byteCount: bytes)
                        top.copyMemory(from: bottom, byteCount: bytes)
                        bottom.copyMemory(from: spare, byteCount: bytes)
                    } else {
                        (d.base + (rows - 1 - row) * d.stride).copyMemory(from: top, byteCount: bytes)
                    }
                }
            }
        }
    }

    /// Mirrors the rows of every plane that luma rows `lumaRows` cover, from `source` into
    /// `destination` (the same memory when `buffer`, a row of scratch, is given).
    ///
    /// `lumaRows` starts on an even row for 4:2:0 formats, so no chroma row is mirrored twice.
    static func mirrorRows(
        _ source: Frame, _ destination: Frame, lumaRows: Range<Int>, buffer: UnsafeMutableRawPointer?, _ kernels: KernelSet
    ) {
        if source.format == .yuy2, let buffer {
            mirrorPacked422(source, destination, lumaRows: lumaRows, buffer: buffer)
            return
        }
        for index in source.planes.indices {
            let planeRows: Range<Int>
            if index > 0 && (source.format == .i420 || source.format == .nv12) {
                planeRows = (lumaRows.lowerBound / 2)..<((lumaRows.upperBound + 1) / 2)
            } else {
                planeRows = lumaRows
            }
            let bytes = source.rowBytes(plane: index)
            let size: Int
            switch source.format {
            case .i420: size = 1
            case .nv12: size = index == 0 ? 1 : 2
            default: size = 4
            }
            let s = source.planes[index], d = destination.planes[index]
            for row in planeRows {
                var from = UnsafeRawPointer(s.base + row * s.stride)
                let to = d.base + row * d.stride
                if let buffer {
                    buffer.copyMemory(from: from, byteCount: bytes)
                    from = UnsafeRawPointer(buffer)
                }
                // Straight from the frame: read it forwards, one stream the prefetchers follow row after row
                // (read backwards, each row began a new descending stream: a frame not in cache took 2.1x a
                // memcpy, 1.7x now). From the row buffer, in L1, the writes go forwards instead.
                reverse(from, to, bytes: bytes, size: size, readForward: buffer == nil, kernels)
            }
        }
    }

    /// Writes the `size`-byte elements of `source` in reverse order to `destination` (no overlap), on `kernels`' path.
    @inline(__always)
    static func reverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int,
        readForward: Bool = false, _ kernels: KernelSet
    ) {
        let done = kernels.table.mirrorReverse(source, destination, bytes: bytes, size: size, readForward: readForward)
        switch size {
        case 4:
            blocks(source, destination, from: done, bytes: bytes, size: 4, readForward: readForward) { (v: SIMD4<UInt32>) in
                SIMD4(v[3], v[2], v[1], v[0])
            }
        case 2:
            blocks(source, destination, from: done, bytes: bytes, size: 2, readForward: readForward) { (v: SIMD8<UInt16>) in
                SIMD8(v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
            }
        default:
            blocks(source, destination, from: done, bytes: bytes, size: 1, readForward: readForward) { (v: SIMD16<UInt8>) in
                SIMD16(v[15], v[14], v[13], v[12], v[11], v[10], v[9], v[8], v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
            }
        }
    }

    @inline(__always)
    private static func blocks<V: SIMD>(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, from start: Int, bytes: Int, size: Int,
        readForward: Bool, _ reversed: (V) -> V
    ) {
        let whole = start + (bytes - start) / 16 * 16
        @inline(__always) func group(_ o: Int) {
            d.storeBytes(of: reversed(s.loadUnaligned(fromByteOffset: bytes &- o &- 16, as: V.self)), toByteOffset: o, as: V.self)
        }
        sweepMirrorGroups(from: start, to: whole, step: 16, readForward: readForward, group)
        var o = whole
        while o < bytes {
            (d + o).copyMemory(from: s + (bytes - o - size), byteCount: size)
            o += size
        }
    }

    /// YUY2 per component (Y over the visible width, U and V over the chroma width), so odd widths
    /// mirror their visible pixels; rows go through `buffer`.
    private static func mirrorPacked422(_ source: Frame, _ destination: Frame, lumaRows: Range<Int>, buffer: UnsafeMutableRawPointer) {
        let w = source.width, cw = (w + 1) / 2, bytes = source.rowBytes(plane: 0)
        let b = buffer.assumingMemoryBound(to: UInt8.self)
        for row in lumaRows {
            buffer.copyMemory(from: source.planes[0].base + row * source.planes[0].stride, byteCount: bytes)
            let d = (destination.planes[0].base + row * destination.planes[0].stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<w { d[2 * x] = b[2 * (w - 1 - x)] }
            for x in 0..<cw {
                d[4 * x + 1] = b[4 * (cw - 1 - x) + 1]
                d[4 * x + 3] = b[4 * (cw - 1 - x) + 3]
            }
        }
    }
}

extension Frame {
    /// The same memory read bottom-up: each plane starts at its last row with a negative stride.
    ///
    /// Only for kernels reading it as a source; `validate()` would reject the stride.
    func flipped() -> Frame {
        var frame = self
        for index in planes.indices {
            let rows = self.rows(plane: index)
            frame.planes[index] = Plane(base: planes[index].base + (rows - 1) * planes[index].stride, stride: -planes[index].stride)
        }
        return frame
    }
}
