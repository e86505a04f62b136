/// Digital zoom: bilinear resampling of a 1/factor window around a normalized centre, per view.
///
/// Output pixel centre p maps to source `left + (p + 0.5)/factor − 0.5`, so factor 1 is an exact copy.
/// Weights are 8-bit fixed point; column tables live in scratch and are rebuilt per frame (cheap).
enum ZoomKernel {
    static func run(_ source: Frame, _ destination: Frame, factor: Double, x: Double, y: Double, _ context: SpatialContext) {
        guard factor > 1 + 1e-9 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        let input = context.unaliased(source, destination)
        for view in ChannelView.views(source: input, destination: destination) {
            resample(view, factor: factor, centreX: x, centreY: y, context)
        }
    }

    /// Source index and 8-bit weight of the next sample, for each output position of an axis.
    private static func axis(length: Int, factor: Double, centre: Double, into table: UnsafeMutablePointer<Int32>) {
        let window = Double(length) / factor
        let middle = min(max(centre * Double(length), window / 2), Double(length) - window / 2)
        let left = middle - window / 2
        for p in 0..<length {
            let s = min(max(left + (Double(p) + 0.5) / factor - 0.5, 0), Double(length - 1))
            let i = Int(s)
            table[2 * p] = Int32(i)
            table[2 * p + 1] = Int32(((s - Double(i)) * 256).rounded())
        }
    }

    private static func resample(_ view: ChannelView, factor: Double, centreX: Double, centreY: Double, _ context: SpatialContext) {
        let columns = context.scratch.buffer(SpatialContext.Slot.table.rawValue, bytes: view.width * 8).assumingMemoryBound(to: Int32.self)
        let rowTable = context.scratch.buffer(SpatialContext.Slot.table.rawValue + 1, bytes: view.height * 8).assumingMemoryBound(to: Int32.self)
        axis(length: view.width, factor: factor, centre: centreX, into: columns)
        axis(length: view.height, factor: factor, centre: centreY, into: rowTable)
        let bands = context.bands(rows: view.height, samples: view.rowSamples * view.height)
        RowParallel.run(rows: view.height, bands: bands) { _, rows in
            for y in rows {
                let y0 = Int(rowTable[2 * y]), wy = rowTable[2 * y + 1]
                let top = view.sourceRow(y0), bottom = view.sourceRow(min(y0 + 1, view.height - 1))
                let d = view.destinationRow(y)
                for x in 0..<view.width {
                    let x0 = Int(columns[2 * x]), wx = columns[2 * x + 1]
                    let a = x0 * view.step, b = min(x0 + 1, view.width - 1) * view.step
                    for c in 0..<view.channels {
                        let upper = Int32(top[a + c]) &* (256 &- wx) &+ Int32(top[b + c]) &* wx
                        let lower = Int32(bottom[a + c]) &* (256 &- wx) &+ Int32(bottom[b + c]) &* wx
                        d[x * view.step + c] = UInt8(truncatingIfNeeded: (upper &* (256 &- wy) &+ lower &* wy &+ 32768) &>> 16)
                    }
                }
            }
        }
    }
}
