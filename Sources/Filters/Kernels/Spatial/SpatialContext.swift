/// What a spatial kernel needs besides pixels: scratch memory kept across frames, the thread count and the kernel set.
struct SpatialContext {
    let scratch: ScratchPool
    let threads: Int
    let kernels: KernelSet

    /// Scratch slot numbers: one range per purpose, one slot per band within it.
    enum Slot: Int {
        case planeA = 1_000
        case planeB = 2_000
        case rowA = 3_000
        case rowB = 4_000
        case rowC = 5_000
        case table = 6_000
        case copy = 7_000
    }

    /// `bytes` per band for `bands` bands, in one slot so the fetch happens before dispatch.
    func perBand(_ slot: Slot, bands: Int, bytes: Int) -> (base: UnsafeMutableRawPointer, stride: Int) {
        let stride = (bytes + 63) & ~63
        return (scratch.buffer(slot.rawValue, bytes: stride * bands), stride)
    }

    func bands(rows: Int, samples: Int) -> Int {
        RowParallel.bands(threads: threads, rows: rows, samples: samples)
    }

    /// `source` itself, or a copy of it in scratch when it is the same memory as `destination`,
    /// for kernels that read pixels other than the one they write.
    func unaliased(_ source: Frame, _ destination: Frame) -> Frame {
        guard
            source.isSameMemory(as: destination)
                || source.planes.contains(where: { p in destination.planes.contains { $0.base == p.base } })
        else {
            return source
        }
        var copy = source
        for index in source.planes.indices {
            let stride = (source.rowBytes(plane: index) + 63) & ~63
            let base = scratch.buffer(Slot.copy.rawValue + index, bytes: stride * source.rows(plane: index))
            copy.planes[index] = Plane(base: base, stride: stride)
        }
        source.copyPlanes(to: copy)
        return copy
    }
}
