/// 16-bit fixed-point SIMD helpers written so LLVM lowers them to single SSE2 instructions.
///
/// Checked with `swiftc -O -emit-assembly`: `mulHigh` → pmulhw, `multiplyAdd` → pmaddwd,
/// `widenCentred` → punpcklbw/punpckhbw with zero, `packSaturated` → pmaxsw/pminsw/packuswb.
/// Two traps found on the way: a multiplier built with `SIMD8(repeating:)` from a scalar is
/// widened to 32 bits before the multiply and comes out as pmuludq sequences, so coefficient
/// vectors are stored (and loaded) as vectors; and the stdlib's `pointwiseMin`/`pointwiseMax`
/// and `replace(with:where:)` on integer vectors are calls or per-lane branches, so the clamps
/// are written as lane loops, which the SLP vectorizer turns into pminsw/pmaxsw.
#if arch(arm64)
import _Builtin_intrinsics.arm.neon
#endif

typealias I16x8 = SIMD8<Int16>

/// Lane-wise sign extension. A lane loop rather than `SIMD8<Int32>(truncatingIfNeeded:)`: in the
/// package's release build that initializer stayed an out-of-line call inside the row loops
/// (callgrind); the loop is inlined and vectorized to punpck/psrad.
@inline(__always)
func widen32(_ a: I16x8) -> SIMD8<Int32> {
    var r = SIMD8<Int32>()
    for i in 0..<8 { r[i] = Int32(a[i]) }
    return r
}

/// Lane-wise truncation to 16 bits (see `widen32`).
@inline(__always)
func narrow16(_ a: SIMD8<Int32>) -> I16x8 {
    var r = I16x8()
    for i in 0..<8 { r[i] = Int16(truncatingIfNeeded: a[i]) }
    return r
}

/// (a·b) >> 16 per lane, signed: pmulhw.
@inline(__always)
func mulHigh(_ a: I16x8, _ b: I16x8) -> I16x8 {
    narrow16((widen32(a) &* widen32(b)) &>> 16)
}

/// `max(0, row − column)`, xored with `zero`: a vector of zeros LLVM cannot see through (loaded from memory).
///
/// From a bare `laneMax(…, .zero)` LLVM learns the gain is never negative and lowers the `mulHigh` that
/// follows to zero-extending unpacks, two pmaddwd and a pack instead of one pmulhw (callgrind, perf).
@inline(__always)
func gainTerm(_ row: I16x8, _ column: I16x8, _ zero: I16x8) -> I16x8 {
    laneMax(row &- column, .zero) ^ zero
}

/// a₀b₀ + a₁b₁, a₂b₂ + a₃b₃, … in 32 bits: pmaddwd (on aarch64 its three NEON instructions).
@inline(__always)
func multiplyAdd(_ a: I16x8, _ b: I16x8) -> SIMD4<Int32> {
    #if arch(arm64)
    // smull, smull2, addp. From the lane form LLVM built the upper half's products lane by lane (a move out of the
    // vector, sxth, a move back, for each lane), so the tone pass ran twice SSE2's instructions (aarch64-ipp.sh --hot).
    // The same products and wrapping sums, so the same bytes.
    return vpaddq_s32(vmull_s16(vget_low_s16(a), vget_low_s16(b)), vmull_high_s16(a, b))
    #else
    let p = widen32(a) &* widen32(b)
    return p.evenHalf &+ p.oddHalf
    #endif
}

/// Σ byte·weight over the four bytes of each of four pixels: `even` holds the 16-bit weights of bytes 0 and 2 in each
/// 32-bit lane, `odd` those of 1 and 3, `pairs` is 0x00FF00FF per lane (a vector loaded at run time: with a literal
/// mask LLVM took the bytes apart one at a time); two pmaddwd.
@inline(__always)
func weightedBytes(_ v: SIMD4<UInt32>, pairs: SIMD4<UInt32>, even: I16x8, odd: I16x8) -> SIMD4<Int32> {
    let evenBytes = unsafeBitCast(v & pairs, to: I16x8.self), oddBytes = unsafeBitCast((v &>> 8) & pairs, to: I16x8.self)
    return multiplyAdd(evenBytes, even) &+ multiplyAdd(oddBytes, odd)
}

/// The weighted sums of the eight pixels at `p` (`weightedBytes`), each shifted right by `shift`, in 16-bit lanes in
/// pixel order (the sums must fit: packssdw would saturate).
@inline(__always)
func weightedLevels(_ p: UnsafeRawPointer, pairs: SIMD4<UInt32>, even: I16x8, odd: I16x8, shift: Int32) -> I16x8 {
    @inline(__always) func level(_ offset: Int) -> SIMD4<Int32> {
        weightedBytes(p.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self), pairs: pairs, even: even, odd: odd) &>> shift
    }
    return narrow16(SIMD8<Int32>(lowHalf: level(0), highHalf: level(16)))
}

/// The eight pixels (32 bytes) at `p` as two vectors of four.
@inline(__always)
func eightPixels(_ p: UnsafeRawPointer) -> (SIMD4<UInt32>, SIMD4<UInt32>) {
    (p.loadUnaligned(as: SIMD4<UInt32>.self), p.loadUnaligned(fromByteOffset: 16, as: SIMD4<UInt32>.self))
}

/// Eight pixels from their bytes 0|1 (`low`) and 2|3 (`high`) in 16-bit lanes, as two vectors of four (punpcklwd,
/// punpckhwd).
@inline(__always)
func interleavePixels(_ low: I16x8, _ high: I16x8) -> (SIMD4<UInt32>, SIMD4<UInt32>) {
    var w0 = SIMD4<UInt32>(), w1 = SIMD4<UInt32>()
    for i in 0..<4 {
        w0[i] = UInt32(UInt16(bitPattern: low[i])) | UInt32(UInt16(bitPattern: high[i])) &<< 16
        w1[i] = UInt32(UInt16(bitPattern: low[4 + i])) | UInt32(UInt16(bitPattern: high[4 + i])) &<< 16
    }
    return (w0, w1)
}

/// The 16-bit weights of bytes 0 and 2, and of 1 and 3, of `weights` (one per byte of a pixel) as 32-bit pairs for
/// pmaddwd.
func weightPairs(_ weights: SIMD4<Int32>) -> (even: Int32, odd: Int32) {
    func pair(_ low: Int32, _ high: Int32) -> Int32 {
        Int32(bitPattern: UInt32(UInt16(truncatingIfNeeded: low)) | UInt32(UInt16(truncatingIfNeeded: high)) << 16)
    }
    return (pair(weights[0], weights[2]), pair(weights[1], weights[3]))
}

/// Bytes as `(v − 128)·256` in 16-bit lanes (low eight, high eight): one unpack with zero each.
///
/// Signed and scaled to the full 16-bit range, so `mulHigh(x, c·2¹²)` is `(v − 128)·c` with 4 fraction bits.
@inline(__always)
func widenCentred(_ v: SIMD16<UInt8>) -> (I16x8, I16x8) {
    let s = v ^ 0x80
    var lo = I16x8(), hi = I16x8()
    for i in 0..<8 {
        lo[i] = Int16(Int8(bitPattern: s[i])) &<< 8
        hi[i] = Int16(Int8(bitPattern: s[i + 8])) &<< 8
    }
    return (lo, hi)
}

/// Bytes zero-extended to 16 bits (low eight, high eight).
@inline(__always)
func widen(_ v: SIMD16<UInt8>) -> (I16x8, I16x8) {
    var lo = I16x8(), hi = I16x8()
    for i in 0..<8 { lo[i] = Int16(v[i]); hi[i] = Int16(v[i + 8]) }
    return (lo, hi)
}

@inline(__always)
func laneMax(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD16<Int16> {
    var r = a
    for i in 0..<16 { r[i] = a[i] > b[i] ? a[i] : b[i] }
    return r
}

@inline(__always)
func laneMin(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD16<Int16> {
    var r = a
    for i in 0..<16 { r[i] = a[i] < b[i] ? a[i] : b[i] }
    return r
}

@inline(__always)
func laneMax(_ a: I16x8, _ b: I16x8) -> I16x8 {
    var r = a
    for i in 0..<8 { r[i] = a[i] > b[i] ? a[i] : b[i] }
    return r
}

@inline(__always)
func laneMin(_ a: I16x8, _ b: I16x8) -> I16x8 {
    var r = a
    for i in 0..<8 { r[i] = a[i] < b[i] ? a[i] : b[i] }
    return r
}

/// Signed lanes clamped to 0...255 (pmaxsw, pminsw).
@inline(__always)
func clampByte(_ a: I16x8) -> I16x8 {
    laneMin(laneMax(a, .zero), I16x8(repeating: 255))
}

/// Sixteen signed lanes clamped to 0...255 as bytes: packuswb.
@inline(__always)
func packSaturated(_ lo: I16x8, _ hi: I16x8) -> SIMD16<UInt8> {
    let x = SIMD16<Int16>(lowHalf: lo, highHalf: hi)
    let c = laneMin(laneMax(x, .zero), SIMD16<Int16>(repeating: 255))
    var r = SIMD16<UInt8>()
    for i in 0..<16 { r[i] = UInt8(truncatingIfNeeded: c[i]) }
    return r
}

/// `value·2^bits` rounded to Int16, or nil when it does not fit.
func fixed(_ value: Double, bits: Int) -> Int16? {
    let scaled = (value * Double(1 << bits)).rounded()
    guard scaled.isFinite, abs(scaled) <= 32767 else { return nil }
    return Int16(scaled)
}

/// A compile-time switch for generic specialization: each combination gets its own loop.
protocol Flag { static var on: Bool { get } }
enum On: Flag { static var on: Bool { true } }
enum Off: Flag { static var on: Bool { false } }
