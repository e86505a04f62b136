import Filters
import FuzzSupport

// The `.cube` reader (`Cube3D.parse`): any text is either refused with `badLutFile` naming the file, a line
// of the text and a one-line reason, or parsed into a full table that then filters a frame (of a format
// picked by the input) without trapping.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCube(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    let cube: Cube3D
    do {
        cube = try Cube3D.parse(text, path: "fuzz.cube")
    } catch {
        guard case let .badLutFile(path, line, reason) = error else {
            require(false, "\(shown(text)) is refused with \(error), not badLutFile")
            return 0
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        require(path == "fuzz.cube", "the error names \(shown(path)), not fuzz.cube")
        require((0...lines).contains(line), "line \(line) of a \(lines)-line file")
        require(!reason.isEmpty && isOneLine(error.description), "the reason is not one line: \(shown(error.description))")
        return 0
    }
    require(cube.table.count == cube.size * cube.size * cube.size * 3, "size \(cube.size) with \(cube.table.count) values")
    let format = PixelFormat.allCases[bytes.reduce(0) { $0 &+ Int($1) } % PixelFormat.allCases.count]
    filterOneFrame(FilterChain([Lut(cube: cube, file: "fuzz.cube")]), format: format)
    return 0
}

/// Runs the chain over a 5×3 frame (odd sizes round chroma up) holding a ramp, in place.
private func filterOneFrame(_ chain: FilterChain, format: PixelFormat) {
    let width = 5, height = 3
    var buffers: [UnsafeMutableRawPointer] = []
    var planes: [Plane] = []
    for plane in 0..<format.planeCount {
        let stride = format.rowBytes(plane: plane, width: width) + 3
        let count = stride * format.rows(plane: plane, height: height)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        for offset in 0..<count { buffer.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 37), toByteOffset: offset, as: UInt8.self) }
        buffers.append(buffer)
        planes.append(Plane(base: buffer, stride: stride))
    }
    defer { buffers.forEach { $0.deallocate() } }
    do {
        try chain.compile(threads: 1).process(Frame(format: format, width: width, height: height, planes: planes))
    } catch {
        require(false, "a parsed cube does not filter a \(format) frame: \(error)")
    }
}
