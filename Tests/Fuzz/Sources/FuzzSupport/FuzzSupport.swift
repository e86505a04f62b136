#if canImport(Glibc)
import Glibc
#endif

// What every fuzz target shares: reading the input and stopping on a broken property.

/// The input as bytes; libFuzzer may pass a null pointer for the empty input.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The input as text; bytes that are not UTF-8 become U+FFFD, as a file or socket read would make them.
public func fuzzText(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
    String(decoding: fuzzBytes(data, size), as: UTF8.self)
}

/// Stops the run when a property does not hold. libFuzzer reports the abort as a crash and writes the
/// input to `crash-…`; the message says which property broke.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    let text = Array("\nPROPERTY VIOLATED: \(message())\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// One line: no line feed, carriage return, vertical tab, form feed, NEL, line or paragraph separator.
public func isOneLine(_ text: String) -> Bool {
    !text.unicodeScalars.contains { isLineBreak($0) }
}

/// Whether the scalar ends a line anywhere text is shown (Unicode's mandatory breaks).
public func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: true
    default: false
    }
}

/// The text as Swift would write it in a literal, for messages about odd input.
public func shown(_ text: String) -> String {
    text.debugDescription
}

/// Reads structured values out of the fuzz input, front to back; past the end every read gives 0 or "".
public struct FuzzReader {
    private let bytes: [UInt8]
    private var index = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A little-endian integer from the next `count` bytes (at most 8), sign-extended.
    public mutating func integer(bytes count: Int) -> Int {
        var value: UInt64 = 0
        for shift in 0..<count { value |= UInt64(byte()) << (8 * UInt64(shift)) }
        let unused = UInt64(64 - 8 * count)
        return Int(truncatingIfNeeded: Int64(bitPattern: value << unused) >> Int64(unused))
    }

    /// Text up to the next NUL byte (which is consumed) or the end.
    public mutating func string() -> String {
        var field: [UInt8] = []
        while index < bytes.count {
            let next = bytes[index]
            index += 1
            if next == 0 { break }
            field.append(next)
        }
        return String(decoding: field, as: UTF8.self)
    }

    /// Everything not read yet, as text.
    public mutating func rest() -> String {
        defer { index = bytes.count }
        return String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self)
    }
}
