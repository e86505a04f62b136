#if SWIFTCAM_INTRINSICS
/// The SSE2 path: Filters' own copies of the shared cores, compiled with its SSE2 intrinsics, and its own 128-bit rows
/// (SSE2Rows.swift). What it does not override (the 4:2:0 and RGB colour rows, zoom's resampling, mirror) it runs as
/// the portable path.
class SSE2Kernels: SIMDKernels {
    override class func greyRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        GreyCore.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
    }

    override class func toneRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, vectors: UnsafeRawPointer, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>?
    ) -> Int {
        ToneCore.row(
            src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
            columns: columns, row: row, mirrored: mirrored, table: table)
    }

    override class var toneStep: Int { ToneCore.step }

    override class func tonePixel(atLane lane: Int) -> Int { ToneCore.pixel(atLane: lane) }

    override class func greyTableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int {
        GreyCore.tableRow(src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, table: table, keep: keep)
    }

    override class func greyStepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, step: (cut: UInt32, low: UInt32, high: UInt32), keep: UInt32
    ) -> Int {
        GreyCore.stepRow(
            src, alpha: alpha, dst, count: count, shifts: shifts, k: k, offset: offset, cut: step.cut, low: step.low, high: step.high,
            keep: keep)
    }

    override class func boxFixedPanel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int, channels: Int, width: Int, height: Int,
        from x0: Int, count: Int, horizontal: BoxCascadeFixedCore.Box, vertical: BoxCascadeFixedCore.Box, passes: Int,
        fractionBits f: Int, scratch: UnsafeMutableRawPointer
    ) {
        BoxCascadeFixedCore.panel(
            source: source, sourceStride: sourceStride, destination: destination, destinationStride: destinationStride,
            left: left, right: right, haloStride: haloStride, channels: channels, width: width, height: height,
            from: x0, count: count, horizontal: horizontal, vertical: vertical, passes: passes, fractionBits: f, scratch: scratch)
    }

    override class func edgesLuma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, vectors: vectors, into: p)
    }

    override class func edgesSobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>
    ) {
        EdgesCore.sobel(a, h, b, width: width, offset: offset, into: m)
    }

    override class func edgesMagnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32, into m: UnsafeMutablePointer<UInt8>
    ) {
        EdgesCore.magnitudes(gx, gy, count: count, offset: offset, into: m)
    }

    override class func edgesGrey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>
    ) {
        EdgesCore.grey(m, s, width: width, alpha: alpha, into: d)
    }

    override class func gaussianHorizontal(
        _ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels: Int, samples: Int, into out: UnsafeMutablePointer<UInt16>
    ) -> Int {
        gaussianHorizontalGroups(p, taps: taps, channels: channels, samples: samples, into: out, from: 0)
    }

    override class func gaussianVertical(
        _ rows: UnsafePointer<UnsafePointer<UInt16>>, taps: UnsafeBufferPointer<UInt16>, samples: Int, into acc: UnsafeMutablePointer<Int32>
    ) -> Int {
        gaussianVerticalGroups(rows, taps: taps, samples: samples, into: acc, from: 0)
    }

    override class func gaussianSharpen(
        _ original: UnsafePointer<UInt8>, _ acc: UnsafePointer<Int32>, amount: Float, samples: Int, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        gaussianSharpenGroups(original, acc, amount: amount, samples: samples, into: out)
    }

    override class func zoomBlend(
        _ a: UnsafePointer<UInt16>, _ b: UnsafePointer<UInt16>, weight: UInt32, count: Int, into d: UnsafeMutablePointer<UInt8>
    ) -> Int {
        zoomBlendGroups(a, b, weight: weight, count: count, into: d, from: 0)
    }

    override class func boxColumns(_ rows: [UnsafePointer<UInt8>], width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>) -> Int {
        boxColumnGroups(rows, width: width, into: a)
    }

    override class func boxTransposeLanes(
        _ lanes: UnsafePointer<UInt16>, width: Int, into out: UnsafeMutablePointer<UInt16>, rowStride: Int
    ) -> Int {
        boxTransposeGroups(lanes, width: width, into: out, rowStride: rowStride)
    }
}
#endif
