/// A filter parameter declared once: its key, default, range, unit and one line of documentation.
///
/// A filter keeps each declaration as a static constant; its initializer clamps through it, its text arguments are
/// read through it, and its ``FilterInfo`` lists it, so the default and range are written in one place only.
public protocol ParameterDeclaration: Sendable {
    /// The description `swiftcam filters`, the page and the parser read.
    var info: ParameterInfo { get }
}

/// A real-valued parameter, e.g. `intensity` in 0...1.
public struct NumberParameter: ParameterDeclaration, Hashable {
    /// The key as written in the grammar.
    public let key: String
    /// The value used when the key is left out.
    public let defaultValue: Double
    /// The values the grammar accepts; initializers clamp into it.
    public let range: ClosedRange<Double>
    /// The unit, e.g. "px" or "K" (empty for a plain factor).
    public let unit: String
    /// One line on what the parameter does.
    public let summary: String

    /// Declares a number parameter.
    public init(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>, unit: String = "", _ summary: String) {
        self.key = key
        self.defaultValue = defaultValue
        self.range = range
        self.unit = unit
        self.summary = summary
    }

    /// The description the catalog shows.
    public var info: ParameterInfo {
        ParameterInfo(key: key, defaultValue: .number(defaultValue), kind: .number(range), summary: summary, unit: unit)
    }

    /// `value` clamped into the range; NaN becomes the default, so an initializer never stores NaN.
    public func clamp(_ value: Double) -> Double {
        guard !value.isNaN else { return defaultValue }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// The value as the grammar prints it.
    public func value(_ value: Double) -> ParameterValue { .number(value) }
}

/// A whole-number parameter, e.g. `size` in 1...256.
public struct IntegerParameter: ParameterDeclaration, Hashable {
    /// The key as written in the grammar.
    public let key: String
    /// The value used when the key is left out.
    public let defaultValue: Int
    /// The values the grammar accepts; initializers clamp into it.
    public let range: ClosedRange<Int>
    /// The unit, e.g. "px" (empty for a count).
    public let unit: String
    /// One line on what the parameter does.
    public let summary: String

    /// Declares a whole-number parameter.
    public init(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>, unit: String = "", _ summary: String) {
        self.key = key
        self.defaultValue = defaultValue
        self.range = range
        self.unit = unit
        self.summary = summary
    }

    /// The description the catalog shows.
    public var info: ParameterInfo {
        ParameterInfo(key: key, defaultValue: .integer(defaultValue), kind: .integer(range), summary: summary, unit: unit)
    }

    /// `value` clamped into the range.
    public func clamp(_ value: Int) -> Int { min(max(value, range.lowerBound), range.upperBound) }

    /// The value as the grammar prints it.
    public func value(_ value: Int) -> ParameterValue { .integer(value) }
}

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

    /// The value as the grammar prints it.
    public func value(_ value: String) -> ParameterValue { .text(value) }
}

extension FilterArguments {
    /// The value of a number parameter, clamped into its range (its default when the key was left out).
    public subscript(_ parameter: NumberParameter) -> Double {
        switch values[parameter.key] {
        case let .number(value)?: parameter.clamp(value)
        case let .integer(value)?: parameter.clamp(Double(value))
        default: parameter.defaultValue
        }
    }

    /// The value of a whole-number parameter, clamped into its range (its default when the key was left out).
    public subscript(_ parameter: IntegerParameter) -> Int {
        switch values[parameter.key] {
        case let .integer(value)?: parameter.clamp(value)
        case let .number(value)? where value.isFinite && abs(value) < 1e9: parameter.clamp(Int(value))
        default: parameter.defaultValue
        }
    }

    /// The path given for a file parameter ("" when the key was left out).
    public subscript(_ parameter: FileParameter) -> String {
        if case let .text(value)? = values[parameter.key] { return value }
        return ""
    }
}
