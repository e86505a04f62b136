/// Sobel magnitude of luma, written as grey: R = G = B (alpha kept) or Y with neutral chroma.
///
/// The luma plane is built in scratch first, so the gradient loop runs over contiguous bytes with
/// edges extended, and in-place processing is safe.
enum EdgesKernel {
    static func run(_ source: Frame, _ destination: Frame, _ context: SpatialContext) {
        let w = source.width, h = source.height
        let bands = context.bands(rows: h, samples: w * h)
        let luma = context.scratch.buffer(SpatialContext.Slot.planeA.rawValue, bytes: w * h).assumingMemoryBound(to: UInt8.self)
        let magnitudes = context.perBand(.rowA, bands: bands, bytes: w)
        let yOffset: Int
        if source.format.isRGB {
            yOffset = 0
            let k = source.color.lumaCoefficients
            let kr = Int32((k.r * 65536).rounded()), kb = Int32((k.b * 65536).rounded()), kg = 65536 - kr - kb
            let o = source.format.rgbOffsets
            RowParallel.run(rows: h, bands: bands) { _, rows in
                for y in rows {
                    let s = (source.planes[0].base + y * source.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                    let l = luma + y * w
                    for x in 0..<w {
                        let sum = kr &* Int32(s[4 * x + o.r]) &+ kg &* Int32(s[4 * x + o.g]) &+ kb &* Int32(s[4 * x + o.b])
                        l[x] = UInt8(truncatingIfNeeded: (sum &+ 32768) &>> 16)
                    }
                }
            }
        } else {
            yOffset = Int(source.color.lumaQuantization.offset)
            let view = ChannelView.views(source: source, destination: destination)[0]
            for y in 0..<h { view.gather(row: y, into: luma + y * w) }
        }
        RowParallel.run(rows: h, bands: bands) { band, rows in
            let m = (magnitudes.base + band * magnitudes.stride).assumingMemoryBound(to: UInt8.self)
            for y in rows {
                let above = luma + max(y - 1, 0) * w, here = luma + y * w, below = luma + min(y + 1, h - 1) * w
                for x in 0..<w {
                    let l = max(x - 1, 0), r = min(x + 1, w - 1)
                    let gx = Int32(above[r]) &+ 2 &* Int32(here[r]) &+ Int32(below[r])
                        &- Int32(above[l]) &- 2 &* Int32(here[l]) &- Int32(below[l])
                    let gy = Int32(below[l]) &+ 2 &* Int32(below[x]) &+ Int32(below[r])
                        &- Int32(above[l]) &- 2 &* Int32(above[x]) &- Int32(above[r])
                    let magnitude = Float(gx &* gx &+ gy &* gy).squareRoot() + Float(yOffset)
                    m[x] = clampByte(magnitude)
                }
                if source.format.isRGB {
                    let s = (source.planes[0].base + y * source.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                    let d = (destination.planes[0].base + y * destination.planes[0].stride).assumingMemoryBound(to: UInt8.self)
                    let o = source.format.rgbOffsets
                    for x in 0..<w {
                        let alpha = s[4 * x + o.a]
                        d[4 * x + o.r] = m[x]; d[4 * x + o.g] = m[x]; d[4 * x + o.b] = m[x]; d[4 * x + o.a] = alpha
                    }
                } else if let layout = YUVLayout(source.format) {
                    let d = layout.row(layout.y, destination, y)
                    for x in 0..<w { d[x * layout.y.step] = m[x] }
                }
            }
        }
        if let layout = YUVLayout(source.format) {
            let cw = layout.chromaWidth(w)
            for row in 0..<layout.chromaHeight(h) {
                let u = layout.row(layout.u, destination, row), v = layout.row(layout.v, destination, row)
                for x in 0..<cw {
                    u[x * layout.u.step] = 128
                    v[x * layout.v.step] = 128
                }
            }
        }
    }
}
