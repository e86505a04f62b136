/// Where Y, U and V samples live for each Y'CbCr format: plane, byte offset and byte step.
struct YUVLayout {
    /// A component's plane, the byte offset of its first sample in a row, and the bytes from one sample to the next.
    struct Component {
        var plane, offset, step: Int

        init(_ plane: Int, _ offset: Int, _ step: Int) { (self.plane, self.offset, self.step) = (plane, offset, step) }
    }

    var y, u, v: Component
    /// Luma rows per chroma row: 2 for 4:2:0, 1 for 4:2:2.
    var verticalSubsampling: Int

    init?(_ format: PixelFormat) {
        switch format {
        case .i420: (y, u, v, verticalSubsampling) = (Component(0, 0, 1), Component(1, 0, 1), Component(2, 0, 1), 2)
        case .nv12: (y, u, v, verticalSubsampling) = (Component(0, 0, 1), Component(1, 0, 2), Component(1, 1, 2), 2)
        case .yuy2: (y, u, v, verticalSubsampling) = (Component(0, 0, 2), Component(0, 1, 4), Component(0, 3, 4), 1)
        default:
            return nil
        }
    }

    func chromaWidth(_ width: Int) -> Int { (width + 1) / 2 }
    func chromaHeight(_ height: Int) -> Int { (height + verticalSubsampling - 1) / verticalSubsampling }

    /// First byte of component `c` in row `row` of its plane.
    @inline(__always)
    func row(_ c: Component, _ frame: Frame, _ row: Int) -> UnsafeMutablePointer<UInt8> {
        let plane = frame.planes[c.plane]
        return (plane.base + row * plane.stride + c.offset).assumingMemoryBound(to: UInt8.self)
    }
}
