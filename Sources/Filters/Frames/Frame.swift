/// One plane of a frame: where its first row starts and how many bytes apart its rows are.
///
/// Non-owning: the memory belongs to whoever made the frame (a mapped GStreamer buffer, a test).
public struct Plane {
    /// Address of the first byte of the first row.
    public var base: UnsafeMutableRawPointer
    /// Bytes from the start of one row to the start of the next; may exceed the visible row.
    public var stride: Int

    /// Creates a plane view.
    public init(base: UnsafeMutableRawPointer, stride: Int) {
        self.base = base
        self.stride = stride
    }
}

/// A non-owning view of one video frame: format, size, colour description and 1–3 planes.
///
/// The view is only valid while the memory it points at is; filters never keep it.
public struct Frame {
    /// The pixel layout.
    public var format: PixelFormat
    /// Visible width in pixels.
    public var width: Int
    /// Visible height in pixels.
    public var height: Int
    /// The planes, `format.planeCount` of them.
    public var planes: [Plane]
    /// Colour matrix and range; for RGB formats only the matrix's luma coefficients are used.
    public var color: ColorDescription

    /// Creates a frame view; `validate()` (called by every `process`) checks it against the format.
    public init(format: PixelFormat, width: Int, height: Int, planes: [Plane], color: ColorDescription = .bt601Limited) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.color = color
    }

    /// Visible bytes per row of plane `index` (chroma rounds up for odd widths).
    public func rowBytes(plane index: Int) -> Int { format.rowBytes(plane: index, width: width) }

    /// Rows of plane `index` (4:2:0 chroma rounds up for odd heights).
    public func rows(plane index: Int) -> Int { format.rows(plane: index, height: height) }

    /// Checks the size, plane count and strides, so kernels can trust them.
    public func validate() throws(FrameError) {
        guard width > 0, height > 0 else { throw .badSize(width: width, height: height) }
        // Keeps every offset computation far from Int overflow.
        guard width <= 1 << 15, height <= 1 << 15 else { throw .badSize(width: width, height: height) }
        guard planes.count == format.planeCount else {
            throw .planeCount(format: format, expected: format.planeCount, actual: planes.count)
        }
        for index in planes.indices where planes[index].stride < rowBytes(plane: index) {
            throw .strideTooSmall(plane: index, stride: planes[index].stride, minimum: rowBytes(plane: index))
        }
    }
}

/// Why a frame cannot be processed.
public enum FrameError: Error, Equatable, CustomStringConvertible {
    /// Width or height is not in 1...32768.
    case badSize(width: Int, height: Int)
    /// The frame has the wrong number of planes for its format.
    case planeCount(format: PixelFormat, expected: Int, actual: Int)
    /// A plane's stride is shorter than its visible row.
    case strideTooSmall(plane: Int, stride: Int, minimum: Int)
    /// Source and destination differ in format or size.
    case mismatch(source: String, destination: String)

    /// One sentence saying what is wrong and what is expected.
    public var description: String {
        switch self {
        case let .badSize(width, height): "Frame size \(width)x\(height) is invalid; width and height must be in 1...32768."
        case let .planeCount(format, expected, actual): "A \(format.gstName) frame needs \(expected) plane(s) but \(actual) were given."
        case let .strideTooSmall(plane, stride, minimum):
            "Plane \(plane) has stride \(stride) but its visible row needs at least \(minimum) bytes."
        case let .mismatch(source, destination): "Source (\(source)) and destination (\(destination)) must have the same format and size."
        }
    }
}
