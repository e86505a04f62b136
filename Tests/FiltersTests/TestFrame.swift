@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

/// An owned frame with a canary border: one canary row above and below each plane and
/// `padding` canary bytes after each visible row, so any stray write is detected.
final class TestFrame {
    static let canary: UInt8 = 0xA5

    let format: PixelFormat
    let width: Int
    let height: Int
    let color: ColorDescription
    private var allocations: [(pointer: UnsafeMutableRawPointer, bytes: Int)] = []
    private(set) var planes: [Plane] = []

    init(_ format: PixelFormat, _ width: Int, _ height: Int, color: ColorDescription = .bt601Limited, padding: Int = 64) {
        self.format = format
        self.width = width
        self.height = height
        self.color = color
        for index in 0..<format.planeCount {
            let stride = format.rowBytes(plane: index, width: width) + padding
            let bytes = stride * (format.rows(plane: index, height: height) + 2)
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
            pointer.initializeMemory(as: UInt8.self, repeating: Self.canary, count: bytes)
            allocations.append((pointer, bytes))
            planes.append(Plane(base: pointer + stride, stride: stride))
        }
    }

    deinit {
        for allocation in allocations { allocation.pointer.deallocate() }
    }

    var frame: Frame { Frame(format: format, width: width, height: height, planes: planes, color: color) }

    func byte(_ plane: Int, _ offset: Int, _ row: Int) -> UInt8 {
        planes[plane].base.load(fromByteOffset: row * planes[plane].stride + offset, as: UInt8.self)
    }

    func setByte(_ plane: Int, _ offset: Int, _ row: Int, _ value: UInt8) {
        planes[plane].base.storeBytes(of: value, toByteOffset: row * planes[plane].stride + offset, as: UInt8.self)
    }

    /// True when every byte outside the visible rows is still the canary (memcmp per row: fast in debug builds).
    var canariesIntact: Bool {
        for (index, allocation) in allocations.enumerated() {
            let stride = planes[index].stride
            let visible = format.rowBytes(plane: index, width: width)
            let rows = format.rows(plane: index, height: height)
            let reference = [UInt8](repeating: Self.canary, count: stride)
            let intact = reference.withUnsafeBytes { canaries -> Bool in
                let base = allocation.pointer
                if memcmp(base, canaries.baseAddress!, stride) != 0 { return false }
                if memcmp(base + (rows + 1) * stride, canaries.baseAddress!, stride) != 0 { return false }
                for row in 1...rows where memcmp(base + row * stride + visible, canaries.baseAddress!, stride - visible) != 0 {
                    return false
                }
                return true
            }
            if !intact { return false }
        }
        return true
    }

    /// All image bytes, plane after plane, for exact comparisons. The unused last Y of an
    /// odd-width YUY2 row is not part of the image and is left out.
    var visibleBytes: [UInt8] {
        var out: [UInt8] = []
        for index in planes.indices {
            for row in 0..<format.rows(plane: index, height: height) {
                let bytes = UnsafeRawBufferPointer(
                    start: planes[index].base + row * planes[index].stride,
                    count: format.rowBytes(plane: index, width: width))
                if format == .yuy2 && width % 2 == 1 {
                    out.append(contentsOf: bytes[0..<(2 * width)])
                    out.append(bytes[2 * width + 1])
                } else {
                    out.append(contentsOf: bytes)
                }
            }
        }
        return out
    }

    /// A short description of where two frames' image bytes first differ, or nil when equal.
    func difference(from other: TestFrame) -> String? {
        let a = visibleBytes, b = other.visibleBytes
        let same =
            a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
        guard !same else { return nil }
        let index = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? b.count
        return
            "first difference at image byte \(index) of \(a.count): \(index < a.count ? Int(a[index]) : -1) vs \(index < b.count ? Int(b[index]) : -1)"
    }

    // MARK: RGB access

    func setRGB(_ x: Int, _ y: Int, _ rgb: (Int, Int, Int), alpha: UInt8 = 200) {
        let o = format.rgbOffsets
        setByte(0, 4 * x + o.r, y, UInt8(rgb.0))
        setByte(0, 4 * x + o.g, y, UInt8(rgb.1))
        setByte(0, 4 * x + o.b, y, UInt8(rgb.2))
        setByte(0, 4 * x + o.a, y, alpha)
    }

    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let o = format.rgbOffsets
        return (Int(byte(0, 4 * x + o.r, y)), Int(byte(0, 4 * x + o.g, y)), Int(byte(0, 4 * x + o.b, y)))
    }

    func alpha(_ x: Int, _ y: Int) -> UInt8 { byte(0, 4 * x + format.rgbOffsets.a, y) }

    // MARK: YUV access

    private var layout: YUVLayout { YUVLayout(format)! }

    func y(_ x: Int, _ row: Int) -> Int { Int(byte(layout.y.plane, layout.y.offset + x * layout.y.step, row)) }
    func u(_ cx: Int, _ crow: Int) -> Int { Int(byte(layout.u.plane, layout.u.offset + cx * layout.u.step, crow)) }
    func v(_ cx: Int, _ crow: Int) -> Int { Int(byte(layout.v.plane, layout.v.offset + cx * layout.v.step, crow)) }
    func setY(_ x: Int, _ row: Int, _ value: Int) { setByte(layout.y.plane, layout.y.offset + x * layout.y.step, row, UInt8(value)) }
    func setU(_ cx: Int, _ crow: Int, _ value: Int) { setByte(layout.u.plane, layout.u.offset + cx * layout.u.step, crow, UInt8(value)) }
    func setV(_ cx: Int, _ crow: Int, _ value: Int) { setByte(layout.v.plane, layout.v.offset + cx * layout.v.step, crow, UInt8(value)) }
    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { layout.chromaHeight(height) }
    var verticalSubsampling: Int { layout.verticalSubsampling }

    /// Fills every visible byte from `value(plane, offset, row)`.
    /// (Per byte: slow in debug builds for big frames, so large tests use `fillPattern`.)
    func fill(_ value: (Int, Int, Int) -> UInt8) {
        for index in planes.indices {
            for row in 0..<format.rows(plane: index, height: height) {
                for offset in 0..<format.rowBytes(plane: index, width: width) { setByte(index, offset, row, value(index, offset, row)) }
            }
        }
    }

    /// A same-format copy with a different padding, for source → destination tests.
    func copy(padding: Int = 64) -> TestFrame {
        let other = TestFrame(format, width, height, color: color, padding: padding)
        for index in planes.indices {
            for row in 0..<format.rows(plane: index, height: height) {
                (other.planes[index].base + row * other.planes[index].stride)
                    .copyMemory(
                        from: planes[index].base + row * planes[index].stride, byteCount: format.rowBytes(plane: index, width: width))
            }
        }
        return other
    }

    /// Fills with a fixed pseudo-random pattern, a row at a time.
    func fillPattern(seed: UInt64 = 7) {
        var rng = SeededGenerator(seed: seed)
        for index in planes.indices {
            let bytes = format.rowBytes(plane: index, width: width)
            var row = [UInt8](repeating: 0, count: bytes)
            for y in 0..<format.rows(plane: index, height: height) {
                row.withUnsafeMutableBytes { buffer in
                    var offset = 0
                    while offset < bytes {
                        var word = rng.next()
                        let count = min(8, bytes - offset)
                        withUnsafeBytes(of: &word) {
                            buffer.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: count)
                        }
                        offset += count
                    }
                    (planes[index].base + y * planes[index].stride).copyMemory(from: buffer.baseAddress!, byteCount: bytes)
                }
            }
        }
    }

    // MARK: Conversions written independently of the engine (Double math, textbook formulas)

    /// Sets pixels from an RGB function; YUV chroma is the average of the chroma of the pixels it covers.
    func paint(_ rgb: (Int, Int) -> (Int, Int, Int)) {
        if format.isRGB {
            for y in 0..<height { for x in 0..<width { setRGB(x, y, rgb(x, y)) } }
            return
        }
        let k = color.lumaCoefficients
        let q = color.lumaQuantization, cs = color.chromaScale
        func ycc(_ p: (Int, Int, Int)) -> (Double, Double, Double) {
            let r = Double(p.0) / 255, g = Double(p.1) / 255, b = Double(p.2) / 255
            let yy = k.r * r + k.g * g + k.b * b
            return (yy, (b - yy) / (2 * (1 - k.b)), (r - yy) / (2 * (1 - k.r)))
        }
        for row in 0..<height {
            for x in 0..<width { setY(x, row, Int(clampByte(q.offset + q.scale * ycc(rgb(x, row)).0))) }
        }
        let sub = verticalSubsampling
        for crow in 0..<chromaHeight {
            for cx in 0..<chromaWidth {
                var cb = 0.0, cr = 0.0, n = 0.0
                for row in (crow * sub)..<min(crow * sub + sub, height) {
                    for x in (2 * cx)..<min(2 * cx + 2, width) {
                        let c = ycc(rgb(x, row)); cb += c.1; cr += c.2; n += 1
                    }
                }
                setU(cx, crow, Int(clampByte(128 + cs * cb / n)))
                setV(cx, crow, Int(clampByte(128 + cs * cr / n)))
            }
        }
    }

    /// The RGB of pixel (x, y): direct for RGB formats, textbook Y'CbCr → R'G'B' (nearest chroma) for YUV.
    func toRGB(_ x: Int, _ row: Int) -> (Double, Double, Double) {
        if format.isRGB {
            let p = rgb(x, row)
            return (Double(p.0), Double(p.1), Double(p.2))
        }
        let k = color.lumaCoefficients
        let q = color.lumaQuantization, cs = color.chromaScale
        let yy = (Double(y(x, row)) - q.offset) / q.scale
        let cb = (Double(u(x / 2, row / verticalSubsampling)) - 128) / cs
        let cr = (Double(v(x / 2, row / verticalSubsampling)) - 128) / cs
        let r = yy + 2 * (1 - k.r) * cr, b = yy + 2 * (1 - k.b) * cb
        let g = (yy - k.r * r - k.b * b) / k.g
        return (255 * min(max(r, 0), 1), 255 * min(max(g, 0), 1), 255 * min(max(b, 0), 1))
    }
}

/// SplitMix64: small, seeded and the same on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Writes `text` to a file under /tmp and returns its path; tests running in parallel must use distinct names.
func temporaryFile(_ name: String, _ text: String) -> String {
    // A random part too: parameterized cases run in parallel and may pick the same name.
    let path = "/tmp/filters-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
    if let handle = fopen(path, "wb") {
        _ = text.withCString { fputs($0, handle) }
        fclose(handle)
    }
    return path
}

/// The text of an identity `.cube` of `size` points per axis.
func identityCubeText(size: Int) -> String {
    var lines = ["TITLE \"identity\"", "# generated by the tests", "LUT_3D_SIZE \(size)"]
    for b in 0..<size {
        for g in 0..<size {
            for r in 0..<size {
                let s = Double(size - 1)
                lines.append("\(Double(r) / s) \(Double(g) / s) \(Double(b) / s)")
            }
        }
    }
    return lines.joined(separator: "\n") + "\n"
}
