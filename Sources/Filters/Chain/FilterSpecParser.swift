/// The text grammar: `filter ( "|" filter )*`, `filter := name ( key "=" value )*`.
///
/// Values are numbers, or for file keys a path, quoted with `"…"` (and `\"`, `\\` escapes) when it
/// holds spaces, `|` or `=`. Every error carries the 1-based column of the offending token.
///
/// The text is read as Unicode scalars, not as characters: the syntax is ASCII, and a combining mark after
/// a quote or a bar (`"\u{308}…`) must not hide that quote or bar inside one character. Columns count scalars.
enum FilterSpecParser {
    private enum Token {
        case bar(position: Int)
        case word(String, position: Int)
        case assignment(key: String, keyPosition: Int, value: String, valuePosition: Int)
    }

    static func parse(_ text: String, registry: FilterRegistry) throws(FilterSpecError) -> [any Filter] {
        let tokens = try tokenize(Array(text.unicodeScalars))
        var filters: [any Filter] = []
        var index = 0
        while index < tokens.count {
            guard case let .word(name, namePosition) = tokens[index] else {
                throw .syntax(expected: "a filter name", found: describe(tokens[index]), position: position(of: tokens[index]))
            }
            guard let registration = registry.registration(named: name) else {
                throw .unknownFilter(name: name, position: namePosition)
            }
            index += 1
            var values: [String: ParameterValue] = [:]
            argumentLoop: while index < tokens.count {
                switch tokens[index] {
                case .bar:
                    break argumentLoop
                case let .word(word, wordPosition):
                    throw .syntax(expected: "key=value or '|'", found: word, position: wordPosition)
                case let .assignment(key, keyPosition, value, valuePosition):
                    guard let parameter = registration.info.parameter(key) else {
                        throw .unknownKey(filter: name, key: key, position: keyPosition)
                    }
                    guard values[key] == nil else {
                        throw .duplicateKey(filter: name, key: key, position: keyPosition)
                    }
                    values[key] = try parseValue(value, parameter, filter: name, position: valuePosition)
                }
                index += 1
            }
            filters.append(try registration.make(FilterArguments(info: registration.info, values: values, position: namePosition)))
            if index < tokens.count, case let .bar(barPosition) = tokens[index] {
                index += 1
                if index == tokens.count {
                    throw .syntax(expected: "a filter name after '|'", found: "", position: barPosition + 1)
                }
            }
        }
        return filters
    }

    /// The filter names of a chain's text, in order, without making the filters (so no LUT file is opened).
    /// Only the grammar is checked: an unknown name or key is the full parse's error.
    static func filterNames(_ text: String) throws(FilterSpecError) -> [String] {
        let tokens = try tokenize(Array(text.unicodeScalars))
        return tokens.indices.compactMap { index in
            guard case let .word(name, _) = tokens[index] else { return nil }
            if index == 0 { return name }
            if case .bar = tokens[index - 1] { return name }
            return nil
        }
    }

    private static func parseValue(
        _ text: String, _ parameter: ParameterInfo, filter: String, position: Int
    ) throws(FilterSpecError) -> ParameterValue {
        // Only plain decimal numbers: Double(_:) would also take "nan", "inf" and hex floats.
        let plain = !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) }
        switch parameter.kind {
        case let .number(range):
            guard plain, let value = Double(text), value.isFinite else {
                throw .badNumber(filter: filter, key: parameter.key, value: text, position: position)
            }
            guard range.contains(value) else {
                throw .outOfRange(filter: filter, key: parameter.key, value: text, position: position)
            }
            return .number(value)
        case let .integer(range):
            guard plain else { throw .badNumber(filter: filter, key: parameter.key, value: text, position: position) }
            guard let value = Int(text) else {
                // A whole number too long for Int is still a whole number, just out of range.
                if text.dropFirst(text.first == "-" || text.first == "+" ? 1 : 0).allSatisfy(\.isNumber) {
                    throw .outOfRange(filter: filter, key: parameter.key, value: text, position: position)
                }
                throw .badNumber(filter: filter, key: parameter.key, value: text, position: position)
            }
            guard range.contains(value) else {
                throw .outOfRange(filter: filter, key: parameter.key, value: text, position: position)
            }
            return .integer(value)
        case .file:
            return .text(text)
        }
    }

    private static func tokenize(_ chars: [Unicode.Scalar]) throws(FilterSpecError) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        func isSpace(_ c: Unicode.Scalar) -> Bool { c.properties.isWhitespace }
        func isDelimiter(_ c: Unicode.Scalar) -> Bool { isSpace(c) || c == "|" || c == "=" || c == "\"" }
        func text(_ range: Range<Int>) -> String {
            var result = ""
            result.unicodeScalars.append(contentsOf: chars[range])
            return result
        }
        while i < chars.count {
            let c = chars[i]
            if isSpace(c) { i += 1; continue }
            if c == "|" {
                if tokens.isEmpty {
                    throw .syntax(expected: "a filter name", found: "|", position: i + 1)
                }
                if case .bar = tokens[tokens.count - 1] {
                    throw .syntax(expected: "a filter name", found: "|", position: i + 1)
                }
                tokens.append(.bar(position: i + 1))
                i += 1
                continue
            }
            if c == "=" || c == "\"" {
                throw .syntax(expected: "a filter name or key", found: String(c), position: i + 1)
            }
            let start = i
            while i < chars.count, !isDelimiter(chars[i]) { i += 1 }
            let word = text(start..<i)
            guard i < chars.count, chars[i] == "=" else {
                tokens.append(.word(word, position: start + 1))
                continue
            }
            i += 1
            let valueStart = i
            var value = ""
            if i < chars.count, chars[i] == "\"" {
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count {
                        value.unicodeScalars.append(chars[i + 1])
                        i += 2
                    } else if chars[i] == "\"" {
                        closed = true
                        i += 1
                        break
                    } else {
                        value.unicodeScalars.append(chars[i])
                        i += 1
                    }
                }
                guard closed else { throw .syntax(expected: "a closing '\"'", found: "", position: chars.count + 1) }
                if i < chars.count, !isSpace(chars[i]), chars[i] != "|" {
                    throw .syntax(expected: "a space or '|' after the quoted value", found: String(chars[i]), position: i + 1)
                }
            } else {
                while i < chars.count, !isSpace(chars[i]), chars[i] != "|" { i += 1 }
                value = text(valueStart..<i)
                guard !value.isEmpty else {
                    throw .syntax(expected: "a value after '\(word)='", found: i < chars.count ? String(chars[i]) : "", position: i + 1)
                }
            }
            tokens.append(.assignment(key: word, keyPosition: start + 1, value: value, valuePosition: valueStart + 1))
        }
        return tokens
    }

    private static func position(of token: Token) -> Int {
        switch token {
        case let .bar(position), let .word(_, position): position
        case let .assignment(_, keyPosition, _, _): keyPosition
        }
    }

    private static func describe(_ token: Token) -> String {
        switch token {
        case .bar: "|"
        case let .word(word, _): word
        case let .assignment(key, _, value, _): "\(key)=\(value)"
        }
    }
}
