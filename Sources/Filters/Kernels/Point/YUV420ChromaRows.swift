/// Chroma of a 4:2:0 frame seen as rows of interleaved (Cb, Cr) byte pairs.
protocol ChromaRows {
    associatedtype Row: ChromaRow
    func rows(_ crow: Int) -> Row
    /// Copies `count` pairs of row `crow` from source to destination.
    func copy(_ crow: Int, _ count: Int)
    /// The same source rows, every row written to `buffer` (room for `count` pairs).
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self
    /// Writes pairs `first..<count` of `buffer` (as `redirected` left `count` pairs) to row `crow` of the destination, in
    /// reverse order, as the first `count − first` pairs: a mirrored row whose other pairs are already there.
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet)
    /// Where a redirected row's pairs go (the destination's first row otherwise).
    var scratch: UnsafeRawPointer { get }
}

/// One chroma row: eight pairs per load or store.
protocol ChromaRow {
    func load(_ cx: Int) -> SIMD16<UInt8>
    func store(_ v: SIMD16<UInt8>, _ cx: Int)
    func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8>
    func storePartial(_ v: SIMD16<UInt8>, _ cx: Int, _ count: Int)
    /// The row's first bytes (source, destination): Cb and Cr interleaved in `u`, `du` (NV12, `v` and `dv` nil) or apart (I420).
    var pointers:
        (u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>, dv: UnsafeMutablePointer<UInt8>?)
    { get }
}

/// NV12: the pairs are already interleaved in one plane.
struct InterleavedChroma: ChromaRows {
    let source: UnsafeMutableRawPointer, sourceStride: Int
    let destination: UnsafeMutableRawPointer, destinationStride: Int

    struct Row: ChromaRow {
        let s: UnsafeMutableRawPointer, d: UnsafeMutableRawPointer
        var pointers:
            (
                u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>,
                dv: UnsafeMutablePointer<UInt8>?
            )
        {
            (s.assumingMemoryBound(to: UInt8.self), nil, d.assumingMemoryBound(to: UInt8.self), nil)
        }
        @inline(__always) func load(_ cx: Int) -> SIMD16<UInt8> { UnsafeRawPointer(s + 2 * cx).loadUnaligned(as: SIMD16<UInt8>.self) }
        @inline(__always) func store(_ v: SIMD16<UInt8>, _ cx: Int) { (d + 2 * cx).storeBytes(of: v, as: SIMD16<UInt8>.self) }
        @inline(__always) func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8> {
            var v = SIMD16<UInt8>.zero
            withUnsafeMutableBytes(of: &v) { $0.baseAddress!.copyMemory(from: s + 2 * cx, byteCount: 2 * count) }
            return v
        }
        @inline(__always) func storePartial(_ v: SIMD16<UInt8>, _ cx: Int, _ count: Int) {
            withUnsafeBytes(of: v) { (d + 2 * cx).copyMemory(from: $0.baseAddress!, byteCount: 2 * count) }
        }
    }

    @inline(__always) func rows(_ crow: Int) -> Row { Row(s: source + crow * sourceStride, d: destination + crow * destinationStride) }
    func copy(_ crow: Int, _ count: Int) {
        (destination + crow * destinationStride).copyMemory(from: source + crow * sourceStride, byteCount: 2 * count)
    }
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self {
        InterleavedChroma(source: source, sourceStride: sourceStride, destination: buffer, destinationStride: 0)
    }
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet) {
        MirrorFlipKernel.reverse(buffer + 2 * first, destination + crow * destinationStride, bytes: 2 * (count - first), size: 2, kernels)
    }
    var scratch: UnsafeRawPointer { UnsafeRawPointer(destination) }
}

/// I420: Cb and Cr planes, interleaved in registers on load and split again on store.
struct PlanarChroma: ChromaRows {
    let u: UnsafeMutableRawPointer, uStride: Int
    let v: UnsafeMutableRawPointer, vStride: Int
    let du: UnsafeMutableRawPointer, duStride: Int
    let dv: UnsafeMutableRawPointer, dvStride: Int

    struct Row: ChromaRow {
        let u: UnsafeMutableRawPointer, v: UnsafeMutableRawPointer
        let du: UnsafeMutableRawPointer, dv: UnsafeMutableRawPointer
        var pointers:
            (
                u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>?, du: UnsafeMutablePointer<UInt8>,
                dv: UnsafeMutablePointer<UInt8>?
            )
        {
            (
                u.assumingMemoryBound(to: UInt8.self), v.assumingMemoryBound(to: UInt8.self),
                du.assumingMemoryBound(to: UInt8.self), dv.assumingMemoryBound(to: UInt8.self)
            )
        }
        @inline(__always) func load(_ cx: Int) -> SIMD16<UInt8> {
            zip(
                UnsafeRawPointer(u + cx).loadUnaligned(as: SIMD8<UInt8>.self), UnsafeRawPointer(v + cx).loadUnaligned(as: SIMD8<UInt8>.self)
            )
        }
        @inline(__always) func store(_ x: SIMD16<UInt8>, _ cx: Int) {
            (du + cx).storeBytes(of: x.evenHalf, as: SIMD8<UInt8>.self)
            (dv + cx).storeBytes(of: x.oddHalf, as: SIMD8<UInt8>.self)
        }
        @inline(__always) func loadPartial(_ cx: Int, _ count: Int) -> SIMD16<UInt8> {
            var a = SIMD8<UInt8>.zero, b = SIMD8<UInt8>.zero
            withUnsafeMutableBytes(of: &a) { $0.baseAddress!.copyMemory(from: u + cx, byteCount: count) }
            withUnsafeMutableBytes(of: &b) { $0.baseAddress!.copyMemory(from: v + cx, byteCount: count) }
            return zip(a, b)
        }
        @inline(__always) func storePartial(_ x: SIMD16<UInt8>, _ cx: Int, _ count: Int) {
            withUnsafeBytes(of: x.evenHalf) { (du + cx).copyMemory(from: $0.baseAddress!, byteCount: count) }
            withUnsafeBytes(of: x.oddHalf) { (dv + cx).copyMemory(from: $0.baseAddress!, byteCount: count) }
        }
        @inline(__always) private func zip(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
            SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
        }
    }

    @inline(__always) func rows(_ crow: Int) -> Row {
        Row(u: u + crow * uStride, v: v + crow * vStride, du: du + crow * duStride, dv: dv + crow * dvStride)
    }
    func copy(_ crow: Int, _ count: Int) {
        (du + crow * duStride).copyMemory(from: u + crow * uStride, byteCount: count)
        (dv + crow * dvStride).copyMemory(from: v + crow * vStride, byteCount: count)
    }
    func redirected(to buffer: UnsafeMutableRawPointer, _ count: Int) -> Self {
        PlanarChroma(u: u, uStride: uStride, v: v, vStride: vStride, du: buffer, duStride: 0, dv: buffer + count, dvStride: 0)
    }
    func reverse(_ crow: Int, from buffer: UnsafeRawPointer, _ count: Int, skipping first: Int, _ kernels: KernelSet) {
        MirrorFlipKernel.reverse(buffer + first, du + crow * duStride, bytes: count - first, size: 1, kernels)
        MirrorFlipKernel.reverse(buffer + count + first, dv + crow * dvStride, bytes: count - first, size: 1, kernels)
    }
    var scratch: UnsafeRawPointer { UnsafeRawPointer(du) }
}
