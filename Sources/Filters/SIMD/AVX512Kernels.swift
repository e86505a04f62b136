#if SWIFTCAM_INTRINSICS
internal import FiltersAVX512

/// The AVX-512 path: FiltersAVX512's kernels (with VBMI) where it has them, each leaving what is short of its
/// 64-byte groups to the AVX2 kernel it overrides; everything else as on AVX2.
final class AVX512Kernels: AVX2Kernels {
    override class var grey: any WideGreyRows.Type { FiltersAVX512.GreyCore.self }
    override class var tone: any WideToneRows.Type { FiltersAVX512.ToneCore.self }
    override class var rgbFixed: (any RGBFixedRows.Type)? { FiltersAVX512.RGBFixedCore.self }

    override class func yuv420Luma(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, width: Int, table: UnsafePointer<UInt8>?,
        scale: Int16, constant: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool
    ) -> Int {
        FiltersAVX512.YUV420Core.lumaRow(
            s, d, width: width, .init(table: table, scale: scale, constant: constant, bias: bias, columns: columns, row: row),
            mirrored: mirrored)
    }

    override class func yuv420Chroma(
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        pairs: Int, diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16,
        mirrored: Bool
    ) -> Int {
        FiltersAVX512.YUV420Core.chromaRow(
            u, v, du, dv, pairs: pairs,
            .init(diagonal: diagonal, cross: cross, constant: constant, bias: bias, columns: columns, row: row), mirrored: mirrored)
    }

    override class func yuv420Joint(
        _ s0: UnsafePointer<UInt8>, _ d0: UnsafeMutablePointer<UInt8>, _ s1: UnsafePointer<UInt8>, _ d1: UnsafeMutablePointer<UInt8>,
        _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>?, _ du: UnsafeMutablePointer<UInt8>, _ dv: UnsafeMutablePointer<UInt8>?,
        width: Int, luma: (scale: Int16, bias: Int16, columns: UnsafePointer<Int16>?, row0: Int16, row1: Int16),
        chroma: (diagonal: UInt32, cross: UInt32?, constant: UInt32, bias: UInt32, columns: UnsafePointer<Int16>?, row: Int16),
        mixing: (fromChroma: UInt32, constant32: Int32, fromLuma: UInt32)
    ) -> Int {
        FiltersAVX512.YUV420Core.jointRows(
            s0, d0, s1, d1, u, v, du, dv, width: width,
            .init(table: nil, scale: luma.scale, constant: 0, bias: luma.bias, columns: luma.columns, row: luma.row0),
            .init(
                diagonal: chroma.diagonal, cross: chroma.cross, constant: chroma.constant, bias: chroma.bias,
                columns: chroma.columns, row: chroma.row),
            .init(fromChroma: mixing.fromChroma, constant32: mixing.constant32, fromLuma: mixing.fromLuma, row1: luma.row1))
    }

    override class func byteTables(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>,
        uniform: (offset: Int, mask: UInt64)?
    ) -> Int {
        guard let uniform else { return FiltersAVX512.ByteTableCore.lookup(source, destination, bytes: bytes, tables: tables) }
        return FiltersAVX512.ByteTableCore.uniform(source, destination, bytes: bytes, table: tables + uniform.offset, mask: uniform.mask)
    }

    override class func edgesLuma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>
    ) {
        let done = FiltersAVX512.EdgesCore.luma(s, width: width, weights: weights, shifts: shifts, into: p)
        super.edgesLuma(s + 4 * done, width: width - done, weights: weights, shifts: shifts, vectors: vectors, into: p + done)
    }

    override class func edgesGrey(
        _ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>
    ) {
        let done = FiltersAVX512.EdgesCore.grey(m, s, width: width, alpha: alpha, into: d)
        super.edgesGrey(m + done, s + 4 * done, width: width - done, alpha: alpha, into: d + 4 * done)
    }

    override class func mirrorReverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int, readForward: Bool
    ) -> Int {
        let done = FiltersAVX512.MirrorCore.reverse(source, destination, bytes: bytes, size: size, readForward: readForward)
        guard done < bytes else { return done }
        // What is short of a 64-byte group, 32 bytes at a time, written past what is done.
        return done + super.mirrorReverse(source, destination + done, bytes: bytes - done, size: size, readForward: readForward)
    }
}
#endif
