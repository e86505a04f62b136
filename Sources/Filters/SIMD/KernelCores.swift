#if SWIFTCAM_INTRINSICS
internal import FiltersPortable
internal import FiltersAVX2
internal import FiltersAVX512
#endif

// Each shared core (Kernels/Shared) is one source compiled in several modules, so every copy has the same API. These
// protocols name that API, so a path's table names its copy of each core as a value (`SIMDKernels.edges` and the
// rest) and the entries that call a core are written once. Where a copy's API differs (the portable grey and tone
// rows read prepared vectors instead of scalars), the table calls it by name.

/// Edges' row loops: every copy (Filters', FiltersAVX2's, FiltersPortable's).
protocol EdgesRows {
    static func luma(
        _ s: UnsafePointer<UInt8>, width: Int, weights: SIMD3<Int32>, shifts: SIMD3<UInt32>, vectors: UnsafeRawPointer,
        into p: UnsafeMutablePointer<UInt8>)
    static func sobel(
        _ a: UnsafePointer<UInt8>, _ h: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, width: Int, offset: Int32,
        into m: UnsafeMutablePointer<UInt8>)
    static func magnitudes(
        _ gx: UnsafePointer<Int16>, _ gy: UnsafePointer<Int16>, count: Int, offset: Int32, into m: UnsafeMutablePointer<UInt8>)
    static func grey(_ m: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, width: Int, alpha: UInt32, into d: UnsafeMutablePointer<UInt8>)
}

/// The grey pass's table and step rows: every copy.
protocol GreyTableRows {
    static func tableRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, table: UnsafePointer<UInt32>?, keep: UInt32
    ) -> Int
    static func stepRow(
        _ src: UnsafeRawPointer, alpha: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int, shifts: SIMD3<UInt32>,
        k: SIMD3<Float>, offset: Float, cut: UInt32, low: UInt32, high: UInt32, keep: UInt32
    ) -> Int
}

/// The grey pass's matrix row with its scalars: the x86 copies (SSE2, AVX2, AVX-512).
protocol WideGreyRows: GreyTableRows {
    static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, offsets: SIMD4<Int16>,
        uniform: Bool, keep: UInt32
    ) -> Int
}

/// The tone pass with its scalars: the x86 copies.
protocol WideToneRows {
    static var step: Int { get }
    static func pixel(atLane lane: Int) -> Int
    static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, even: Int32, odd: Int32, gains: SIMD4<Int16>,
        offsets: SIMD4<Int16>, biases: SIMD4<Int16>, keep: UInt32, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool,
        table: UnsafePointer<UInt8>?
    ) -> Int
}

/// The RGB colour pass's rows (FiltersAVX2's and FiltersAVX512's; with `table` only the AVX-512 one does anything).
protocol RGBFixedRows {
    static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool, table: UnsafePointer<UInt8>?
    ) -> Int
}

/// A fixed-point box of the 16-bit cascade, as each copy declares it.
protocol FixedBox {
    init(radius: Int, inner: UInt16, outer: UInt16, bias: UInt16)
}

/// The 16-bit box cascade's panels: every copy.
protocol FixedBoxPanels {
    associatedtype Box: FixedBox
    static func panel(
        source: UnsafePointer<UInt8>, sourceStride: Int, destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        left: UnsafePointer<UInt8>?, right: UnsafePointer<UInt8>?, haloStride: Int, channels: Int, width: Int, height: Int,
        from x0: Int, count: Int, horizontal: Box, vertical: Box, passes: Int, fractionBits: Int, scratch: UnsafeMutableRawPointer)
}

/// A box of the float cascade, as each copy declares it.
protocol FloatBox {
    init(radius: Int, inner: Float, outer: Float)
}

/// The float box cascade's loads, sweeps and stores: Filters' copy and FiltersAVX2's.
protocol FloatBoxStrips {
    associatedtype Box: FloatBox
    static func cascade(_ a: UnsafeMutablePointer<SIMD8<Float>>, positions: Int, stride: Int, box: Box, passes: Int)
    static func load4(_ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, width: Int, into a: UnsafeMutablePointer<SIMD8<Float>>)
    static func store4(
        _ a: UnsafePointer<SIMD8<Float>>, width: Int, scale: SIMD8<Float>, _ o0: UnsafeMutablePointer<UInt16>,
        _ o1: UnsafeMutablePointer<UInt16>)
    static func loadStrip(_ plane: UnsafePointer<UInt16>, rowStride: Int, rows: Int, into a: UnsafeMutablePointer<SIMD8<Float>>)
    static func storeStrip(
        _ a: UnsafePointer<SIMD8<Float>>, rows: Int, scale: SIMD8<Float>, into d: UnsafeMutablePointer<UInt8>, rowBytes: Int)
}

extension FixedBox {
    /// The same box from Filters' own type.
    init(_ box: BoxCascadeFixedCore.Box) { self.init(radius: box.radius, inner: box.inner, outer: box.outer, bias: box.bias) }
}

extension FloatBox {
    /// The same box from Filters' own type.
    init(_ box: BoxCascadeCore.Box) { self.init(radius: box.radius, inner: box.inner, outer: box.outer) }
}

extension EdgesCore: EdgesRows {}
extension GreyCore: GreyTableRows {}
extension BoxCascadeFixedCore: FixedBoxPanels {}
extension BoxCascadeFixedCore.Box: FixedBox {}
extension BoxCascadeCore: FloatBoxStrips {}
extension BoxCascadeCore.Box: FloatBox {}

#if SWIFTCAM_INTRINSICS
extension GreyCore: WideGreyRows {}
extension ToneCore: WideToneRows {}
extension FiltersPortable.EdgesCore: EdgesRows {}
extension FiltersPortable.GreyCore: GreyTableRows {}
extension FiltersPortable.BoxCascadeFixedCore: FixedBoxPanels {}
extension FiltersPortable.BoxCascadeFixedCore.Box: FixedBox {}
extension FiltersAVX2.EdgesCore: EdgesRows {}
extension FiltersAVX2.GreyCore: WideGreyRows {}
extension FiltersAVX2.ToneCore: WideToneRows {}
extension FiltersAVX2.BoxCascadeFixedCore: FixedBoxPanels {}
extension FiltersAVX2.BoxCascadeFixedCore.Box: FixedBox {}
extension FiltersAVX2.BoxCascadeCore: FloatBoxStrips {}
extension FiltersAVX2.BoxCascadeCore.Box: FloatBox {}
extension FiltersAVX2.RGBFixedCore: RGBFixedRows {}
extension FiltersAVX512.RGBFixedCore: RGBFixedRows {}
extension FiltersAVX512.GreyCore: WideGreyRows {}
extension FiltersAVX512.ToneCore: WideToneRows {}
#endif
