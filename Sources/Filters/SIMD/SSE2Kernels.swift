#if SWIFTCAM_INTRINSICS
/// The SSE2 path: Filters' own copies of the shared cores, compiled with its SSE2 intrinsics, and its own 128-bit rows
/// (SSE2Rows.swift). What it does not override (the 4:2:0 and RGB colour rows, zoom's resampling, mirror) it runs as
/// the portable path.
class SSE2Kernels: SIMDKernels {
    override class var edges: any EdgesRows.Type { EdgesCore.self }
    override class var greyTables: any GreyTableRows.Type { grey }
    override class var fixedBoxes: any FixedBoxPanels.Type { BoxCascadeFixedCore.self }
    /// The grey pass's rows with their scalars (`greyTables` too, from SSE2 up).
    class var grey: any WideGreyRows.Type { GreyCore.self }
    /// The tone pass with its scalars.
    class var tone: any WideToneRows.Type { ToneCore.self }

    override class func greyRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32,
        offsets: SIMD4<Int16>, vectors: UnsafeRawPointer, uniform: Bool, keep: UInt32
    ) -> Int {
        grey.row(src, dst, width: width, even: even, odd: odd, offsets: offsets, uniform: uniform, keep: keep)
    }

    override class func toneRow(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, vectors: UnsafeRawPointer, keep: UInt32, columns: UnsafePointer<Int16>?,
        row: Int16, mirrored: Bool, throughTable table: UnsafePointer<UInt8>?
    ) -> Int {
        tone.row(
            src, dst, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases, keep: keep,
            columns: columns, row: row, mirrored: mirrored, table: table)
    }

    override class var toneStep: Int { tone.step }

    override class func tonePixel(atLane lane: Int) -> Int { tone.pixel(atLane: lane) }

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
