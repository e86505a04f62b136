// Only in FiltersAVX2 (no baseline copy): the baseline path is MirrorFlipKernel.reverse's SSE2 shuffles.
import _Builtin_intrinsics.intel

/// Mirror's element reversal with pshufb (SSSE3, part of the AVX2 target): SSE2 has no byte shuffle,
/// so reversing 16 bytes there takes a chain of unpacks and word shuffles.
package enum MirrorCore {
    /// Writes the first `count` bytes of `source`'s `size`-byte elements reversed (d[o…] = the element
    /// ending `o` bytes before the end) for whole 16-byte groups; returns how many bytes were done.
    /// `readForward` goes through the source from its start (the destination from its end): for a source in
    /// memory, which the prefetchers then follow row after row; else the destination is written from its start.
    package static func reverse(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, size: Int,
        readForward: Bool
    ) -> Int {
        let mask: __m128i
        switch size {
        case 4: mask = _mm_setr_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3)
        case 2: mask = _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1)
        case 1: mask = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
        default: return 0
        }
        let done = bytes / 32 * 32
        @inline(__always) func group(_ o: Int) {
            let a = _mm_loadu_si128((source + (bytes &- o &- 16)).assumingMemoryBound(to: __m128i.self))
            let b = _mm_loadu_si128((source + (bytes &- o &- 32)).assumingMemoryBound(to: __m128i.self))
            _mm_storeu_si128((destination + o).assumingMemoryBound(to: __m128i.self), _mm_shuffle_epi8(a, mask))
            _mm_storeu_si128((destination + (o &+ 16)).assumingMemoryBound(to: __m128i.self), _mm_shuffle_epi8(b, mask))
        }
        sweepMirrorGroups(from: 0, to: done, step: 32, readForward: readForward, group)
        return done
    }
}
