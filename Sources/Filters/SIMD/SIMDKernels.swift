#if SWIFTCAM_INTRINSICS
internal import FiltersPortable
#endif

/// The table of kernels that have a wider version, with the portable path's entries: each wider path is a subclass
/// that overrides what it does differently (`SSE2Kernels`, `AVX2Kernels`, `AVX512Kernels`), so a path's file lists
/// exactly what that path adds, and whatever it does not override it runs as the path below it does.
///
/// Never instantiated: the class is a table of `class func`s, and a `KernelSet` holds the chosen path's metatype
/// (`KernelSet.table`), picked once when a chain is compiled. Kernels call through it once per row or strip, never per
/// pixel. An entry that returns a count did whole groups from the start and leaves the rest to the caller's own loop
/// (0 where the path has no such kernel); one that returns nothing did the whole row.
class SIMDKernels {
    private init() {}

    // MARK: The path's copy of each shared core

    /// Edges' row loops.
    class var edges: any EdgesRows.Type { FiltersPortable.EdgesCore.self }
    /// The grey pass's table and step rows.
    class var greyTables: any GreyTableRows.Type { FiltersPortable.GreyCore.self }
    /// The 16-bit box cascade.
    class var fixedBoxes: any FixedBoxPanels.Type { FiltersPortable.BoxCascadeFixedCore.self }
    /// The float box cascade (Filters' own copy: the portable module's is the 16-bit cascade's helper only).
    class var floatBoxes: any FloatBoxStrips.Type { BoxCascadeCore.self }
    /// The RGB colour pass, where the path has one.
    class var rgbFixed: (any RGBFixedRows.Type)? { nil }

    // MARK: 4:2:0 colour rows

    /// `YUV420Core.lumaRow` (whole groups of 64 samples) where the path has it.
    class func yuv420Luma(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, width: Int, table: UnsafePointer<UInt8>?,
        scale: Int16, constant: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int { 0 }

    /// `YUV420Core.chromaRow` (whole groups of 32 pairs) where the path has it.
    class func yuv420Chroma(
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        pairs: Int, diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16,
        mirrored: Bool
    ) -> Int { 0 }

    /// `YUV420Core.jointRows` (whole groups of 64 luma columns) where the path has it.
    class func yuv420Joint(
        _ s0: UnsafePointer<UInt8>, _ d0: UnsafeMutablePointer<UInt8>, _ s1: UnsafePointer<UInt8>, _ d1: UnsafeMutablePointer<UInt8>,
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        width: Int, luma: (scale: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row0: Int16, row1: Int16),
        chroma: (diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16),
        mixing: (fromChroma: UInt32, constant32: Int32, fromLuma: UInt32)
    ) -> Int { 0 }

    // MARK: Byte tables and RGB colour rows

    /// Byte tables over whole groups of bytes: `tables` holds one 256-byte table per byte of a pixel. `uniform`: (byte
    /// offset of the one table in `tables`, the bytes it applies to) when the others keep their values. Here: on
    /// aarch64 `NEONByteTable.uniform` where there is one table (whole groups of 16), else none.
    class func byteTables(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>,
        uniform: (offset: Int, mask: UInt64)?
    ) -> Int {
        #if arch(arm64)
        if let uniform {
            return NEONByteTable.uniform(source, destination, bytes: bytes, table: tables + uniform.offset, mask: uniform.mask)
        }
        #endif
        return 0
    }

    /// `RGBFixedCore.row` (whole 16- or 32-pixel groups; returns how many pixels) where the path has it.
    class func rgbFixedRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        rgbFixed?.row(
            src, dst, width: width, m: m, o: o, keep: keep, passFirst: passFirst, columns: columns, row: row, mirrored: mirrored,
            table: nil) ?? 0
    }

    /// `RGBFixedCore.row` with `table` (256 bytes, each entry xored with 0x80) applied to the colour bytes first (whole
    /// 32-pixel groups) where the path fuses tables (AVX-512).
    class func rgbFixedRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>
    ) -> Int {
        rgbFixed?.row(
            src, dst, width: width, m: m, o: o, keep: 0, passFirst: passFirst, columns: columns, row: row, mirrored: mirrored,
            table: table) ?? 0
    }

    // MARK: Grey and tone rows (whole steps; return how many pixels they did)

    /// `GreyCore.row`; the portable kernel reads its constants from `vectors` (`KernelSet.greyVectors`).
    class func greyRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        FiltersPortable.GreyCore.row(src, dst, width: width, vectors: vectors, uniform: uniform, keep: keep)
    }

    /// `ToneCore.row`; the portable kernel reads its constants from `vectors` (`KernelSet.toneVectors`), the others
    /// splat the scalars. With `table` (256 bytes, each entry xored with 0x80) only the AVX-512 kernel does anything:
    /// every byte goes through the table first.
    class func toneRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, vectors: UnsafeRawPointer, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>? = nil
    ) -> Int {
        guard table == nil else { return 0 }
        return FiltersPortable.ToneCore.row(
            src, dst, width: width, vectors: vectors, keep: keep, columns: columns, row: row, mirrored: mirrored)
    }

    /// Pixels per step of `toneRow`.
    class var toneStep: Int { FiltersPortable.ToneCore.step }

    /// The pixel whose vignette column term lane `lane` of `toneRow`'s table holds.
    class func tonePixel(atLane lane: Int) -> Int { FiltersPortable.ToneCore.pixel(atLane: lane) }

    /// `GreyCore.tableRow` (whole groups of 16).
    class func greyTableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int {
        greyTables.tableRow(src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
    }

    /// `GreyCore.stepRow` (whole groups of 16).
    class func greyStepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, step: (cut: UInt32, low: UInt32, high: UInt32), keep: UInt32
    ) -> Int {
        greyTables.stepRow(
            src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, cut: step.cut, low: step.low, high: step.high,
            keep: keep)
    }

    // MARK: Box cascades (the whole strip or panel)

    /// `BoxCascadeCore.cascade`.
    class func cascade(_ a: UnsafeMutablePointer<SIMD8<Float>>, positions: Int, stride: Int, box: BoxCascadeCore.Box, passes: Int) {
        func run<Strips: FloatBoxStrips>(_: Strips.Type) {
            Strips.cascade(a, positions: positions, stride: stride, box: Strips.Box(box), passes: passes)
        }
        run(floatBoxes)
    }

    /// `BoxCascadeCore.load4`.
    class func load4(_ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) {
        floatBoxes.load4(r0, r1, width: width, into: a)
    }

    /// `BoxCascadeCore.store4`.
    class func store4(
        _ a: UnsafePointer<SIMD8<Float>>, width: Int, scale: SIMD8<Float>, _ o0: UnsafeMutablePointer<UInt16>,
        _ o1: UnsafeMutablePointer<UInt16>
    ) {
        floatBoxes.store4(a, width: width, scale: scale, o0, o1)
    }

    /// `BoxCascadeCore.loadStrip`.
    class func loadStrip(_ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) {
        floatBoxes.loadStrip(plane, rowStride: rowStride, rows: rows, into: a)
    }

    /// `BoxCascadeCore.storeStrip`.
    class func storeStrip(
        _ a: UnsafePointer<SIMD8<Float>>, rows: Int, scale: SIMD8<Float>, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        floatBoxes.storeStrip(a, rows: rows, scale: scale, into: d, rowBytes: rowBytes)
    }

    /// `BoxCascadeFixedCore.panel`.
    class func boxFixedPanel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int, channels: Int, width: Int, height: Int,
        from x0: Int, count: Int, horizontal: BoxCascadeFixedCore.Box, vertical: BoxCascadeFixedCore.Box, passes: Int,
        fractionBits f: Int, scratch: UnsafeMutableRawPointer
    ) {
        func run<Panels: FixedBoxPanels>(_: Panels.Type) {
            Panels.panel(
                source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride, left: left,
                right: right, haloStride: haloStride, channels: channels, width: width, height: height, from: x0, count: count,
                horizontal: Panels.Box(horizontal), vertical: Panels.Box(vertical), passes: passes, fractionBits: f, scratch: scratch)
        }
        run(fixedBoxes)
    }

    // MARK: Edges (the whole row)

    /// `EdgesCore.luma`; the portable kernel reads its weights from `vectors` (`KernelSet.edgesLumaVectors`).
    class func edgesLuma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        edges.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p)
    }

    /// `EdgesCore.sobel`.
    class func edgesSobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        edges.sobel(a, h, b, width: width, offset: offset, into: m)
    }

    /// `EdgesCore.magnitudes` (for tests: the paths take the root differently).
    class func edgesMagnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32, into m: UnsafeMutablePointer<UInt8>
    ) {
        edges.magnitudes(gx, gy, count: count, offset: offset, into: m)
    }

    /// `EdgesCore.grey`.
    class func edgesGrey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>
    ) {
        edges.grey(m, s, width: width, alpha: alpha, into: d)
    }

    // MARK: Zoom, mirror, the direct blur and the box cascade's transposes (whole groups; return how many they did)

    /// Zoom's vertical blend, d[i] = (a[i]·(256 − w) + b[i]·w + 2¹⁵) >> 16, for whole groups, where the path has it.
    class func zoomBlend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight: UInt32, count: Int, into d: UnsafeMutablePointer<UInt8>
    ) -> Int { 0 }

    /// `ZoomCore.horizontal4` (output pixels) where the path has it.
    class func zoomHorizontal4(
        _ s: UnsafePointer<UInt8>, columns: UnsafePointer<Int32>, width: Int, into h: UnsafeMutablePointer<UInt16>
    ) -> Int {
        0
    }

    /// `MirrorCore.reverse` (bytes, in whole groups of the path's width) where the path has it.
    class func mirrorReverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int, readForward: Bool
    ) -> Int { 0 }

    /// The direct blur's horizontal pass, out[i] = (32 + Σ w_k·p[i + k·ch]) >> 6, for whole groups.
    class func gaussianHorizontal(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels: Int, samples: Int, into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        GaussianKernel.horizontalPortable(p, taps: taps, channels: channels, samples: samples, into: out)
    }

    /// The direct blur's vertical pass, acc[i] = 2²¹ + Σ w_k·rows[k][i], for whole groups.
    class func gaussianVertical(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int, into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        GaussianKernel.verticalPortable(rows, taps: taps, samples: samples, into: acc)
    }

    /// Sharpen's last step, clampByte(s + amount·(s − blurred)), for whole groups of 8.
    class func gaussianSharpen(
        _ original: UnsafePointer<UInt8>, _ acc: UnsafePointer<Int32>, amount: Float, samples: Int, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        GaussianKernel.sharpenPortable(original, acc, amount: amount, samples: samples, into: out)
    }

    /// Eight rows of bytes as the box cascade's lanes (lane k from row k), whole groups of columns; returns how many.
    class func boxColumns(_ rows: [UnsafePointer<UInt8>], width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) -> Int { 0 }

    /// Lane k of positions 0..<width (8 UInt16 lanes per position) to row k of `out`, whole groups of positions;
    /// returns how many.
    class func boxTransposeLanes(_ lanes: UnsafePointer<UInt16>, width: Int, into out: UnsafeMutablePointer<UInt16>, rowStride: Int) -> Int
    {
        0
    }
}
