/// The lanes of the float point passes (the RGB and 4:2:0 general paths), and their rounding without calls.

/// Four pixels per step: with eight, the 16 SSE registers spill in the affine block.
typealias Lanes<Scalar: SIMDScalar> = SIMD4<Scalar>
let laneCount = 4

/// Rounds to nearest and clamps to 0...255 (NaN → 0) without calls or branches.
///
/// `replace(with:where:)` lowers to cmpps/minps/andps, while `clamped(lowerBound:upperBound:)` calls
/// out; adding 1.5·2²³ leaves the rounded integer in the low mantissa bits.
@inline(__always)
func clampRound(_ x: Lanes<Float>) -> Lanes<UInt32> {
    var c = x
    c.replace(with: Lanes<Float>(repeating: 0), where: .!(c .> 0))
    c.replace(with: Lanes<Float>(repeating: 255), where: c .> 255)
    return unsafeBitCast(c + 12_582_912.0, to: Lanes<UInt32>.self) & Lanes(repeating: 0xFF)
}

/// max(0, x) as a masked select, which stays in packed SSE.
@inline(__always)
func positivePart(_ x: Lanes<Float>) -> Lanes<Float> {
    var c = x
    c.replace(with: Lanes<Float>(repeating: 0), where: .!(c .> 0))
    return c
}

/// Rounds and clamps a Float to a byte.
@inline(__always)
func clampByte(_ v: Float) -> UInt8 {
    // Compare-and-select plus a truncating convert: no libm call (rounded(.down) was one).
    let c = v > 0 ? (v < 255 ? v : 255) : 0
    return UInt8(truncatingIfNeeded: Int32(c + 0.5))
}
