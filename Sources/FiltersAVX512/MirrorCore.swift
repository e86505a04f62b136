// Only in FiltersAVX512 (no baseline copy): FiltersAVX2's MirrorCore reverses 16 bytes a step with pshufb.
import _Builtin_intrinsics.intel

/// Mirror's element reversal 64 bytes a step: one full-width permute (vpermd for four-byte pixels, vpermw
/// for NV12's chroma pairs, VBMI's vpermb for single bytes) between one load and one store, a quarter of
/// the loads, shuffles and stores of the 16-byte steps.
package enum MirrorCore {
    /// FiltersAVX2's `MirrorCore.reverse` (the same arguments and result) for whole 64-byte groups.
    package static func reverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int,
        readForward: Bool
    ) -> Int {
        guard let order = reversal(size: size) else { return 0 }
        let done = bytes / 64 * 64
        @inline(__always) func group(_ o: Int) {
            let v = _mm512_loadu_si512(source + (bytes &- o &- 64))
            let r: __m512i
            switch size {
            case 4: r = _mm512_permutexvar_epi32(order, v)
            case 2: r = _mm512_permutexvar_epi16(order, v)
            default: r = _mm512_permutexvar_epi8(order, v)
            }
            _mm512_storeu_si512(destination + o, r)
        }
        sweepMirrorGroups(from: 0, to: done, step: 64, readForward: readForward, group)
        return done
    }

    /// The permutation that reverses the order of 64 bytes' `size`-byte elements (4, 2 or 1); nil for another size.
    @inline(__always)
    private static func reversal(size: Int) -> __m512i? {
        switch size {
        case 4: return _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        case 2:
            return _mm512_set_epi64(
                0x0000_0001_0002_0003, 0x0004_0005_0006_0007, 0x0008_0009_000A_000B, 0x000C_000D_000E_000F,
                0x0010_0011_0012_0013, 0x0014_0015_0016_0017, 0x0018_0019_001A_001B, 0x001C_001D_001E_001F)
        case 1:
            var indices = (Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0), Int64(0))
            withUnsafeMutableBytes(of: &indices) { raw in for i in 0..<64 { raw[i] = UInt8(63 - i) } }
            return unsafeBitCast(indices, to: __m512i.self)
        default: return nil
        }
    }
}
