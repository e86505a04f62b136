/// Blur by the box cascade in 16-bit fixed point, for four-channel views (RGBA) and one-channel ones (luma, I420
/// chroma) where the window sums fit
/// 16 bits (`BoxCascadeFixedCore.fractionBits`: σ up to about 9.8, 5 fraction bits up to about 5.1); the float
/// cascade (`BoxCascadeKernel`) runs everywhere else. Same boxes, 16 lanes a vector (four rows of a pixel
/// horizontally, 16 columns vertically).
///
/// Layout: the frame is cut into panels of columns, each blurred on its own (`BoxCascadeFixedCore.panel`):
/// rows come from the horizontal pass a vector at a time (four RGBA rows, sixteen of one channel) into a ring of rows of the panel, which the vertical
/// pass sweeps as they arrive and leaves as bytes. A panel is as wide as keeps its ring in L2 (≈ 384 kB),
/// so the samples between the axes never go to memory; the price is the horizontal pass on passes·(r+1)
/// extra pixels each side of a panel. Integer sums are exact, so panels give the same bits as one sweep.
/// In place, only the pixels near the panels' boundaries are copied first, not the frame.
///
/// Accuracy (`BoxCascadeTests`): each pass rounds to 1/2^f of a level (at most one unit either way, none on
/// average), which keeps every byte within 1 of the float cascade.
enum BoxCascadeFixedKernel {
    typealias Lanes = BoxCascadeFixedCore.Lanes

    /// The fixed-point form of a float box: weights ·2¹⁶ rounded down, the outer one taking what the inner
    /// ones leave, so a pass's gain on a constant is at most 1.
    static func box(_ box: BoxCascadeCore.Box) -> BoxCascadeFixedCore.Box {
        let inner = Int((Double(box.inner) * 65_536).rounded(.down))
        let outer = (65_536 - (2 * box.radius + 1) * inner) / 2
        return BoxCascadeFixedCore.Box(radius: box.radius, inner: UInt16(inner), outer: UInt16(outer), bias: UInt16(65_536 / inner))
    }

    /// Bytes of ring a panel aims at: within the L2 of current x86 cores (512 kB–2 MB) beside the source and
    /// destination rows. Wider panels repeat less of the horizontal pass, so a ring this size beats a half-size one on
    /// a 1 MB L2 (docs/benchmarks.md's blur rows). A constant,
    /// not the L2 size from CPUID, so that callgrind (which reports a 256 kB L2) counts the code that runs.
    static let ringBudget = 384 * 1024

    /// Blurs `view` and returns true, or returns false (nothing written) where this kernel does not apply.
    static func run(
        _ view: ChannelView, horizontal: BoxCascadeCore.Box, vertical: BoxCascadeCore.Box, passes n: Int,
        amount: Float?, _ context: SpatialContext
    ) -> Bool {
        let ch = view.channels
        guard amount == nil, ch == 4 || ch == 1, view.step == ch, n == 4,
            let f = BoxCascadeFixedCore.fractionBits(radius: max(horizontal.radius, vertical.radius))
        else { return false }
        let hBox = box(horizontal), vBox = box(vertical)
        // Eight bytes a pixel in a ring row.
        let wanted = max(64, ringBudget / (BoxCascadeFixedCore.ringRows(vBox, passes: n, channels: ch) * 2 * ch) / 16 * 16)
        let bands = context.bands(rows: (view.width + 63) / 64, samples: view.rowSamples * view.height)
        // As many panels for each thread: a panel is one piece, and pieces are not split.
        var panels = max(bands, (view.width + wanted - 1) / wanted)
        panels = (panels + bands - 1) / bands * bands
        let panelWidth = ((view.width + panels - 1) / panels + 15) / 16 * 16
        panels = (view.width + panelWidth - 1) / panelWidth
        let scratch = context.perBand(
            .rowA, bands: bands,
            bytes: BoxCascadeFixedCore.panelBytes(
                count: panelWidth, channels: ch, horizontal: hBox,
                vertical: vBox, passes: n))
        // In place, a panel's horizontal pass would read pixels its neighbours have already written: the
        // pixels within reach of each boundary between panels (a panel is at least 64 wide, the reach at most
        // 32) are copied first, per boundary a strip of 2·reach pixels.
        let reach = n * (hBox.radius + 1), haloStride = 2 * ch * reach
        let rowBytes = ch * view.width
        let inPlace =
            view.sourceRow(0) < view.destinationRow(view.height - 1) + rowBytes
            && view.destinationRow(0) < view.sourceRow(view.height - 1) + rowBytes
        let halos: UnsafeMutablePointer<UInt8>? =
            inPlace && panels > 1
            ? context.scratch.buffer(SpatialContext.Slot.planeA.rawValue, bytes: (panels - 1) * view.height * haloStride)
                .assumingMemoryBound(to: UInt8.self)
            : nil
        /// The strip of boundary b (between panels b − 1 and b): column 0 is pixel b·panelWidth − reach.
        func halo(_ b: Int) -> UnsafeMutablePointer<UInt8>? { halos.map { $0 + (b - 1) * view.height * haloStride } }
        if halos != nil {
            for b in 1..<panels {
                let x = b * panelWidth, strip = halo(b)!
                for y in 0..<view.height {
                    (strip + y * haloStride).update(
                        from: view.sourceRow(y) + ch * (x - reach), count: ch * (reach + min(reach, view.width - x)))
                }
            }
        }
        RowParallel.run(rows: panels, bands: bands) { band, range in
            for panel in range {
                let x0 = panel * panelWidth
                context.kernels.table.boxFixedPanel(
                    source: view.source, sourceStride: view.sourceStride, destination: view.destination,
                    destinationStride: view.destinationStride,
                    left: panel > 0 ? halo(panel).map { UnsafePointer($0) } : nil,
                    right: panel + 1 < panels ? halo(panel + 1).map { UnsafePointer($0 + ch * reach) } : nil,
                    haloStride: haloStride, channels: ch, width: view.width, height: view.height,
                    from: x0, count: min(panelWidth, view.width - x0), horizontal: hBox, vertical: vBox, passes: n,
                    fractionBits: f, scratch: scratch.base + band * scratch.stride)
            }
        }
        return true
    }
}
