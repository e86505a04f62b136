/// Block averages: each block of each view becomes the rounded mean of its pixels, per channel.
///
/// Blocks start at the top-left corner; chroma views use blocks of `size / subsampling` rounded up.
/// Per band of block rows: the block's rows are added into 16-bit column sums (≤ 256 rows of
/// bytes fit; a lane loop LLVM vectorizes to paddw), each block's columns are then summed and
/// divided once, one output row is built from the block colours and copied to every row of the
/// block. Safe in place: a block is summed completely before it is filled.
enum PixelateKernel {
    static func run(_ source: Frame, _ destination: Frame, size: Int, _ context: SpatialContext) {
        guard size > 1 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        for view in ChannelView.views(source: source, destination: destination) {
            let bw = (size + view.subX - 1) / view.subX, bh = (size + view.subY - 1) / view.subY
            let ch = view.channels, samples = view.rowSamples
            let blocks = (view.width + bw - 1) / bw
            let bands = context.bands(rows: view.height, samples: samples * view.height)
            // Per band: column sums (UInt16, padded to 16 lanes), a gathered row, the output row.
            let padded = (samples + 15) & ~15
            let scratch = context.perBand(.rowA, bands: bands, bytes: padded * 2 + padded + padded)
            RowParallel.run(rows: view.height, bands: bands, alignment: bh) { band, rows in
                let base = scratch.base + band * scratch.stride
                let sums = base.bindMemory(to: UInt16.self, capacity: padded)
                let gathered = (base + padded * 2).bindMemory(to: UInt8.self, capacity: 2 * padded)
                let row = gathered + padded
                var top = rows.lowerBound
                while top < rows.upperBound {
                    let bottom = min(top + bh, view.height)
                    sums.update(repeating: 0, count: padded)
                    for y in top..<bottom {
                        accumulate(view.packedSourceRow(y, buffer: gathered), count: samples, into: sums)
                    }
                    for block in 0..<blocks {
                        let first = block * bw, last = min(first + bw, view.width)
                        let count = UInt32((last - first) * (bottom - top))
                        for c in 0..<ch {
                            var total: UInt32 = 0
                            for x in first..<last { total &+= UInt32(sums[x * ch + c]) }
                            let mean = UInt8(truncatingIfNeeded: (total + count / 2) / count)
                            for x in first..<last { row[x * ch + c] = mean }
                        }
                    }
                    for y in top..<bottom { view.scatter(row: y, from: row) }
                    top = bottom
                }
            }
        }
    }

    /// sums[i] += s[i]: 16 bytes at a time, widened to two 8-lane UInt16 adds.
    @inline(__always)
    private static func accumulate(_ s: UnsafePointer<UInt8>, count: Int, into sums: UnsafeMutablePointer<UInt16>) {
        var i = 0
        while i + 16 <= count {
            let v = UnsafeRawPointer(s + i).loadUnaligned(as: SIMD16<UInt8>.self)
            var lo = UnsafeRawPointer(sums + i).load(as: SIMD8<UInt16>.self)
            var hi = UnsafeRawPointer(sums + i + 8).load(as: SIMD8<UInt16>.self)
            for j in 0..<8 {
                lo[j] &+= UInt16(v[j])
                hi[j] &+= UInt16(v[8 + j])
            }
            UnsafeMutableRawPointer(sums + i).storeBytes(of: lo, as: SIMD8<UInt16>.self)
            UnsafeMutableRawPointer(sums + i + 8).storeBytes(of: hi, as: SIMD8<UInt16>.self)
            i += 16
        }
        while i < count {
            sums[i] &+= UInt16(s[i])
            i += 1
        }
    }
}
