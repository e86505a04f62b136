#if SWIFTCAM_INTRINSICS
internal import FiltersAVX2

/// The AVX2 path: FiltersAVX2's kernels (x86-64-v3), where a row's rest is short of their 16- or 32-wide groups followed
/// by the SSE2 path's 8-wide ones; everything else (the 4:2:0 colour rows among it) as on SSE2.
class AVX2Kernels: SSE2Kernels {
    override class func byteTables(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>,
        uniform: (offset: Int, mask: UInt64)?
    ) -> Int {
        guard let uniform else { return 0 }
        return FiltersAVX2.ByteTableCore.uniform(
            source, destination, bytes: bytes, table: tables + uniform.offset, mask: UInt32(truncatingIfNeeded: uniform.mask))
    }

    override class func rgbFixedRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        FiltersAVX2.RGBFixedCore.row(
            src, dst, width: width, m: m, o: o, keep: keep, passFirst: passFirst, columns: columns, row: row, mirrored: mirrored)
    }

    override class func greyRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        FiltersAVX2.GreyCore.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
    }

    override class func toneRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, vectors: UnsafeRawPointer, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>?
    ) -> Int {
        FiltersAVX2.ToneCore.row(
            src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
            columns: columns, row: row, mirrored: mirrored, table: table)
    }

    override class var toneStep: Int { FiltersAVX2.ToneCore.step }

    override class func tonePixel(atLane lane: Int) -> Int { FiltersAVX2.ToneCore.pixel(atLane: lane) }

    override class func greyTableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int {
        FiltersAVX2.GreyCore.tableRow(src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
    }

    override class func greyStepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, step: (cut: UInt32, low: UInt32, high: UInt32), keep: UInt32
    ) -> Int {
        FiltersAVX2.GreyCore.stepRow(
            src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, cut: step.cut, low: step.low, high: step.high,
            keep: keep)
    }

    override class func cascade(
        _ a: UnsafeMutablePointer<SIMD8<Float>>, positions: Int, stride: Int, box: BoxCascadeCore.Box, passes: Int
    ) {
        FiltersAVX2.BoxCascadeCore.cascade(
            a, positions: positions, stride: stride, box: .init(radius: box.radius, inner: box.inner, outer: box.outer), passes: passes)
    }

    override class func load4(
        _ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>
    ) {
        FiltersAVX2.BoxCascadeCore.load4(r0, r1, width: width, into: a)
    }

    override class func store4(
        _ a: UnsafePointer<SIMD8<Float>>, width: Int, scale: SIMD8<Float>, _ o0: UnsafeMutablePointer<UInt16>,
        _ o1: UnsafeMutablePointer<UInt16>
    ) {
        FiltersAVX2.BoxCascadeCore.store4(a, width: width, scale: scale, o0, o1)
    }

    override class func loadStrip(
        _ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<SIMD8<Float>>
    ) {
        FiltersAVX2.BoxCascadeCore.loadStrip(plane, rowStride: rowStride, rows: rows, into: a)
    }

    override class func storeStrip(
        _ a: UnsafePointer<SIMD8<Float>>, rows: Int, scale: SIMD8<Float>, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        FiltersAVX2.BoxCascadeCore.storeStrip(a, rows: rows, scale: scale, into: d, rowBytes: rowBytes)
    }

    override class func boxFixedPanel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int, channels: Int, width: Int, height: Int,
        from x0: Int, count: Int, horizontal: BoxCascadeFixedCore.Box, vertical: BoxCascadeFixedCore.Box, passes: Int,
        fractionBits f: Int, scratch: UnsafeMutableRawPointer
    ) {
        FiltersAVX2.BoxCascadeFixedCore.panel(
            source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride, left: left,
            right: right, haloStride: haloStride, channels: channels, width: width, height: height, from: x0, count: count,
            horizontal: .init(radius: horizontal.radius, inner: horizontal.inner, outer: horizontal.outer, bias: horizontal.bias),
            vertical: .init(radius: vertical.radius, inner: vertical.inner, outer: vertical.outer, bias: vertical.bias),
            passes: passes, fractionBits: f, scratch: scratch)
    }

    override class func edgesLuma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        FiltersAVX2.EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p)
    }

    override class func edgesSobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        FiltersAVX2.EdgesCore.sobel(a, h, b, width: width, offset: offset, into: m)
    }

    override class func edgesMagnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32, into m: UnsafeMutablePointer<UInt8>
    ) {
        FiltersAVX2.EdgesCore.magnitudes(gx, gy, count: count, offset: offset, into: m)
    }

    override class func edgesGrey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>
    ) {
        FiltersAVX2.EdgesCore.grey(m, s, width: width, alpha: alpha, into: d)
    }

    override class func zoomBlend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight: UInt32, count: Int, into d: UnsafeMutablePointer<UInt8>
    ) -> Int {
        zoomBlendGroups(
            a, b, weight: weight, count: count, into: d, from: FiltersAVX2.ZoomCore.blend(a, b, weight: weight, count: count, into: d))
    }

    override class func zoomHorizontal4(
        _ s: UnsafePointer<UInt8>, columns: UnsafePointer<Int32>, width: Int, into h: UnsafeMutablePointer<UInt16>
    ) -> Int {
        FiltersAVX2.ZoomCore.horizontal4(s, columns: columns, width: width, into: h)
    }

    override class func mirrorReverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int, readForward: Bool
    ) -> Int {
        FiltersAVX2.MirrorCore.reverse(source, destination, bytes: bytes, size: size, readForward: readForward)
    }

    override class func gaussianHorizontal(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels: Int, samples: Int, into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        let done = FiltersAVX2.GaussianCore.horizontal(p, taps: taps, channels: channels, samples: samples, into: out)
        return gaussianHorizontalGroups(p, taps: taps, channels: channels, samples: samples, into: out, from: done)
    }

    override class func gaussianVertical(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int, into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        let done = FiltersAVX2.GaussianCore.vertical(rows, taps: taps, samples: samples, into: acc)
        return gaussianVerticalGroups(rows, taps: taps, samples: samples, into: acc, from: done)
    }
}
#endif
