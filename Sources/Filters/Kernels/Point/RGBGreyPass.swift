/// The packed RGB pass for a colour map whose three matrix rows are equal — mono, sepia at full
/// intensity (the luma plus a per-channel offset), a contrast or exposure after either: one weighted
/// sum per pixel, like libyuv's ARGBGray, instead of RGBFixedKernel's nine products.
///
/// Detected from the coefficients, not from the filter names. The sum is exact in 32 bits (Q14
/// weights, pmaddwd) and rounded once per colour byte with its offset (6 fraction bits): like the 3×3
/// core, within a code of the float pass (GreyKernelTests). The row loops are GreyCore's;
/// `pixel` is the same arithmetic for the tail and for machines without SSE2.
final class RGBGreyPass {
    /// Q14 weight per memory byte (0 for alpha/padding).
    private let weights: SIMD4<Int32>
    /// The weights of bytes 0 and 2, and of 1 and 3, as 16-bit pairs for pmaddwd.
    private let even: Int32, odd: Int32
    /// Per memory byte: the offset in codes with 6 fraction bits, plus 32 (the rounding half); the
    /// alpha/padding byte's is a colour byte's (it is masked out).
    private let offsets: SIMD4<Int16>
    /// The three colour offsets are equal.
    private let uniform: Bool
    private let keep: UInt32
    /// The SIMD path its rows run on.
    private let kernels: KernelSet
    /// The portable kernel's constants as vectors (KernelSet.greyVectors).
    private let vectors: UnsafeMutableRawPointer

    init?(_ a: Affine3, format: PixelFormat, kernels: KernelSet = .best) {
        guard format.isRGB, Array(a.m[0..<3]) == Array(a.m[3..<6]), Array(a.m[0..<3]) == Array(a.m[6..<9]) else { return nil }
        let bytes = format.rgbOffsets
        let colourBytes = [bytes.r, bytes.g, bytes.b]
        var weights = SIMD4<Int32>.zero, offsets = SIMD4<Int16>.zero
        var reach = 0.0, farthest = 0.0
        for channel in 0..<3 {
            let c = a.m[channel], o = a.o[channel] * 255
            guard abs(c) < 1.99, abs(o) <= 511 else { return nil }
            weights[colourBytes[channel]] = Int32((c * 16384).rounded())
            offsets[colourBytes[channel]] = Int16((o * 64).rounded()) + 32
            reach += abs(c) * 255
            farthest = max(farthest, abs(o))
        }
        // h = grey·64 and h + offset stay within Int16 (no pack saturates, no add wraps).
        guard reach + farthest <= 511 else { return nil }
        offsets[bytes.a] = offsets[bytes.r]
        self.weights = weights
        self.offsets = offsets
        uniform = offsets[bytes.r] == offsets[bytes.g] && offsets[bytes.r] == offsets[bytes.b]
        (even, odd) = weightPairs(weights)
        keep = UInt32(0xFF) << UInt32(bytes.a * 8)
        self.kernels = kernels
        vectors = kernels.greyVectors(even: even, odd: odd, offsets: offsets)
    }

    deinit { vectors.deallocate() }

    /// One pixel (four bytes, little-endian), GreyCore's arithmetic.
    @inline(__always)
    func pixel(_ v: UInt32) -> UInt32 {
        let b = SIMD4<Int32>(Int32(v & 0xFF), Int32(v >> 8 & 0xFF), Int32(v >> 16 & 0xFF), Int32(v >> 24))
        let h = (b &* weights).wrappedSum() &>> 8
        var out = v & keep
        for byte in 0..<4 {
            let c = min(max((h &+ Int32(offsets[byte])) &>> 6, 0), 255)
            out |= UInt32(c) << UInt32(8 * byte) & ~keep
        }
        return out
    }

    /// Processes rows `rows` from `source` to `destination` (which may be the same memory).
    func run(source: Plane, destination: Plane, width: Int, rows: Range<Int>) {
        for y in rows {
            let src = source.base + y * source.stride, dst = destination.base + y * destination.stride
            var x = kernels.table.greyRow(
                src, dst, width: width, even: even, odd: odd, offsets: offsets, vectors: vectors, uniform: uniform, keep: keep)
            while x < width {
                dst.storeBytes(of: pixel(src.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self)), toByteOffset: x &* 4, as: UInt32.self)
                x &+= 1
            }
        }
    }
}
