// Only in FiltersAVX512: FiltersAVX2's RGBFixedCore (also the 8-pixel block's arithmetic) with VBMI's
// two-source byte permutes doing the unpacking and re-interleaving.
import _Builtin_intrinsics.intel

/// RGBFixedKernel's block 32 pixels wide with the same integer operations per lane (so the same
/// bytes), its shuffling done by `vpermt2b`: each colour byte of 32 pixels goes to the high byte of a
/// 16-bit lane in one zero-masking permute (its bytes were xored with 0x80 first, so the lane is
/// `(b − 128)·256`), and the clamped results go back to pixels through `vpackuswb` (the clamp to
/// 0...255) and one permute per 16 pixels, which also takes the alpha byte and can write the pixels
/// in reverse order (a mirrored row at no cost).
///
/// The 16-bit lanes keep the 8-pixel block's order (in each 128-bit lane, lane 2j is pixel j and lane
/// 2j + 1 pixel 4 + j of its 8), so the vignette's column table serves every width. Per 32 pixels this
/// is about 45 instructions where the shift-and-mask version (the AVX2 file at 512 bits) took about 70.
package enum RGBFixedCore {
    /// Pixels per step.
    static var step: Int { 32 }

    /// The permute indices: for each of passFirst false/true, three planes, alpha, then the two output
    /// vectors forwards and the two mirrored; 64 bytes each.
    /// Written once, then only read.
    nonisolated(unsafe) private static let indices: UnsafeMutablePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * 8 * 64)
        table.initialize(repeating: 0, count: 2 * 8 * 64)
        // The pixel in 16-bit lane `lane`, and the lane of pixel `pixel` (0..<32).
        func pixel(_ lane: Int) -> Int {
            let i = lane % 8
            return lane - i + (i % 2 == 0 ? i / 2 : 4 + i / 2)
        }
        func lane(_ pixel: Int) -> Int {
            let j = pixel % 8
            return pixel - j + (j < 4 ? 2 * j : 2 * (j - 4) + 1)
        }
        for passFirst in 0..<2 {
            let base = table + passFirst * 8 * 64
            let alphaByte = passFirst == 1 ? 0 : 3
            for lane in 0..<32 {
                for channel in 0..<3 { base[channel * 64 + 2 * lane + 1] = UInt8(pixel(lane) * 4 + passFirst + channel) }
                base[3 * 64 + 2 * lane] = UInt8(pixel(lane) * 4 + alphaByte)
            }
            // After vpackuswb(p0, p1) (first source) and vpackuswb(p2, alpha) (second): in each 128-bit
            // lane k, bytes 0–7 are the first vector's lanes 8k...8k + 7, bytes 8–15 the second's.
            for mirrored in 0..<2 {
                for half in 0..<2 {
                    for byte in 0..<64 {
                        let memoryPixel = 16 * half + byte / 4
                        let p = mirrored == 1 ? 31 - memoryPixel : memoryPixel
                        let l = lane(p), k = l / 8, i = l % 8
                        let position = byte % 4
                        let index: Int
                        if position == alphaByte {
                            index = 64 + 16 * k + 8 + i
                        } else {
                            let channel = position - passFirst
                            index = channel == 0 ? 16 * k + i : channel == 1 ? 16 * k + 8 + i : 64 + 16 * k + i
                        }
                        base[(4 + 2 * mirrored + half) * 64 + byte] = UInt8(index)
                    }
                }
            }
        }
        return table
    }()

    /// Runs whole steps of one row from `src` to `dst`; returns how many pixels it did. The arguments
    /// are FiltersAVX2's `RGBFixedCore.row`'s.
    /// `table`, when given, is a 256-byte table every colour byte goes through first, each entry xored with
    /// 0x80 (the centring): the table pass before the matrix (gamma in the 6-chain) in this one.
    package static func row(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, m: UnsafePointer<Int16>, o: UnsafePointer<Int16>, keep: UInt32,
        passFirst: Bool, columns: UnsafePointer<Int16>?, row: Int16, mirrored: Bool, table: UnsafePointer<UInt8>? = nil
    ) -> Int {
        let index = UnsafeRawPointer(indices + (passFirst ? 8 * 64 : 0))
        let none = UnsafePointer<Int16>(bitPattern: 64)!
        switch (columns, table) {
        case let (columns?, table?):
            return run(src, dst, width, m, o, index, passFirst, mirrored, true, columns, row, true, UnsafeRawPointer(table))
        case let (columns?, nil):
            return run(src, dst, width, m, o, index, passFirst, mirrored, true, columns, row, false, UnsafeRawPointer(none))
        case let (nil, table?):
            return run(src, dst, width, m, o, index, passFirst, mirrored, false, none, row, true, UnsafeRawPointer(table))
        case (nil, nil): return run(src, dst, width, m, o, index, passFirst, mirrored, false, none, row, false, UnsafeRawPointer(none))
        }
    }

    @inline(__always)
    private static func run(
        _ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, _ width: Int, _ m: UnsafePointer<Int16>, _ o: UnsafePointer<Int16>,
        _ index: UnsafeRawPointer, _ passFirst: Bool, _ mirrored: Bool, _ gain: Bool,
        _ columns: UnsafePointer<Int16>, _ rowTerm: Int16, _ lookup: Bool, _ table: UnsafeRawPointer
    ) -> Int {
        @inline(__always) func splat(_ v: Int16) -> __m512i { _mm512_set1_epi16(v) }
        let k0 = splat(m[0]), k1 = splat(m[1]), k2 = splat(m[2])
        let k3 = splat(m[3]), k4 = splat(m[4]), k5 = splat(m[5])
        let k6 = splat(m[6]), k7 = splat(m[7]), k8 = splat(m[8])
        let o0 = splat(o[0]), o1 = splat(o[1]), o2 = splat(o[2])
        let bias0 = splat(o[3]), bias1 = splat(o[4]), bias2 = splat(o[5])
        let row = splat(rowTerm), zero = _mm512_setzero_si512()
        let centre = _mm512_set1_epi32(Int32(bitPattern: passFirst ? 0x8080_8000 : 0x0080_8080))
        let i0 = _mm512_loadu_si512(index), i1 = _mm512_loadu_si512(index + 64), i2 = _mm512_loadu_si512(index + 128)
        let ia = _mm512_loadu_si512(index + 192)
        let out0 = _mm512_loadu_si512(index + (mirrored ? 384 : 256)), out1 = _mm512_loadu_si512(index + (mirrored ? 448 : 320))
        let high: __mmask64 = 0xAAAA_AAAA_AAAA_AAAA, low: __mmask64 = 0x5555_5555_5555_5555
        // The matrix's rows are equal (sepia or mono before a vignette, the 6-chain): three multiplies, not nine.
        let equalRows = m[0] == m[3] && m[0] == m[6] && m[1] == m[4] && m[1] == m[7] && m[2] == m[5] && m[2] == m[8]
        // The table's four quarters (ByteTableCore's lookup: two 128-entry permutes, a blend on the top bit).
        let t0 = lookup ? _mm512_loadu_si512(table) : zero, t1 = lookup ? _mm512_loadu_si512(table + 64) : zero
        let t2 = lookup ? _mm512_loadu_si512(table + 128) : zero, t3 = lookup ? _mm512_loadu_si512(table + 192) : zero
        @inline(__always) func centred(_ z: __m512i) -> __m512i {
            guard lookup else { return _mm512_xor_si512(z, centre) }
            return _mm512_mask_blend_epi8(_mm512_movepi8_mask(z), _mm512_permutex2var_epi8(t0, z, t1), _mm512_permutex2var_epi8(t2, z, t3))
        }
        var x = 0
        while x &+ 32 <= width {
            let z0 = _mm512_loadu_si512(src + 4 * x), z1 = _mm512_loadu_si512(src + 4 * x + 64)
            let c0 = centred(z0), c1 = centred(z1)
            let b0 = _mm512_maskz_permutex2var_epi8(high, c0, i0, c1)
            let b1 = _mm512_maskz_permutex2var_epi8(high, c0, i1, c1)
            let b2 = _mm512_maskz_permutex2var_epi8(high, c0, i2, c1)
            @inline(__always) func dot(_ a0: __m512i, _ a1: __m512i, _ a2: __m512i, _ offset: __m512i) -> __m512i {
                _mm512_add_epi16(
                    _mm512_add_epi16(
                        _mm512_add_epi16(_mm512_mulhi_epi16(b0, a0), _mm512_mulhi_epi16(b1, a1)),
                        _mm512_mulhi_epi16(b2, a2)), offset)
            }
            var p0: __m512i, p1: __m512i, p2: __m512i
            if equalRows {
                // One sum for the three channels (16-bit adds wrap, so the same lanes as three).
                let sum = _mm512_add_epi16(
                    _mm512_add_epi16(_mm512_mulhi_epi16(b0, k0), _mm512_mulhi_epi16(b1, k1)), _mm512_mulhi_epi16(b2, k2))
                (p0, p1, p2) = (_mm512_add_epi16(sum, o0), _mm512_add_epi16(sum, o1), _mm512_add_epi16(sum, o2))
            } else {
                (p0, p1, p2) = (dot(k0, k1, k2, o0), dot(k3, k4, k5, o1), dot(k6, k7, k8, o2))
            }
            if gain {
                let g = _mm512_max_epi16(_mm512_sub_epi16(row, _mm512_loadu_si512(UnsafeRawPointer(columns + x))), zero)
                p0 = _mm512_srai_epi16(_mm512_add_epi16(_mm512_mulhi_epi16(p0, g), bias0), 3)
                p1 = _mm512_srai_epi16(_mm512_add_epi16(_mm512_mulhi_epi16(p1, g), bias1), 3)
                p2 = _mm512_srai_epi16(_mm512_add_epi16(_mm512_mulhi_epi16(p2, g), bias2), 3)
            } else {
                p0 = _mm512_srai_epi16(p0, 4)
                p1 = _mm512_srai_epi16(p1, 4)
                p2 = _mm512_srai_epi16(p2, 4)
            }
            // The alpha bytes, unchanged (z, not c), in the low byte of each lane: vpackuswb keeps them.
            let alpha = _mm512_maskz_permutex2var_epi8(low, z0, ia, z1)
            let first = _mm512_packus_epi16(p0, p1), second = _mm512_packus_epi16(p2, alpha)
            let w0 = _mm512_permutex2var_epi8(first, out0, second), w1 = _mm512_permutex2var_epi8(first, out1, second)
            if mirrored {
                let at = dst + 4 * (width &- x &- 32)
                _mm512_storeu_si512(at, w0)
                _mm512_storeu_si512(at + 64, w1)
            } else {
                _mm512_storeu_si512(dst + 4 * x, w0)
                _mm512_storeu_si512(dst + 4 * x + 64, w1)
            }
            x &+= 32
        }
        return x
    }
}
