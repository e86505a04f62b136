/// Block averages: each block of each view becomes the rounded mean of its pixels, per channel.
///
/// Blocks start at the top-left corner; chroma views use blocks of `size / subsampling` rounded up.
/// Safe in place: a block is summed completely before it is filled.
enum PixelateKernel {
    static func run(_ source: Frame, _ destination: Frame, size: Int, _ context: SpatialContext) {
        guard size > 1 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        for view in ChannelView.views(source: source, destination: destination) {
            let bw = (size + view.subX - 1) / view.subX, bh = (size + view.subY - 1) / view.subY
            let blocks = (view.width + bw - 1) / bw
            let bands = context.bands(rows: view.height, samples: view.rowSamples * view.height)
            let sums = context.perBand(.rowA, bands: bands, bytes: blocks * view.channels * 4)
            RowParallel.run(rows: view.height, bands: bands, alignment: bh) { band, rows in
                let sum = (sums.base + band * sums.stride).assumingMemoryBound(to: UInt32.self)
                var top = rows.lowerBound
                while top < rows.upperBound {
                    let bottom = min(top + bh, view.height)
                    sum.update(repeating: 0, count: blocks * view.channels)
                    for y in top..<bottom {
                        let s = view.sourceRow(y)
                        for x in 0..<view.width {
                            for c in 0..<view.channels {
                                sum[(x / bw) * view.channels + c] &+= UInt32(s[x * view.step + c])
                            }
                        }
                    }
                    for block in 0..<blocks {
                        let count = UInt32((min((block + 1) * bw, view.width) - block * bw) * (bottom - top))
                        for c in 0..<view.channels {
                            let index = block * view.channels + c
                            sum[index] = (sum[index] + count / 2) / count
                        }
                    }
                    for y in top..<bottom {
                        let d = view.destinationRow(y)
                        for x in 0..<view.width {
                            for c in 0..<view.channels {
                                d[x * view.step + c] = UInt8(truncatingIfNeeded: sum[(x / bw) * view.channels + c])
                            }
                        }
                    }
                    top = bottom
                }
            }
        }
    }
}
