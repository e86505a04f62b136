#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Applies an Adobe `.cube` 3D LUT with trilinear interpolation.
///
/// The file is read and parsed when the filter is created, so a bad file fails at parse time with
/// its path and line. On Y'CbCr the LUT is resampled once into a Y'CbCr-domain cube.
public struct Lut: Filter, Equatable {
    /// The path the table was read from (empty for an in-memory cube).
    public let file: String
    /// The parsed table.
    public let cube: Cube3D

    /// Reads and parses `file`.
    public init(file: String) throws(FilterSpecError) {
        self.file = file
        self.cube = try Cube3D.parse(Self.read(file), path: file)
    }

    /// Uses an in-memory cube; `file` only names it in the text form.
    public init(cube: Cube3D, file: String = "") {
        self.file = file
        self.cube = cube
    }

    /// The filter's name, summary and keys.
    /// The `file` key: the path of the table.
    public static let file = FileParameter("file", "path of the .cube file (required)")
    /// The filter's name, summary and keys.
    public static let info = FilterInfo(name: "lut", summary: "Adobe .cube 3D LUT, trilinear", parameters: [file])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) throws(FilterSpecError) {
        let path = arguments[Self.file]
        guard !path.isEmpty else {
            throw .missingArgument(filter: "lut", key: "file", position: arguments.position)
        }
        try self.init(file: path)
    }

    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [Self.file.value(file)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.lut3D(cube)) }

    /// Equal when every stored property is equal.
    public static func == (a: Lut, b: Lut) -> Bool { a.file == b.file && a.cube == b.cube }

    /// True when `other` is a LUT with the same file and table.
    public func isEqual(to other: any Filter) -> Bool {
        guard let other = other as? Lut else { return false }
        return self == other
    }

    /// The whole file as UTF-8 text; any failure becomes `badLutFile` at line 0.
    ///
    /// Only a regular file of at most 256 MB is read: a FIFO would block the caller (a control command, a
    /// property setter) until someone writes to it, and `/dev/zero` would be read until the size limit.
    static func read(_ path: String) throws(FilterSpecError) -> String {
        // O_NONBLOCK: opening a FIFO with no writer returns at once, and fstat says what it is.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .badLutFile(path: path, line: 0, reason: "cannot open the file (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .badLutFile(path: path, line: 0, reason: "cannot read the file (\(String(cString: strerror(errno))))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file (a device, a FIFO or a socket)"
            throw .badLutFile(path: path, line: 0, reason: "it is \(kind); give the path of a .cube file")
        }
        // A LUT of size 256 is about 200 MB of text; anything larger is not a cube file.
        let limit = 256 << 20
        guard status.st_size <= limit else {
            throw .badLutFile(path: path, line: 0, reason: "file is larger than 256 MB")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .badLutFile(path: path, line: 0, reason: "read error (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            // The file may grow while it is read.
            if bytes.count > limit { throw .badLutFile(path: path, line: 0, reason: "file is larger than 256 MB") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
