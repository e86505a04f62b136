/// A parameter value as it appears in the text grammar.
public enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    /// A real number, e.g. `0.8`.
    case number(Double)
    /// A whole number, e.g. `8`.
    case integer(Int)
    /// A string, e.g. a file path; printed quoted when it holds spaces or grammar characters.
    case text(String)

    /// The value as the grammar prints it.
    public var text: String {
        switch self {
        case let .number(value): return Self.format(value)
        case let .integer(value): return String(value)
        case let .text(value): return Self.quoteIfNeeded(value)
        }
    }

    /// Same as `text`.
    public var description: String { text }

    /// Shortest text that parses back to exactly `value`; whole numbers print without ".0".
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return value == 0 ? "0" : String(Int64(value))
        }
        return value.description
    }

    /// Quotes by Unicode scalar, as the parser reads: a combining mark that follows the opening quote
    /// stays text, and the quote stays a quote.
    static func quoteIfNeeded(_ value: String) -> String {
        let special =
            value.isEmpty
            || value.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0 == "|" || $0 == "\"" || $0 == "\\" || $0 == "="
            })
        guard special else { return value }
        var quoted = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        quoted.unicodeScalars.append("\"")
        return quoted
    }
}

/// What values a parameter accepts.
public enum ParameterKind: Sendable, Hashable {
    /// A real number in the range.
    case number(ClosedRange<Double>)
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// A path to a file.
    case file

    /// The allowed values as one phrase, e.g. "a number in 0...1".
    public var allowed: String {
        switch self {
        case let .number(range): "a number in \(ParameterValue.format(range.lowerBound))...\(ParameterValue.format(range.upperBound))"
        case let .integer(range): "a whole number in \(range.lowerBound)...\(range.upperBound)"
        case .file: "a file path"
        }
    }
}

/// One key of a filter: its name, default, allowed values, unit and meaning.
public struct ParameterInfo: Sendable, Hashable {
    /// The key as written in the grammar, e.g. `intensity`.
    public var key: String
    /// The value used when the key is left out.
    public var defaultValue: ParameterValue
    /// The allowed values.
    public var kind: ParameterKind
    /// One line on what the parameter does.
    public var summary: String
    /// The unit, e.g. "px" or "K"; empty for a plain factor or count.
    public var unit: String

    /// Creates a parameter description; filters declare theirs with ``NumberParameter`` and its siblings.
    public init(key: String, defaultValue: ParameterValue, kind: ParameterKind, summary: String, unit: String = "") {
        (self.key, self.defaultValue, self.kind, self.summary, self.unit) = (key, defaultValue, kind, summary, unit)
    }
}

/// A filter's self-description: what `swiftcam filters` prints and what the parser checks against.
public struct FilterInfo: Sendable, Hashable {
    /// The text name, e.g. `sepia`.
    public var name: String
    /// One line on what the filter does.
    public var summary: String
    /// The keys in canonical order.
    public var parameters: [ParameterInfo]

    /// Creates a filter description.
    public init(name: String, summary: String, parameters: [ParameterInfo] = []) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
    }

    /// Creates a filter description from its parameter declarations, in canonical order.
    public init(name: String, summary: String, parameters: [any ParameterDeclaration]) {
        self.init(name: name, summary: summary, parameters: parameters.map(\.info))
    }

    /// The parameter called `key`, if any.
    public func parameter(_ key: String) -> ParameterInfo? {
        parameters.first { $0.key == key }
    }
}

/// Parsed, range-checked arguments of one filter, with defaults filled in; read them with a parameter declaration
/// (`arguments[Sepia.intensity]`), so a misspelt key does not compile.
public struct FilterArguments: Sendable {
    /// Values by key; every key of the filter is present.
    public var values: [String: ParameterValue]
    /// Column of the filter name in the text, for errors found later (0 when not from text).
    public var position: Int

    /// Creates arguments; missing keys take their defaults from `info`.
    public init(info: FilterInfo, values: [String: ParameterValue] = [:], position: Int = 0) {
        var filled = values
        for parameter in info.parameters where filled[parameter.key] == nil {
            filled[parameter.key] = parameter.defaultValue
        }
        self.values = filled
        self.position = position
    }
}

/// The built-in filters, and the listing of every filter the process knows (``FilterRegistry/shared``).
public enum FilterCatalog {
    /// The built-in filter types, in the order `swiftcam filters` lists them.
    public static let types: [any Filter.Type] = [
        Sepia.self, Vignette.self, Mono.self, Invert.self, ColorControls.self, Exposure.self,
        Temperature.self, Gamma.self, Posterize.self, Threshold.self, Blur.self, Sharpen.self,
        Edges.self, Pixelate.self, Zoom.self, Mirror.self, Flip.self, Lut.self
    ]

    /// The descriptions of every filter the process knows: the built-ins, then registered ones in order.
    public static var all: [FilterInfo] { FilterRegistry.shared.all }

    /// The description of the filter called `name`, built in or registered, if any.
    public static func info(named name: String) -> FilterInfo? {
        FilterRegistry.shared.registration(named: name)?.info
    }

    /// A human-readable listing: one line per filter, then one indented line per key.
    public static var listing: String {
        var lines: [String] = []
        for info in all {
            lines.append("\(info.name) — \(info.summary)")
            for parameter in info.parameters {
                lines.append("    \(parameter.key)=\(parameter.defaultValue.text)  (\(parameter.kind.allowed)) \(parameter.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
