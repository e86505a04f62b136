#if SWIFTCAM_INTRINSICS
internal import FiltersPortable
internal import FiltersAVX2
internal import FiltersAVX512
#endif

/// Each kernel with a wider version, called on this set's path: the wider version does whole groups and the portable
/// one (or the caller) the rest.
extension KernelSet {
    /// On AVX-512, `YUV420Core.lumaRow` (whole groups of 64 samples; returns how many it did); elsewhere 0.
    func yuv420Luma(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, width: Int, table: UnsafePointer<UInt8>?,
        scale: Int16, constant: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            return YUV420Core.lumaRow(
                s, d, width: width, .init(table: table, scale: scale, constant: constant, bias: bias, columns: columns, row: row),
                mirrored: mirrored)
        }
        #endif
        return 0
    }

    /// On AVX-512, `YUV420Core.chromaRow` (whole groups of 32 pairs; returns how many it did); elsewhere 0.
    func yuv420Chroma(
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        pairs: Int, diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16,
        mirrored: Bool
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            return YUV420Core.chromaRow(
                u, v, du, dv, pairs: pairs,
                .init(
                    diagonal: diagonal, cross: cross, constant: constant, bias: bias,
                    columns: columns, row: row), mirrored: mirrored)
        }
        #endif
        return 0
    }

    /// On AVX-512, `YUV420Core.jointRows` (whole groups of 64 luma columns; returns how many it did); elsewhere 0.
    func yuv420Joint(
        _ s0: UnsafePointer<UInt8>, _ d0: UnsafeMutablePointer<UInt8>, _ s1: UnsafePointer<UInt8>, _ d1: UnsafeMutablePointer<UInt8>,
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        width: Int, luma: (scale: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row0: Int16, row1: Int16),
        chroma: (diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16),
        mixing: (fromChroma: UInt32, constant32: Int32, fromLuma: UInt32)
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            return YUV420Core.jointRows(
                s0, d0, s1, d1, u, v, du, dv, width: width,
                .init(table: nil, scale: luma.scale, constant: 0, bias: luma.bias, columns: luma.columns, row: luma.row0),
                .init(
                    diagonal: chroma.diagonal, cross: chroma.cross, constant: chroma.constant, bias: chroma.bias,
                    columns: chroma.columns, row: chroma.row),
                .init(fromChroma: mixing.fromChroma, constant32: mixing.constant32, fromLuma: mixing.fromLuma, row1: luma.row1))
        }
        #endif
        return 0
    }

    /// On AVX-512, `ByteTableCore.lookup` (whole groups of 64 bytes; returns how many it did); on AVX2 its
    /// `ByteTableCore.uniform` where there is one table (whole groups of 32); on aarch64 `NEONByteTable.uniform` where
    /// there is one (whole groups of 16); elsewhere 0.
    /// `uniform`: (byte offset of the one table in `tables`, the bytes it applies to) when the others keep their values.
    func byteTables(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>,
        uniform: (offset: Int, mask: UInt64)?
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            guard let uniform else { return FiltersAVX512.ByteTableCore.lookup(source, destination, bytes: bytes, tables: tables) }
            return FiltersAVX512.ByteTableCore.uniform(
                source, destination, bytes: bytes, table: tables + uniform.offset, mask: uniform.mask)
        }
        if path == .avx2, let uniform {
            return FiltersAVX2.ByteTableCore.uniform(
                source, destination, bytes: bytes, table: tables + uniform.offset,
                mask: UInt32(truncatingIfNeeded: uniform.mask))
        }
        #elseif arch(arm64)
        if let uniform {
            return NEONByteTable.uniform(source, destination, bytes: bytes, table: tables + uniform.offset, mask: uniform.mask)
        }
        #endif
        return 0
    }

    /// `BoxCascadeCore.cascade` on this set's path.
    @inline(__always)
    func cascade(_ a: UnsafeMutablePointer<SIMD8<Float>>, positions: Int, stride: Int, box: BoxCascadeCore.Box, passes: Int) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            FiltersAVX2.BoxCascadeCore.cascade(
                a, positions: positions, stride: stride,
                box: .init(radius: box.radius, inner: box.inner, outer: box.outer), passes: passes)
            return
        }
        #endif
        BoxCascadeCore.cascade(a, positions: positions, stride: stride, box: box, passes: passes)
    }

    /// `BoxCascadeCore.load4` on this set's path.
    func load4(_ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            FiltersAVX2.BoxCascadeCore.load4(r0, r1, width: width, into: a)
            return
        }
        #endif
        BoxCascadeCore.load4(r0, r1, width: width, into: a)
    }

    /// `BoxCascadeCore.store4` on this set's path.
    func store4(
        _ a: UnsafePointer<SIMD8<Float>>, width: Int, scale: SIMD8<Float>, _ o0: UnsafeMutablePointer<UInt16>,
        _ o1: UnsafeMutablePointer<UInt16>
    ) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            FiltersAVX2.BoxCascadeCore.store4(a, width: width, scale: scale, o0, o1)
            return
        }
        #endif
        BoxCascadeCore.store4(a, width: width, scale: scale, o0, o1)
    }

    /// `BoxCascadeCore.loadStrip` on this set's path.
    func loadStrip(_ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            FiltersAVX2.BoxCascadeCore.loadStrip(plane, rowStride: rowStride, rows: rows, into: a)
            return
        }
        #endif
        BoxCascadeCore.loadStrip(plane, rowStride: rowStride, rows: rows, into: a)
    }

    /// `BoxCascadeCore.storeStrip` on this set's path.
    func storeStrip(_ a: UnsafePointer<SIMD8<Float>>, rows: Int, scale: SIMD8<Float>, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            FiltersAVX2.BoxCascadeCore.storeStrip(a, rows: rows, scale: scale, into: d, rowBytes: rowBytes)
            return
        }
        #endif
        BoxCascadeCore.storeStrip(a, rows: rows, scale: scale, into: d, rowBytes: rowBytes)
    }

    /// `EdgesCore.luma` on this set's path; the portable kernel reads its weights from `vectors` (`edgesLumaVectors`).
    func edgesLuma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            let done = FiltersAVX512.EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, into: p)
            FiltersAVX2.EdgesCore.luma(
                s + 4 * done, width: width - done, weights: weights, shifts: shifts, vectors: vectors, into: p + done)
            return
        }
        if hasAVX2 { return FiltersAVX2.EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p) }
        #endif
        if hasSSE2 { return EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p) }
        FiltersPortable.EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p)
    }

    /// Bytes `edgesLuma`'s `vectors` take.
    static var edgesLumaVectorBytes: Int { MemoryLayout<FiltersPortable.EdgesCore.LumaVectors>.size }

    /// Writes the portable `edgesLuma`'s weights for `weights` and `shifts` at `vectors` (`edgesLumaVectorBytes`).
    func edgesLumaVectors(_ weights: SIMD3<Int32>, _ shifts: SIMD3<UInt32>, into vectors: UnsafeMutableRawPointer) {
        FiltersPortable.EdgesCore.lumaVectors(weights, shifts, into: vectors)
    }

    /// `EdgesCore.sobel` on this set's path.
    func edgesSobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.EdgesCore.sobel(a, h, b, width: width, offset: offset, into: m) }
        #endif
        if hasSSE2 { return EdgesCore.sobel(a, h, b, width: width, offset: offset, into: m) }
        FiltersPortable.EdgesCore.sobel(a, h, b, width: width, offset: offset, into: m)
    }

    /// `EdgesCore.magnitudes` on this set's path (for tests: the paths take the root differently).
    func edgesMagnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.EdgesCore.magnitudes(gx, gy, count: count, offset: offset, into: m) }
        #endif
        if hasSSE2 { return EdgesCore.magnitudes(gx, gy, count: count, offset: offset, into: m) }
        FiltersPortable.EdgesCore.magnitudes(gx, gy, count: count, offset: offset, into: m)
    }

    /// `EdgesCore.grey` on this set's path.
    func edgesGrey(_ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>) {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            let done = FiltersAVX512.EdgesCore.grey(m, s, width: width, alpha: alpha, into: d)
            FiltersAVX2.EdgesCore.grey(m + done, s + 4 * done, width: width - done, alpha: alpha, into: d + 4 * done)
            return
        }
        if hasAVX2 { return FiltersAVX2.EdgesCore.grey(m, s, width: width, alpha: alpha, into: d) }
        #endif
        if hasSSE2 { return EdgesCore.grey(m, s, width: width, alpha: alpha, into: d) }
        FiltersPortable.EdgesCore.grey(m, s, width: width, alpha: alpha, into: d)
    }

    /// On AVX2 and AVX-512, `RGBFixedCore.row` (whole 16- or 32-pixel groups; returns how many pixels it did); elsewhere 0.
    func rgbFixedRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            return FiltersAVX512.RGBFixedCore.row(
                src, dst, width: width, m: m, o: o, keep: keep, passFirst: passFirst, columns: columns, row: row,
                mirrored: mirrored)
        }
        if path == .avx2 {
            return FiltersAVX2.RGBFixedCore.row(
                src, dst, width: width, m: m, o: o, keep: keep, passFirst: passFirst, columns: columns, row: row,
                mirrored: mirrored)
        }
        #endif
        return 0
    }

    /// On AVX-512, `RGBFixedCore.row` with `table` (256 bytes, each entry xored with 0x80) applied to the colour
    /// bytes first (whole 32-pixel groups; returns how many pixels it did); elsewhere 0.
    func rgbFixedRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            return FiltersAVX512.RGBFixedCore.row(
                src, dst, width: width, m: m, o: o, keep: 0, passFirst: passFirst, columns: columns, row: row,
                mirrored: mirrored, table: table)
        }
        #endif
        return 0
    }

    /// On AVX2, `ZoomCore.blend` (whole groups of 16 samples; returns how many it did); elsewhere 0.
    func zoomBlend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight: UInt32, count: Int, into d: UnsafeMutablePointer<UInt8>
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.ZoomCore.blend(a, b, weight: weight, count: count, into: d) }
        #endif
        return 0
    }

    /// On AVX2 (and AVX-512), `ZoomCore.horizontal4` (returns how many output pixels it did); elsewhere 0.
    func zoomHorizontal4(_ s: UnsafePointer<UInt8>, columns: UnsafePointer<Int32>, width: Int, into h: UnsafeMutablePointer<UInt16>) -> Int
    {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.ZoomCore.horizontal4(s, columns: columns, width: width, into: h) }
        #endif
        return 0
    }

    /// On AVX-512 its `MirrorCore.reverse` (whole 64-byte groups) then AVX2's on what is left, on AVX2 that alone
    /// (whole 32-byte groups); returns how many bytes were done; elsewhere 0.
    func mirrorReverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int,
        readForward: Bool
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if path == .avx512 {
            let done = FiltersAVX512.MirrorCore.reverse(source, destination, bytes: bytes, size: size, readForward: readForward)
            guard done < bytes else { return done }
            // The last part of the row (less than 64 bytes) 32 bytes at a time, offset past what is done.
            return done
                + FiltersAVX2.MirrorCore.reverse(source, destination + done, bytes: bytes - done, size: size, readForward: readForward)
        }
        if hasAVX2 { return FiltersAVX2.MirrorCore.reverse(source, destination, bytes: bytes, size: size, readForward: readForward) }
        #endif
        return 0
    }

    /// On AVX2, `GaussianCore.horizontal` (whole groups of 16; returns how many it did); elsewhere 0.
    func gaussianHorizontal(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels: Int, samples: Int,
        into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.GaussianCore.horizontal(p, taps: taps, channels: channels, samples: samples, into: out) }
        #endif
        return 0
    }

    /// On AVX2, `GaussianCore.vertical` (whole groups of 16; returns how many it did); elsewhere 0.
    func gaussianVertical(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int,
        into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 { return FiltersAVX2.GaussianCore.vertical(rows, taps: taps, samples: samples, into: acc) }
        #endif
        return 0
    }
}

extension KernelSet {
    /// `BoxCascadeFixedCore.panel` on this set's path.
    func boxFixedPanel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int, channels: Int, width: Int, height: Int,
        from x0: Int, count: Int, horizontal: BoxCascadeFixedCore.Box, vertical: BoxCascadeFixedCore.Box, passes: Int,
        fractionBits f: Int, scratch: UnsafeMutableRawPointer
    ) {
        #if SWIFTCAM_INTRINSICS
        if hasAVX2 {
            return FiltersAVX2.BoxCascadeFixedCore.panel(
                source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride, left: left,
                right: right, haloStride: haloStride, channels: channels, width: width, height: height, from: x0, count: count,
                horizontal: .init(radius: horizontal.radius, inner: horizontal.inner, outer: horizontal.outer, bias: horizontal.bias),
                vertical: .init(radius: vertical.radius, inner: vertical.inner, outer: vertical.outer, bias: vertical.bias),
                passes: passes, fractionBits: f, scratch: scratch)
        }
        #endif
        if hasSSE2 {
            return BoxCascadeFixedCore.panel(
                source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride,
                left: left, right: right, haloStride: haloStride, channels: channels, width: width, height: height,
                from: x0, count: count, horizontal: horizontal, vertical: vertical, passes: passes, fractionBits: f,
                scratch: scratch)
        }
        FiltersPortable.BoxCascadeFixedCore.panel(
            source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride, left: left,
            right: right, haloStride: haloStride, channels: channels, width: width, height: height, from: x0, count: count,
            horizontal: .init(radius: horizontal.radius, inner: horizontal.inner, outer: horizontal.outer, bias: horizontal.bias),
            vertical: .init(radius: vertical.radius, inner: vertical.inner, outer: vertical.outer, bias: vertical.bias),
            passes: passes, fractionBits: f, scratch: scratch)
    }
}

extension KernelSet {
    /// `GreyCore.row` on this set's path (whole steps; returns how many pixels it did).
    func greyRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512:
            return FiltersAVX512.GreyCore.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
        case .avx2:
            return FiltersAVX2.GreyCore.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
        case .sse2: return GreyCore.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
        case .portable: break
        }
        #endif
        return FiltersPortable.GreyCore.row(src, dst, width: width, vectors: vectors, uniform: uniform, keep: keep)
    }

    /// The portable grey kernel's constants (freed by the caller).
    func greyVectors(even: Int32, odd: Int32, offsets: SIMD4<Int16>) -> UnsafeMutableRawPointer {
        FiltersPortable.GreyCore.vectors(even: even, odd: odd, offsets: offsets)
    }

    /// `ToneCore.row` on this set's path (whole steps; returns how many pixels it did); the portable kernel reads its
    /// constants from `vectors` (`toneVectors`), the others splat the scalars. With `table` (256 bytes, each entry
    /// xored with 0x80) only the AVX-512 kernel does anything: every byte goes through the table first.
    func toneRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, vectors: UnsafeRawPointer, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>? = nil
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512:
            return FiltersAVX512.ToneCore.row(
                src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
                columns: columns, row: row, mirrored: mirrored, table: table)
        case .avx2:
            return FiltersAVX2.ToneCore.row(
                src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
                columns: columns, row: row, mirrored: mirrored, table: table)
        case .sse2:
            return ToneCore.row(
                src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
                columns: columns, row: row, mirrored: mirrored, table: table)
        case .portable: break
        }
        #endif
        guard table == nil else { return 0 }
        return FiltersPortable.ToneCore.row(
            src, dst, width: width, vectors: vectors, keep: keep, columns: columns, row: row, mirrored: mirrored)
    }

    /// The portable tone kernel's constants (freed by the caller).
    func toneVectors(even: Int32, odd: Int32, gains: SIMD4<Int16>, offsets: SIMD4<Int16>, biases: SIMD4<Int16>) -> UnsafeMutableRawPointer {
        FiltersPortable.ToneCore.vectors(even: even, odd: odd, gains: gains, offsets: offsets, biases: biases)
    }

    /// Pixels per step of `toneRow` on this set's path.
    var toneStep: Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512: return FiltersAVX512.ToneCore.step
        case .avx2: return FiltersAVX2.ToneCore.step
        case .sse2: return ToneCore.step
        case .portable: break
        }
        #endif
        return FiltersPortable.ToneCore.step
    }

    /// The pixel whose vignette column term lane `lane` of `toneRow`'s table holds on this set's path.
    func tonePixel(atLane lane: Int) -> Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512: return FiltersAVX512.ToneCore.pixel(atLane: lane)
        case .avx2: return FiltersAVX2.ToneCore.pixel(atLane: lane)
        case .sse2: return ToneCore.pixel(atLane: lane)
        case .portable: break
        }
        #endif
        return FiltersPortable.ToneCore.pixel(atLane: lane)
    }

    /// `GreyCore.tableRow` on this set's path (whole groups of 16; returns how many pixels it did).
    func greyTableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512:
            return FiltersAVX512.GreyCore.tableRow(
                src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
        case .avx2:
            return FiltersAVX2.GreyCore.tableRow(
                src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
        case .sse2:
            return GreyCore.tableRow(src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
        case .portable: break
        }
        #endif
        return FiltersPortable.GreyCore.tableRow(
            src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
    }

    /// `GreyCore.stepRow` on this set's path (whole groups of 16; returns how many pixels it did).
    func greyStepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, step: (cut: UInt32, low: UInt32, high: UInt32), keep: UInt32
    ) -> Int {
        #if SWIFTCAM_INTRINSICS
        switch path {
        case .avx512:
            return FiltersAVX512.GreyCore.stepRow(
                src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset,
                cut: step.cut, low: step.low, high: step.high, keep: keep)
        case .avx2:
            return FiltersAVX2.GreyCore.stepRow(
                src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset,
                cut: step.cut, low: step.low, high: step.high, keep: keep)
        case .sse2:
            return GreyCore.stepRow(
                src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset,
                cut: step.cut, low: step.low, high: step.high, keep: keep)
        case .portable: break
        }
        #endif
        return FiltersPortable.GreyCore.stepRow(
            src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset,
            cut: step.cut, low: step.low, high: step.high, keep: keep)
    }
}
