// Only in FiltersAVX512 (no baseline copy): the baseline path is RGBTableKernel's scalar lookup.
import _Builtin_intrinsics.intel

/// RGBTableKernel's per-channel byte tables, 64 bytes a step: each 256-entry table is two VBMI
/// two-source byte permutes (128 entries each) and a blend on the index's top bit, and the four
/// channels' results are blended by byte position. Table reads, so the same bytes as the scalar loop.
/// On Zen 4 a 512-bit vpermt2b issues every other cycle, so when the colour channels share one table
/// and the fourth byte keeps its value (gamma, posterize, invert: the common case) `uniform` does one
/// lookup instead of four.
package enum ByteTableCore {
    /// Looks the bytes of `source` whose bit is set in `mask` (repeating every 64 bytes) up through the
    /// 256-byte `table`, copies the others, into `destination` (may be `source`), whole groups of 64 bytes;
    /// returns how many bytes it did.
    package static func uniform(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, table: UnsafePointer<UInt8>,
        mask: UInt64
    ) -> Int {
        let t = UnsafeRawPointer(table)
        let t0 = _mm512_loadu_si512(t), t1 = _mm512_loadu_si512(t + 64), t2 = _mm512_loadu_si512(t + 128), t3 = _mm512_loadu_si512(t + 192)
        let lookedUp: __mmask64 = mask
        var o = 0
        while o &+ 64 <= bytes {
            let v = _mm512_loadu_si512(source + o)
            let found = _mm512_mask_blend_epi8(
                _mm512_movepi8_mask(v), _mm512_permutex2var_epi8(t0, v, t1), _mm512_permutex2var_epi8(t2, v, t3))
            _mm512_storeu_si512(destination + o, _mm512_mask_blend_epi8(lookedUp, v, found))
            o &+= 64
        }
        return o
    }

    /// Looks `source` up through `tables` (4 × 256 bytes: byte position mod 4, then value) into
    /// `destination` (may be `source`), whole groups of 64 bytes; returns how many bytes it did.
    package static func lookup(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, tables: UnsafePointer<UInt8>
    ) -> Int {
        let t = UnsafeRawPointer(tables)
        @inline(__always) func load(_ offset: Int) -> __m512i { _mm512_loadu_si512(t + offset) }
        let a0 = load(0), a1 = load(64), a2 = load(128), a3 = load(192)
        let b0 = load(256), b1 = load(320), b2 = load(384), b3 = load(448)
        let c0 = load(512), c1 = load(576), c2 = load(640), c3 = load(704)
        let d0 = load(768), d1 = load(832), d2 = load(896), d3 = load(960)
        // Byte positions 1, 2 and 3 of every 4.
        let second: __mmask64 = 0x2222_2222_2222_2222, third: __mmask64 = 0x4444_4444_4444_4444, fourth: __mmask64 = 0x8888_8888_8888_8888
        var o = 0
        while o &+ 64 <= bytes {
            let v = _mm512_loadu_si512(source + o)
            let upper = _mm512_movepi8_mask(v)
            @inline(__always) func table(_ t0: __m512i, _ t1: __m512i, _ t2: __m512i, _ t3: __m512i) -> __m512i {
                _mm512_mask_blend_epi8(upper, _mm512_permutex2var_epi8(t0, v, t1), _mm512_permutex2var_epi8(t2, v, t3))
            }
            var out = table(a0, a1, a2, a3)
            out = _mm512_mask_blend_epi8(second, out, table(b0, b1, b2, b3))
            out = _mm512_mask_blend_epi8(third, out, table(c0, c1, c2, c3))
            out = _mm512_mask_blend_epi8(fourth, out, table(d0, d1, d2, d3))
            _mm512_storeu_si512(destination + o, out)
            o &+= 64
        }
        return o
    }
}
