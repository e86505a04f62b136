/// A filter parameter declared once: its key, default, range, unit and one line of documentation.
///
/// A filter keeps each declaration as a static constant; its initializer clamps through it, its text arguments are
/// read through it, and its ``FilterInfo`` lists it, so the default and range are written in one place only.
public protocol ParameterDeclaration: Sendable {
    /// The type a filter stores the value in.
    associatedtype Value: Sendable
    /// The description `swiftcam filters`, the page and the parser read.
    var info: ParameterInfo { get }
    /// The value given for this key in `arguments`, clamped into range; the default when the key was left out.
    func value(in arguments: FilterArguments) -> Value
    /// The value as the grammar prints it.
    func value(_ value: Value) -> ParameterValue
}

/// A number type a ranged parameter holds: `Double` for ``NumberParameter``, `Int` for ``IntegerParameter``.
public protocol ParameterNumber: Comparable, Hashable, Sendable {
    /// The value as the grammar holds it.
    var parameterValue: ParameterValue { get }
    /// The allowed values as the catalog describes them.
    static func parameterKind(_ range: ClosedRange<Self>) -> ParameterKind
    /// A value from the grammar in this type; nil for text or a number this type cannot hold.
    init?(parameter value: ParameterValue)
}

extension Double: ParameterNumber {
    /// `.number(self)`.
    public var parameterValue: ParameterValue { .number(self) }
    /// `.number(range)`.
    public static func parameterKind(_ range: ClosedRange<Double>) -> ParameterKind { .number(range) }
    /// A number, or a whole number as a number.
    public init?(parameter value: ParameterValue) {
        switch value {
        case let .number(number): self = number
        case let .integer(integer): self = Double(integer)
        case .text: return nil
        }
    }
}

extension Int: ParameterNumber {
    /// `.integer(self)`.
    public var parameterValue: ParameterValue { .integer(self) }
    /// `.integer(range)`.
    public static func parameterKind(_ range: ClosedRange<Int>) -> ParameterKind { .integer(range) }
    /// A whole number, or a number read as `Double` of magnitude below 10⁹ truncated towards zero (so the conversion
    /// never traps).
    public init?(parameter value: ParameterValue) {
        if case let .integer(integer) = value {
            self = integer
            return
        }
        guard let number = Double(parameter: value), number.isFinite, abs(number) < 1e9 else { return nil }
        self = Int(number)
    }
}

/// A number in a closed range: ``NumberParameter`` (e.g. `intensity` in 0...1) or ``IntegerParameter`` (e.g. `size`
/// in 1...256).
public struct RangedParameter<Value: ParameterNumber>: ParameterDeclaration, Hashable {
    /// The key as written in the grammar.
    public let key: String
    /// The value used when the key is left out.
    public let defaultValue: Value
    /// The values the grammar accepts; initializers clamp into it.
    public let range: ClosedRange<Value>
    /// The unit, e.g. "px" or "K" (empty for a plain factor or a count).
    public let unit: String
    /// One line on what the parameter does.
    public let summary: String

    /// Declares a ranged parameter.
    public init(_ key: String, default defaultValue: Value, in range: ClosedRange<Value>, unit: String = "", _ summary: String) {
        (self.key, self.defaultValue, self.range, self.unit, self.summary) = (key, defaultValue, range, unit, summary)
    }

    /// The description the catalog shows.
    public var info: ParameterInfo {
        ParameterInfo(key: key, defaultValue: defaultValue.parameterValue, kind: Value.parameterKind(range), summary: summary, unit: unit)
    }

    /// `value` clamped into the range; NaN becomes the default, so an initializer never stores NaN.
    public func clamp(_ value: Value) -> Value {
        // Only NaN is unequal to itself.
        guard value == value else { return defaultValue }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// The value given in `arguments`, clamped into the range (the default when the key was left out or holds text).
    public func value(in arguments: FilterArguments) -> Value {
        arguments.values[key].flatMap { Value(parameter: $0) }.map(clamp) ?? defaultValue
    }

    /// The value as the grammar prints it.
    public func value(_ value: Value) -> ParameterValue { value.parameterValue }
}

/// A real-valued parameter, e.g. `intensity` in 0...1.
public typealias NumberParameter = RangedParameter<Double>

/// A whole-number parameter, e.g. `size` in 1...256.
public typealias IntegerParameter = RangedParameter<Int>

/// A file-path parameter, e.g. the LUT's `file`.
public struct FileParameter: ParameterDeclaration, Hashable {
    /// The key as written in the grammar.
    public let key: String
    /// One line on what the file is.
    public let summary: String

    /// Declares a file parameter; its default is the empty path.
    public init(_ key: String, _ summary: String) {
        self.key = key
        self.summary = summary
    }

    /// The description the catalog shows.
    public var info: ParameterInfo { ParameterInfo(key: key, defaultValue: .text(""), kind: .file, summary: summary) }

    /// The path given in `arguments` ("" when the key was left out).
    public func value(in arguments: FilterArguments) -> String {
        if case let .text(value)? = arguments.values[key] { return value }
        return ""
    }

    /// The value as the grammar prints it.
    public func value(_ value: String) -> ParameterValue { .text(value) }
}

extension FilterArguments {
    /// The value of `parameter`, clamped into its range (its default when the key was left out).
    public subscript<Declaration: ParameterDeclaration>(_ parameter: Declaration) -> Declaration.Value {
        parameter.value(in: self)
    }
}
