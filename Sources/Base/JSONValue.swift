/// A JSON document as a value: what configs, the API's bodies and the page's messages are before they are decoded,
/// and what replies are built from. Parsed by `JSONValue.parse` (which refuses a key given twice and says where a
/// syntax error is), written by `text` with sorted keys, so the same value always reads the same.
///
/// A number keeps the text it was written with (`1.50`, `1e3`): decoding it again gives exactly what its author wrote,
/// and whether it is a whole number is read from that text, not from a `Double` that rounded it.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number as written in JSON (`-12`, `0.5`, `1e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number, written the shortest way that reads back as `value` (`2`, `0.1`); a value JSON cannot hold (an
    /// infinity, NaN) is `null`.
    public static func number(_ value: Double) -> JSONValue {
        value.isFinite ? .number(value.shortText) : .null
    }

    /// A whole number.
    public static func number<Integer: BinaryInteger>(_ value: Integer) -> JSONValue { .number(String(value)) }

    // MARK: Reading

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    /// The members of an object.
    public var object: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }

    /// The elements of an array.
    public var array: [JSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// A string's text.
    public var string: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// A boolean (never a number: `1` is not `true`).
    public var bool: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// A number's value (never a boolean).
    public var double: Double? {
        if case let .number(text) = self { return Double(text) }
        return nil
    }

    /// A number that is whole and fits `Int` as a `Double` reads it (`3`, `3.0`, `3e2`; beyond 2⁵³ the nearest
    /// `Double`); nil for `1.5` or anything that is no number.
    public var int: Int? {
        guard let value = double, value == value.rounded(), abs(value) < 9.2e18 else { return nil }
        return Int(value)
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    // MARK: Writing

    /// The JSON text: compact, keys sorted, `/` not escaped.
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The JSON text as UTF-8 bytes.
    public var utf8: [UInt8] { Array(text.utf8) }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case let .bool(value): output += value ? "true" : "false"
        case let .number(text): output += text
        case let .string(text): Self.quote(text, into: &output)
        case let .array(elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case let .object(members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.quote(key, into: &output)
                output += ":"
                members[key]?.write(to: &output)
            }
            output += "}"
        }
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        quote(text, into: &output)
        return output
    }

    private static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// A Swift value as JSON, for replies assembled as `[String: Any]`: `Bool`, strings, integers, `Double` and
    /// `Float`, arrays and string-keyed dictionaries of those, `JSONValue` itself; nil (an empty `Optional`) and
    /// anything else is `null`. A Swift `Int` is never a `Bool` here (no Objective-C bridging on Linux).
    public init(any value: Any) {
        switch value {
        case let json as JSONValue: self = json
        case let flag as Bool: self = .bool(flag)
        case let text as String: self = .string(text)
        case let text as Substring: self = .string(String(text))
        case let number as Int: self = .number(number)
        case let number as Int64: self = .number(number)
        case let number as Int32: self = .number(number)
        case let number as UInt: self = .number(number)
        case let number as UInt64: self = .number(number)
        case let number as UInt32: self = .number(number)
        case let number as Double: self = .number(number)
        case let number as Float: self = .number(Double(number))
        case let members as [String: Any]: self = .object(members.mapValues { JSONValue(any: $0) })
        case let elements as [Any]: self = .array(elements.map { JSONValue(any: $0) })
        default: self = .null
        }
    }
}
