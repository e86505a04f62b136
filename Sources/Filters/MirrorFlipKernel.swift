/// Mirror (reverse pixels within rows, per view) and flip (reverse the row order, per plane).
enum MirrorFlipKernel {
    static func mirror(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let input = context.unaliased(source, destination)
        for view in ChannelView.views(source: input, destination: destination) {
            let bands = context.bands(rows: view.height, samples: view.rowSamples * view.height)
            RowParallel.run(rows: view.height, bands: bands) { _, rows in
                for y in rows {
                    let s = view.sourceRow(y), d = view.destinationRow(y)
                    for x in 0..<view.width {
                        let from = (view.width - 1 - x) * view.step
                        for c in 0..<view.channels { d[x * view.step + c] = s[from + c] }
                    }
                }
            }
        }
    }

    static func flip(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let input = context.unaliased(source, destination)
        for index in input.planes.indices {
            let rows = input.rows(plane: index), bytes = input.rowBytes(plane: index)
            let s = input.planes[index], d = destination.planes[index]
            for row in 0..<rows {
                (d.base + row * d.stride).copyMemory(from: s.base + (rows - 1 - row) * s.stride, byteCount: bytes)
            }
        }
    }
}
