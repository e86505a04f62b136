import Base
public import FoundationEssentials
import Glibc

/// Reads, overrides, decodes and validates pipeline configs.
public enum ConfigLoader {
    /// Decodes config JSON, after applying `overrides` (`path=value`, e.g. `sources.0.device=/dev/video1`), and validates it,
    /// asking `checks` what only the machine knows.
    public static func load(
        data: Data, file: String, overrides: [String] = [], checks: some ConfigChecks
    ) throws(ConfigError) -> PipelineConfig {
        var tree: JSONValue
        do {
            tree = try JSONValue.parse(data)
        } catch {
            switch error {
            case let .syntax(line, column, reason):
                throw ConfigError(file: file, path: "", reason: "not valid JSON (line \(line), column \(column): \(reason))")
            case let .duplicateKey(path):
                // JSON parsers keep one of the two silently: a config with "filter" twice would run one its author
                // may not have meant.
                throw ConfigError(file: file, path: path, reason: "given twice in one object (JSON keeps only one): keep one")
            }
        }
        guard tree.object != nil else {
            throw ConfigError(file: file, path: "", reason: "a config is a JSON object with keys such as \"sources\" or \"launch\"")
        }
        for override in overrides {
            tree = try apply(override: override, to: tree, file: file)
        }
        var config: PipelineConfig
        do {
            config = try JSONDecoder().decode(PipelineConfig.self, from: Data(tree.utf8))
        } catch let error as DecodingError {
            // Foundation on Linux reports a number that does not fit its key (1.5 for a port) as "not valid JSON"
            // with no path: find the number by decoding again with each candidate replaced.
            if case let .dataCorrupted(context) = error, context.codingPath.isEmpty, let path = misfitNumber(in: tree) {
                throw ConfigError(file: file, path: path, reason: "expected a whole number in range")
            }
            throw decodingError(error, file: file)
        } catch {
            throw ConfigError(file: file, path: "", reason: "\(error)")
        }
        config.filterChain = try ConfigValidator.validate(config, file: file, checks: checks)
        return config
    }

    /// Loads a config file from disk.
    public static func load(file: String, overrides: [String] = [], checks: some ConfigChecks) throws(ConfigError) -> PipelineConfig {
        return try load(data: try read(file), file: file, overrides: overrides, checks: checks)
    }

    /// The whole file, or why it cannot be read: missing, a directory, forbidden, or an I/O error.
    static func read(_ file: String) throws(ConfigError) -> Data {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: throw ConfigError(file: file, path: "", reason: "no such file", kind: .noInput)
            case EACCES, EPERM:
                throw ConfigError(file: file, path: "", reason: "permission denied (check its permissions)", kind: .permission)
            default: throw ConfigError(file: file, path: "", reason: "cannot be opened: \(SystemError.message(code))", kind: .noInput)
            }
        }
        defer { close(descriptor) }
        switch SystemCall.readAll(descriptor) {
        case let .success(bytes): return Data(bytes)
        case let .failure(error) where error.code == EISDIR:
            throw ConfigError(file: file, path: "", reason: "is a directory, not a config file", kind: .badData)
        case let .failure(error):
            throw ConfigError(file: file, path: "", reason: "cannot be read: \(SystemError.message(error.code))", kind: .ioError)
        }
    }

    /// The path of the first number in `tree` that is not a whole number in `Int`'s range and that, replaced by 0,
    /// lets the config decode past it; nil when no number is to blame.
    private static func misfitNumber(in tree: JSONValue) -> String? {
        /// A step into an object (its key) or an array (its index).
        enum Step {
            case key(String)
            case index(Int)
        }
        var candidates: [[Step]] = []
        func collect(_ node: JSONValue, _ path: [Step]) {
            switch node {
            case let .object(members): for (key, member) in members.sorted(by: { $0.key < $1.key }) { collect(member, path + [.key(key)]) }
            case let .array(elements): for (index, element) in elements.enumerated() { collect(element, path + [.index(index)]) }
            case .number: if node.int == nil { candidates.append(path) }
            default: break
            }
        }
        func replacing(_ node: JSONValue, at path: ArraySlice<Step>) -> JSONValue {
            switch (path.first, node) {
            case (nil, _): return .number("0")
            case (let .key(key)?, var .object(members)):
                members[key] = members[key].map { replacing($0, at: path.dropFirst()) }
                return .object(members)
            case (let .index(index)?, var .array(elements)):
                elements[index] = replacing(elements[index], at: path.dropFirst())
                return .array(elements)
            default: return node
            }
        }
        collect(tree, [])
        for path in candidates {
            do {
                _ = try JSONDecoder().decode(PipelineConfig.self, from: Data(replacing(tree, at: path[...]).utf8))
            } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
                continue
            } catch {}
            let text = path.map { step in
                switch step {
                case let .key(key): ".\(key)"
                case let .index(index): "[\(index)]"
                }
            }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        return nil
    }

    private static func decodingError(_ error: DecodingError, file: String) -> ConfigError {
        switch error {
        case let .typeMismatch(type, context):
            return ConfigError(file: file, path: jsonPath(context.codingPath), reason: "expected \(typeName(type))")
        case let .valueNotFound(type, context):
            return ConfigError(file: file, path: jsonPath(context.codingPath), reason: "expected \(typeName(type)), found null")
        case let .keyNotFound(key, context):
            return ConfigError(file: file, path: jsonPath(context.codingPath + [key]), reason: "missing required key")
        case let .dataCorrupted(context):
            var reason = context.debugDescription
            if reason.hasPrefix("Cannot initialize"), let last = context.codingPath.last {
                reason = "unknown value; allowed: \(allowedValues(for: last.stringValue, in: context.codingPath))"
            } else if reason.hasPrefix("Parsed JSON number") || reason == "The given data was not valid JSON." {
                // A number that does not fit the key's type, e.g. 1.5 for a frame count.
                reason = "expected a whole number in range"
            }
            return ConfigError(file: file, path: jsonPath(context.codingPath), reason: reason)
        @unknown default:
            return ConfigError(file: file, path: "", reason: "\(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [SourceConfig].Type, is [Any].Type: "a list"
        default: "an object"
        }
    }

    /// The values an enum-typed key accepts, for the error message.
    private static func allowedValues(for key: String, in path: [CodingKey]) -> String {
        let parent = path.dropLast().last?.stringValue
        let values: [String] =
            switch (parent, key) {
            case (_, "kind"): SourceConfig.Kind.allCases.map(\.rawValue)
            case (_, "preview"): PreviewMode.allCases.map(\.rawValue)
            case ("still", "format"): StillConfig.Format.allCases.map(\.rawValue)
            case ("record", "container"): RecordConfig.Container.allCases.map(\.rawValue)
            case ("record", "encoder"): RecordConfig.Encoder.families + ["an encoder element (swiftcam encoders)"]
            default: []
            }
        return values.joined(separator: ", ")
    }

    /// Sets `a.b.0.c=value` in a JSON tree; the value is JSON when it parses as JSON, else a string.
    static func apply(override: String, to tree: JSONValue, file: String) throws(ConfigError) -> JSONValue {
        guard let equals = override.firstIndex(of: "=") else {
            throw ConfigError(file: file, path: override, reason: "--set takes path=value, e.g. --set filter=mono")
        }
        let path = override[..<equals].split(separator: ".").map(String.init)
        let text = String(override[override.index(after: equals)...])
        guard !path.isEmpty else {
            throw ConfigError(file: file, path: "", reason: "--set needs a key before '='")
        }
        let value = (try? JSONValue.parse(text)) ?? .string(text)
        return try set(value, at: path[...], in: tree, file: file, fullPath: path.joined(separator: "."))
    }

    private static func set(
        _ value: JSONValue, at path: ArraySlice<String>, in node: JSONValue?, file: String, fullPath: String
    ) throws(ConfigError) -> JSONValue {
        guard let key = path.first else { return value }
        let rest = path.dropFirst()
        if let index = Int(key) {
            var array = node?.array ?? []
            guard node == nil || node?.array != nil else {
                throw ConfigError(file: file, path: fullPath, reason: "'\(key)' indexes a list, but this is not one")
            }
            guard index >= 0, index <= array.count else {
                throw ConfigError(file: file, path: fullPath, reason: "index \(index) is past the end of a list of \(array.count)")
            }
            let child: JSONValue? = index < array.count ? array[index] : nil
            let updated = try set(value, at: rest, in: child, file: file, fullPath: fullPath)
            if index < array.count { array[index] = updated } else { array.append(updated) }
            return .array(array)
        }
        guard node == nil || node?.object != nil else {
            throw ConfigError(file: file, path: fullPath, reason: "'\(key)' names a key, but this is not an object")
        }
        var object = node?.object ?? [:]
        object[key] = try set(value, at: rest, in: object[key], file: file, fullPath: fullPath)
        return .object(object)
    }
}
