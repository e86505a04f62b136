#if SWIFTCAM_INTRINSICS
internal import FiltersAVX2

/// The AVX2 path: FiltersAVX2's kernels (x86-64-v3), where a row's rest is short of their 16- or 32-wide groups followed
/// by the SSE2 path's 8-wide ones; everything else (the 4:2:0 colour rows among it) as on SSE2.
class AVX2Kernels: SSE2Kernels {
    override class var edges: any EdgesRows.Type { FiltersAVX2.EdgesCore.self }
    override class var fixedBoxes: any FixedBoxPanels.Type { FiltersAVX2.BoxCascadeFixedCore.self }
    override class var floatBoxes: any FloatBoxStrips.Type { FiltersAVX2.BoxCascadeCore.self }
    override class var grey: any WideGreyRows.Type { FiltersAVX2.GreyCore.self }
    override class var tone: any WideToneRows.Type { FiltersAVX2.ToneCore.self }
    override class var rgbFixed: (any RGBFixedRows.Type)? { FiltersAVX2.RGBFixedCore.self }

    override class func byteTables(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>,
        uniform: (offset: Int, mask: UInt64)?
    ) -> Int {
        guard let uniform else { return 0 }
        return FiltersAVX2.ByteTableCore.uniform(
            source, destination, bytes: bytes, table: tables + uniform.offset, mask: UInt32(truncatingIfNeeded: uniform.mask))
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
