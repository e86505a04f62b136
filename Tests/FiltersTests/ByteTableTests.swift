import Testing

@testable import Filters

extension SIMDPathTests {
    /// The wide byte-table lookups (AVX2's sliced vpshufb, AVX-512's permutes) give every index its own entry and
    /// leave the bytes outside the mask alone.
    @Suite struct ByteTableTests {
        @Test(arguments: KernelSet.available)
        func everyIndexGetsItsEntry(kernels: KernelSet) {
            // A table with no pattern a slice or a half could hide behind; every index 0…255 at a colour byte.
            var state: UInt32 = 0x1234_5678
            let table = (0..<256).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            let bytes = 256 * 4 + 24
            let source = (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ $0 / 256) }
            // Colour bytes 0, 1, 2 of each pixel looked up, byte 3 (alpha) kept.
            let mask: UInt64 = 0x7777_7777_7777_7777
            // The four tables as RGBTableKernel lays them out, the one looked up at offset 0.
            let tables = table + Array(table) + Array(table) + Array(0...255).map(UInt8.init)
            var out = [UInt8](repeating: 0, count: bytes)
            let done = source.withUnsafeBytes { s in
                out.withUnsafeMutableBytes { d in
                    tables.withUnsafeBufferPointer { t in
                        kernels.table.byteTables(
                            s.baseAddress!, d.baseAddress!, bytes: bytes, tables: t.baseAddress!, uniform: (offset: 0, mask: mask))
                    }
                }
            }
            #expect(done % 4 == 0 && done <= bytes)
            if kernels.path == .avx2 || kernels.path == .avx512 { #expect(done >= 1024, "\(kernels) did \(done) bytes") }
            for i in 0..<done {
                let expected = i % 4 == 3 ? source[i] : table[Int(source[i])]
                #expect(out[i] == expected, "\(kernels) byte \(i): index \(source[i]) gave \(out[i]), not \(expected)")
            }
        }
    }
}
