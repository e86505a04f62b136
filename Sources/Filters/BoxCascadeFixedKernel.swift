/// Blur by the box cascade in 16-bit fixed point, for four-channel views (RGBA) where the window sums fit
/// 16 bits (`BoxCascadeFixedCore.fractionBits`: σ up to about 9.8, 5 fraction bits up to about 5.1); the float
/// cascade (`BoxCascadeKernel`) runs everywhere else. Same boxes, same layout: the horizontal pass takes four
/// rows a vector (16 lanes) and writes a plane of samples with f fraction bits, the vertical pass runs on
/// strips of 64 columns and writes bytes.
///
/// Accuracy (`BoxCascadeTests`): each pass rounds to 1/2^f of a level (at most one unit either way, none on
/// average), which keeps every byte within 2 of the exact Gaussian, as the float cascade is.
enum BoxCascadeFixedKernel {
    typealias Lanes = BoxCascadeFixedCore.Lanes

    /// The fixed-point form of a float box: weights ·2¹⁶ rounded down, the outer one taking what the inner
    /// ones leave, so a pass's gain on a constant is at most 1.
    static func box(_ box: BoxCascadeCore.Box) -> BoxCascadeFixedCore.Box {
        let inner = Int((Double(box.inner) * 65_536).rounded(.down))
        let outer = (65_536 - (2 * box.radius + 1) * inner) / 2
        return BoxCascadeFixedCore.Box(radius: box.radius, inner: UInt16(inner), outer: UInt16(outer), bias: UInt16(65_536 / inner))
    }

    /// Blurs `view` and returns true, or returns false (nothing written) where this kernel does not apply.
    static func run(_ view: ChannelView, horizontal: BoxCascadeCore.Box, vertical: BoxCascadeCore.Box, passes n: Int,
                    amount: Float?, _ context: SpatialContext) -> Bool {
        guard amount == nil, view.channels == 4, view.step == 4, n == 4,
              let f = BoxCascadeFixedCore.fractionBits(radius: max(horizontal.radius, vertical.radius)) else { return false }
        let hBox = box(horizontal), vBox = box(vertical)
        let samples = view.rowSamples
        let plane = context.scratch.buffer(SpatialContext.Slot.planeA.rawValue, bytes: samples * view.height * 2)
            .bindMemory(to: UInt16.self, capacity: samples * view.height)

        // Horizontal: four rows a vector, the last group repeating the last row.
        let groups = (view.height + 3) / 4
        let hPositions = view.width + 2 * n * (hBox.radius + 1)
        let hBands = context.bands(rows: groups, samples: samples * view.height)
        let hBuffers = context.perBand(.rowA, bands: hBands, bytes: hPositions * MemoryLayout<Lanes>.stride)
        RowParallel.run(rows: groups, bands: hBands) { band, range in
            let a = (hBuffers.base + band * hBuffers.stride).bindMemory(to: Lanes.self, capacity: hPositions)
            withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: 4) { rows in
                withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt16>.self, capacity: 4) { out in
                    for g in range {
                        for k in 0..<4 {
                            let y = min(4 * g + k, view.height - 1)
                            rows[k] = UnsafePointer(view.sourceRow(y))
                            out[k] = plane + y * samples
                        }
                        SIMDPath.boxFixedHorizontal(rows.baseAddress!, width: view.width, box: hBox, passes: n, fractionBits: f,
                                                    buffer: a, into: out.baseAddress!)
                    }
                }
            }
        }

        // Vertical: strips of 64 columns.
        let stripSamples = 16 * BoxCascadeFixedCore.stripGroups
        let strips = (samples + stripSamples - 1) / stripSamples
        let vPositions = view.height + 2 * n * (vBox.radius + 1)
        let vBands = context.bands(rows: strips, samples: samples * view.height)
        let vBuffers = context.perBand(.rowC, bands: vBands, bytes: vPositions * BoxCascadeFixedCore.stripGroups * MemoryLayout<Lanes>.stride)
        RowParallel.run(rows: strips, bands: vBands) { band, range in
            let a = (vBuffers.base + band * vBuffers.stride).bindMemory(to: Lanes.self, capacity: vPositions * BoxCascadeFixedCore.stripGroups)
            for strip in range {
                let x0 = strip * stripSamples
                SIMDPath.boxFixedVertical(plane + x0, rowStride: samples, count: min(stripSamples, samples - x0), rows: view.height,
                                          box: vBox, passes: n, fractionBits: f, buffer: a,
                                          into: view.destinationRow(0) + x0, rowBytes: view.destinationStride)
            }
        }
        return true
    }
}
