/// Why a text is not a JSON document `JSONValue.parse` accepts.
public enum JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not JSON: what was expected, and where (1-based line and column, in bytes).
    case syntax(line: Int, column: Int, reason: String)
    /// A key given twice in one object (JSON parsers keep one silently): its path, `sources[1].pattern`.
    case duplicateKey(path: String)

    public var description: String {
        switch self {
        case let .syntax(line, column, reason): "line \(line), column \(column): \(reason)"
        case let .duplicateKey(path): "\(path) is given twice in one object"
        }
    }
}

extension JSONValue {
    /// How deep arrays and objects may nest: deeper input is refused, not followed down the stack.
    public static let maximumDepth = 256

    /// Parses one JSON value (any kind at the top, whitespace around it), refusing a key given twice.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes))
        return try parser.document()
    }

    /// Parses JSON text.
    public static func parse(_ text: String) throws(JSONError) -> JSONValue { try parse(Array(text.utf8)) }
}

/// A recursive-descent reader of RFC 8259 JSON over UTF-8 bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try value(path: "", depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected \(describeNext()) after the value") }
        return value
    }

    private mutating func value(path: String, depth: Int) throws(JSONError) -> JSONValue {
        guard depth < JSONValue.maximumDepth else { throw failure("nested more than \(JSONValue.maximumDepth) deep") }
        guard index < bytes.count else { throw failure("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(path: path, depth: depth)
        case UInt8(ascii: "["): return try array(path: path, depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(describeNext()), expected a value")
        }
    }

    private mutating func object(path: String, depth: Int) throws(JSONError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeNext()), expected a key in quotes")
            }
            let key = try string()
            let memberPath = path.isEmpty ? key : "\(path).\(key)"
            guard members[key] == nil else { throw .duplicateKey(path: memberPath) }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure("unexpected \(describeNext()), expected ':' after a key") }
            skipWhitespace()
            members[key] = try value(path: memberPath, depth: depth + 1)
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return .object(members) }
            guard consume(UInt8(ascii: ",")) else { throw failure("unexpected \(describeNext()), expected ',' or '}'") }
        }
    }

    private mutating func array(path: String, depth: Int) throws(JSONError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(path: "\(path)[\(elements.count)]", depth: depth + 1))
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .array(elements) }
            guard consume(UInt8(ascii: ",")) else { throw failure("unexpected \(describeNext()), expected ',' or ']'") }
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw failure("unexpected \(describeNext()), expected \(word)") }
            index += 1
        }
        return value
    }

    private mutating func number() throws(JSONError) -> JSONValue {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            // A leading zero stands alone: 01 is not JSON.
        } else {
            guard digits() > 0 else { throw failure("a number needs a digit after '-'") }
        }
        if consume(UInt8(ascii: ".")) {
            guard digits() > 0 else { throw failure("a number needs a digit after '.'") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            guard digits() > 0 else { throw failure("a number needs a digit in its exponent") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func string() throws(JSONError) -> String {
        let open = index
        index += 1
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else {
                index = open
                throw failure("a string that never ends")
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let decoded = String(validating: text, as: UTF8.self) else {
                    index = open
                    throw failure("a string that is not UTF-8")
                }
                return decoded
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &text)
            case 0..<0x20:
                throw failure("a control character in a string (write it escaped, e.g. \\n)")
            default:
                text.append(byte)
                index += 1
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(JSONError) {
        guard index < bytes.count else { throw failure("a string that never ends") }
        let byte = bytes[index]
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09
        ]
        if let replacement = simple[byte] {
            text.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw failure("an unknown escape '\\\(Character(Unicode.Scalar(byte)))'") }
        var code = try hex4()
        if (0xD800..<0xDC00).contains(code) {
            // A high surrogate must be followed by its low half.
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone surrogate \\u\(String(code, radix: 16))")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate \\u\(String(code, radix: 16))") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("a lone surrogate \\u\(String(code, radix: 16))") }
        text.append(contentsOf: String(Character(scalar)).utf8)
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
            bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw failure("\\u needs four hexadecimal digits") }
        index += 4
        return code
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func describeNext() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        return (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// A syntax error at the current byte.
    private func failure(_ reason: String) -> JSONError {
        let before = bytes[..<min(index, bytes.count)]
        let line = before.count { $0 == 0x0A } + 1
        let column = index - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return .syntax(line: line, column: column, reason: reason)
    }
}
