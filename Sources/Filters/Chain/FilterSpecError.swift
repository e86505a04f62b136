/// Why a filter spec (text or `.cube` file) was rejected; positions are 1-based columns, counted in Unicode scalars.
public enum FilterSpecError: Error, Equatable, CustomStringConvertible {
    /// No filter has this name.
    case unknownFilter(name: String, position: Int)
    /// The filter has no such key.
    case unknownKey(filter: String, key: String, position: Int)
    /// The value is not a number of the kind the key takes.
    case badNumber(filter: String, key: String, value: String, position: Int)
    /// The value is a number outside the key's range.
    case outOfRange(filter: String, key: String, value: String, position: Int)
    /// The same key was given twice for one filter.
    case duplicateKey(filter: String, key: String, position: Int)
    /// A required key (the LUT's `file`) was left out.
    case missingArgument(filter: String, key: String, position: Int)
    /// The text does not follow `name key=value … | …`.
    case syntax(expected: String, found: String, position: Int)
    /// A `.cube` file could not be read or parsed; line 0 means the file as a whole.
    case badLutFile(path: String, line: Int, reason: String)
    /// A plugin's filter did not accept the values it was given.
    case refused(filter: String, position: Int)

    /// One sentence naming the problem, where it is, and what is allowed, on one line: input it quotes
    /// (a value, a path, a word of a LUT file) has its line breaks and control characters written as `\u{A}`.
    public var description: String {
        sentence.escapingControls
    }

    private var sentence: String {
        switch self {
        case let .unknownFilter(name, position):
            return "Unknown filter '\(name)' at column \(position); known filters are \(Self.filterNames)."
        case let .unknownKey(filter, key, position):
            return "Filter '\(filter)' has no key '\(key)' (column \(position)); \(Self.keys(of: filter))."
        case let .badNumber(filter, key, value, position):
            return "'\(value)' at column \(position) is not valid for \(filter) \(key), which takes \(Self.allowed(filter, key))."
        case let .outOfRange(filter, key, value, position):
            return "\(filter) \(key)=\(value) at column \(position) is out of range; it takes \(Self.allowed(filter, key))."
        case let .duplicateKey(filter, key, position):
            return "Key '\(key)' of filter '\(filter)' is given twice (again at column \(position)); give each key once."
        case let .missingArgument(filter, key, position):
            return "Filter '\(filter)' at column \(position) needs \(key)=…, which takes \(Self.allowed(filter, key))."
        case let .syntax(expected, found, position):
            let shown = found.isEmpty ? "the end of the text" : "'\(found)'"
            return "Expected \(expected) at column \(position) but found \(shown); write filters as 'name key=value … | name …'."
        case let .badLutFile(path, line, reason):
            return line > 0 ? "LUT file \(path), line \(line): \(reason)." : "LUT file \(path): \(reason)."
        case let .refused(filter, position):
            return "Filter '\(filter)' at column \(position) refused its values; \(Self.keys(of: filter))."
        }
    }

    static var filterNames: String {
        FilterCatalog.all.map(\.name).joined(separator: ", ")
    }

    static func keys(of filter: String) -> String {
        guard let info = FilterCatalog.info(named: filter), !info.parameters.isEmpty else {
            return "it takes no keys"
        }
        return "its keys are " + info.parameters.map { "\($0.key) (\($0.kind.allowed))" }.joined(separator: ", ")
    }

    static func allowed(_ filter: String, _ key: String) -> String {
        FilterCatalog.info(named: filter)?.parameter(key)?.kind.allowed ?? "no value"
    }
}

extension String {
    /// The text with control characters (Cc: newline, ESC, NUL…) and line or paragraph separators (Zl, Zp)
    /// written as `\u{1B}`, so a message that quotes input (a spec, a command, a config value, GStreamer's
    /// own words) stays one line and never carries terminal control sequences to whoever prints it.
    public var escapingControls: String {
        func escaped(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
        guard unicodeScalars.contains(where: escaped) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if escaped(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
