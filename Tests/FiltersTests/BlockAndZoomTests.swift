import Testing

@testable import Filters

/// Pixelate (block sums) and zoom (separable bilinear) against direct per-pixel references, exactly.
@Suite struct BlockAndZoomTests {
    static func fill(_ frame: TestFrame, seed: UInt64) -> [[UInt8]] {
        var planes: [[UInt8]] = []
        for index in 0..<frame.format.planeCount {
            let rowBytes = frame.format.rowBytes(plane: index, width: frame.width),
                rows = frame.format.rows(plane: index, height: frame.height)
            let bytes = BoxCascadeTests.natural(width: rowBytes, height: rows, channels: 1, seed: seed + UInt64(index))
            BoxCascadeTests.write(bytes, to: frame, plane: index, rowBytes: rowBytes)
            planes.append(bytes)
        }
        return planes
    }

    /// (plane, channels, width, height, subsampling) of every view of a planar or RGB format.
    static func views(_ format: PixelFormat, _ w: Int, _ h: Int) -> [(Int, Int, Int, Int, Int)] {
        switch format {
        case .i420: [(0, 1, w, h, 1), (1, 1, (w + 1) / 2, (h + 1) / 2, 2), (2, 1, (w + 1) / 2, (h + 1) / 2, 2)]
        case .nv12: [(0, 1, w, h, 1), (1, 2, (w + 1) / 2, (h + 1) / 2, 2)]
        default: [(0, 4, w, h, 1)]
        }
    }

    @Test(arguments: [PixelFormat.rgba, .nv12, .i420], [1, 2])
    func pixelateIsTheRoundedBlockMean(format: PixelFormat, threads: Int) throws {
        let (w, h, size) = (403, 331, 7)
        let frame = TestFrame(format, w, h)
        let planes = Self.fill(frame, seed: 8)
        try FilterChain { Pixelate(size: size) }.compile(threads: threads).process(frame.frame)
        #expect(frame.canariesIntact)
        for (plane, ch, vw, vh, sub) in Self.views(format, w, h) {
            let b = (size + sub - 1) / sub
            let rowBytes = format.rowBytes(plane: plane, width: w)
            var wrong = 0
            for y in 0..<vh {
                for x in 0..<vw {
                    for c in 0..<ch {
                        let bx = x / b * b, by = y / b * b
                        var total = 0, count = 0
                        for yy in by..<min(by + b, vh) {
                            for xx in bx..<min(bx + b, vw) { total += Int(planes[plane][yy * rowBytes + xx * ch + c]); count += 1 }
                        }
                        if Int(frame.byte(plane, x * ch + c, y)) != (total + count / 2) / count { wrong += 1 }
                    }
                }
            }
            #expect(wrong == 0, "\(format) plane \(plane): \(wrong) samples differ")
        }
    }

    @Test(arguments: [PixelFormat.rgba, .nv12, .i420], [1, 2])
    func zoomIsTheBilinearOfTheWindow(format: PixelFormat, threads: Int) throws {
        // Inside the frame; against the right and bottom edges (the last taps clamp); barely zoomed; the most.
        for (factor, cx, cy) in [(2.7, 0.3, 0.8), (2.0, 1.0, 1.0), (1.05, 0.5, 0.0), (16.0, 0.9, 0.1)] {
            try expectBilinear(format: format, threads: threads, factor: factor, cx: cx, cy: cy)
        }
    }

    private func expectBilinear(format: PixelFormat, threads: Int, factor: Double, cx: Double, cy: Double) throws {
        let (w, h) = (401, 333)
        let frame = TestFrame(format, w, h)
        let planes = Self.fill(frame, seed: 9)
        try FilterChain { Zoom(factor: factor, x: cx, y: cy) }.compile(threads: threads).process(frame.frame)
        #expect(frame.canariesIntact)
        func taps(_ length: Int, _ centre: Double) -> [(Int, Int)] {
            let window = Double(length) / factor
            let middle = min(max(centre * Double(length), window / 2), Double(length) - window / 2)
            return (0..<length).map { p in
                let s = min(max(middle - window / 2 + (Double(p) + 0.5) / factor - 0.5, 0), Double(length - 1))
                return (Int(s), Int(((s - Double(Int(s))) * 256).rounded()))
            }
        }
        for (plane, ch, vw, vh, _) in Self.views(format, w, h) {
            let rowBytes = format.rowBytes(plane: plane, width: w)
            let xs = taps(vw, cx), ys = taps(vh, cy)
            var wrong = 0
            for y in 0..<vh {
                let (y0, wy) = ys[y], y1 = min(y0 + 1, vh - 1)
                for x in 0..<vw {
                    let (x0, wx) = xs[x], x1 = min(x0 + 1, vw - 1)
                    for c in 0..<ch {
                        func s(_ xx: Int, _ yy: Int) -> Int { Int(planes[plane][yy * rowBytes + xx * ch + c]) }
                        let upper = s(x0, y0) * (256 - wx) + s(x1, y0) * wx, lower = s(x0, y1) * (256 - wx) + s(x1, y1) * wx
                        if Int(frame.byte(plane, x * ch + c, y)) != (upper * (256 - wy) + lower * wy + 32768) >> 16 { wrong += 1 }
                    }
                }
            }
            #expect(wrong == 0, "\(format) plane \(plane), zoom \(factor) at (\(cx), \(cy)): \(wrong) samples differ")
        }
    }
}
