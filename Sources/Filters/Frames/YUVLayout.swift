/// Where Y, U and V samples live for each Y'CbCr format: plane, byte offset and byte step.
struct YUVLayout {
    struct Component {
        var plane: Int
        var offset: Int
        var step: Int
    }

    var y: Component
    var u: Component
    var v: Component
    /// Luma rows per chroma row: 2 for 4:2:0, 1 for 4:2:2.
    var verticalSubsampling: Int

    init?(_ format: PixelFormat) {
        switch format {
        case .i420:
            y = Component(plane: 0, offset: 0, step: 1)
            u = Component(plane: 1, offset: 0, step: 1)
            v = Component(plane: 2, offset: 0, step: 1)
            verticalSubsampling = 2
        case .nv12:
            y = Component(plane: 0, offset: 0, step: 1)
            u = Component(plane: 1, offset: 0, step: 2)
            v = Component(plane: 1, offset: 1, step: 2)
            verticalSubsampling = 2
        case .yuy2:
            y = Component(plane: 0, offset: 0, step: 2)
            u = Component(plane: 0, offset: 1, step: 4)
            v = Component(plane: 0, offset: 3, step: 4)
            verticalSubsampling = 1
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
