// aarch64's own: Swift's SIMD types have no byte shuffle by a vector of indices, so the portable path looks byte
// tables up one byte at a time, and LLVM leaves that loop scalar (four loads and four stores a pixel).
#if arch(arm64)
import _Builtin_intrinsics.arm.neon

/// RGBTableKernel's byte table where the colour bytes share one table and the fourth keeps its value (gamma,
/// posterize, invert), 16 bytes a step: `tbl` looks 64 entries up from four registers (0 for an index past them) and
/// three `tbx` the next 64 each on the index stepped down by 64 (keeping the entry found where the index is out of
/// their range). Table reads, so the same bytes as the scalar loop.
enum NEONByteTable {
    /// Looks the bytes of `source` whose bit is set in `mask` (repeating every 16 bytes) up through the 256-byte
    /// `table`, copies the others, into `destination` (may be `source`), whole groups of 16 bytes; returns how many
    /// bytes it did.
    static func uniform(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, bytes: Int, table: UnsafePointer<UInt8>,
        mask: UInt64
    ) -> Int {
        guard bytes >= 16 else { return 0 }
        // vld1q/vst1q are macros in arm_neon.h, which Swift does not import: plain unaligned vector loads and stores.
        let t = UnsafeRawPointer(table)
        @inline(__always) func quarter(_ k: Int) -> uint8x16x4_t {
            @inline(__always) func entries(_ j: Int) -> SIMD16<UInt8> {
                t.loadUnaligned(fromByteOffset: 64 &* k &+ 16 &* j, as: SIMD16<UInt8>.self)
            }
            return uint8x16x4_t(val: (entries(0), entries(1), entries(2), entries(3)))
        }
        let q0 = quarter(0), q1 = quarter(1), q2 = quarter(2), q3 = quarter(3)
        var lanes = SIMD16<UInt8>()
        for i in 0..<16 where mask >> UInt64(i) & 1 != 0 { lanes[i] = 0xFF }
        let lookedUp = lanes, step = vdupq_n_u8(64)
        var o = 0
        while o &+ 16 <= bytes {
            let v = source.loadUnaligned(fromByteOffset: o, as: SIMD16<UInt8>.self)
            var index = v
            var found = vqtbl4q_u8(q0, index)
            index = vsubq_u8(index, step)
            found = vqtbx4q_u8(found, q1, index)
            index = vsubq_u8(index, step)
            found = vqtbx4q_u8(found, q2, index)
            index = vsubq_u8(index, step)
            found = vqtbx4q_u8(found, q3, index)
            destination.storeBytes(of: vbslq_u8(lookedUp, found, v), toByteOffset: o, as: SIMD16<UInt8>.self)
            o &+= 16
        }
        return o
    }
}
#endif
