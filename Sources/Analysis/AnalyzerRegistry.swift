public import Filters
import Synchronization

/// A value in an analyser's options, as JSON gives it.
public enum AnalyzerValue: Sendable, Equatable, Codable {
    /// A JSON number (whole or not).
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case list([AnalyzerValue])
    /// A JSON object.
    case object([String: AnalyzerValue])

    /// Decodes any JSON value but null (a whole number decodes as a number).
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self =
            if let value = try? container.decode(Bool.self) {
                .bool(value)
            } else if let value = try? container.decode(Double.self) {
                .number(value)
            } else if let value = try? container.decode(String.self) {
                .string(value)
            } else if let value = try? container.decode([AnalyzerValue].self) {
                .list(value)
            } else {
                .object(try container.decode([String: AnalyzerValue].self))
            }
    }

    /// Encodes as the JSON value it came from.
    public func encode(to encoder: Encoder) throws {
        let value: any Encodable =
            switch self {
            case let .number(value): value
            case let .bool(value): value
            case let .string(value): value
            case let .list(value): value
            case let .object(value): value
            }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// An option an analyser takes, with its type and range: the config loader checks it, `docs/motion.md` lists it.
public struct AnalyzerOption: Sendable {
    /// What the option holds.
    public enum Kind: Sendable {
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// `true` or `false`.
        case bool
        /// Normalized polygons: `[{"include" | "exclude": [[x, y], …]}]`, each coordinate 0–1, at least three corners.
        case zones
    }

    /// The key in a config (`minArea`).
    public let name: String
    /// What it holds and its range.
    public let kind: Kind
    /// One line for docs and errors.
    public let summary: String

    /// The option `name` holding `kind`, described by `summary`.
    public init(_ name: String, _ kind: Kind, _ summary: String) {
        (self.name, self.kind, self.summary) = (name, kind, summary)
    }

    /// Why `value` does not fit, or nil.
    public func problem(with value: AnalyzerValue) -> String? {
        switch (kind, value) {
        case let (.number(range), .number(number)):
            return range.contains(number) ? nil : "\(number) is outside \(Self.text(range.lowerBound))…\(Self.text(range.upperBound))"
        case let (.integer(range), .number(number)):
            guard let whole = Int(exactly: number) else { return "must be a whole number" }
            return range.contains(whole) ? nil : "\(whole) is outside \(range.lowerBound)…\(range.upperBound)"
        case (.bool, .bool): return nil
        case let (.zones, value): return Self.zones(from: value).problem
        case (.number, _), (.integer, _): return "must be a number"
        case (.bool, _): return "must be true or false"
        }
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }

    /// Zones from their JSON form, or the first problem with it.
    public static func zones(from value: AnalyzerValue) -> (zones: [MotionZone], problem: String?) {
        guard case let .list(items) = value else { return ([], "must be a list of {\"include\" or \"exclude\": [[x, y], …]}") }
        var zones: [MotionZone] = []
        for (index, item) in items.enumerated() {
            guard case let .object(fields) = item, fields.count == 1, let (key, corners) = fields.first,
                let mode = MotionZone.Mode(rawValue: key)
            else {
                return ([], "zone \(index) must be one key, \"include\" or \"exclude\", with a list of [x, y] corners")
            }
            guard case let .list(points) = corners, points.count >= 3 else {
                return ([], "zone \(index) needs at least three [x, y] corners")
            }
            var polygon: [MotionPoint] = []
            for point in points {
                guard case let .list(pair) = point, pair.count == 2, case let .number(x) = pair[0], case let .number(y) = pair[1],
                    (0...1).contains(x), (0...1).contains(y)
                else {
                    return ([], "zone \(index): every corner is [x, y] with x and y from 0 to 1 (fractions of the picture)")
                }
                polygon.append(MotionPoint(x: x, y: y))
            }
            zones.append(MotionZone(mode, polygon))
        }
        return (zones, nil)
    }
}

/// An analyser's options as a config (or Swift code) gives them, checked against its declared `AnalyzerOption`s.
public struct AnalyzerOptions: Sendable, Equatable {
    /// The values by key.
    public var values: [String: AnalyzerValue]

    /// Options with `values`.
    public init(_ values: [String: AnalyzerValue] = [:]) {
        self.values = values
    }

    /// The number under `key`, or nil.
    public func number(_ key: String) -> Double? {
        if case let .number(value) = values[key] { return value }
        return nil
    }

    /// The whole number under `key`, or nil (checked to fit when the options were validated).
    public func integer(_ key: String) -> Int? {
        number(key).flatMap { Int(exactly: $0) }
    }

    /// The zones under `key` (none when absent).
    public func zones(_ key: String) -> [MotionZone] {
        values[key].map { AnalyzerOption.zones(from: $0).zones } ?? []
    }
}

/// A bad analyser option: the key and why.
public struct AnalyzerOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option's key, or empty for the analyser's name.
    public let key: String
    /// Why, in a user's words (what is allowed).
    public let reason: String

    /// The error for `key` (empty: the analyser's name) with `reason`.
    public init(key: String, reason: String) {
        (self.key, self.reason) = (key, reason)
    }

    /// `KEY: REASON`, or the reason alone for the analyser's name.
    public var description: String { key.isEmpty ? reason : "\(key): \(reason)" }
}

/// A kind of analyser that configs name: its options and how to make one.
public struct AnalyzerKind: Sendable {
    /// The name configs use (`motion`).
    public let name: String
    /// One line for `docs/motion.md` and errors.
    public let summary: String
    /// The options it takes.
    public let options: [AnalyzerOption]
    /// Makes an analyser from options already checked against `options` (a plugin's analyser may still refuse them).
    public let make: @Sendable (AnalyzerOptions) throws(AnalyzerOptionError) -> any FrameAnalyzer

    /// A kind called `name` taking `options`, whose analysers `make` makes.
    public init(
        name: String, summary: String, options: [AnalyzerOption],
        make: @escaping @Sendable (AnalyzerOptions) throws(AnalyzerOptionError) -> any FrameAnalyzer
    ) {
        (self.name, self.summary, self.options, self.make) = (name, summary, options, make)
    }

    /// Checks every key is declared and every value fits; throws naming the first key that does not.
    public func validate(_ options: AnalyzerOptions) throws(AnalyzerOptionError) {
        for key in options.values.keys.sorted() {
            guard let option = self.options.first(where: { $0.name == key }) else {
                let known = self.options.map(\.name).joined(separator: ", ")
                throw AnalyzerOptionError(key: key, reason: "\(name) has no option \"\(key)\" (it has \(known))")
            }
            if let value = options.values[key], let problem = option.problem(with: value) {
                throw AnalyzerOptionError(key: key, reason: problem)
            }
        }
    }
}

/// The analysers configs can name: `motion` built in, more registered by Swift code or a plugin before configs load.
public enum AnalyzerRegistry {
    private static let kinds = Mutex<[String: AnalyzerKind]>(["motion": MotionAnalyzer.kind])

    /// Adds (or replaces) a kind under its name.
    public static func register(_ kind: AnalyzerKind) {
        kinds.withLock { $0[kind.name] = kind }
    }

    /// Adds a kind from a plugin: a name already taken (a built-in's, another plugin's) is refused, not replaced.
    public static func registerShared(_ kind: AnalyzerKind) throws(AnalyzerOptionError) {
        guard isName(kind.name) else {
            throw AnalyzerOptionError(key: "", reason: "analyser name \"\(kind.name)\" is not a lowercase word (a-z, 0-9, -)")
        }
        let taken = kinds.withLock { kinds in
            if kinds[kind.name] != nil { return true }
            kinds[kind.name] = kind
            return false
        }
        if taken { throw AnalyzerOptionError(key: "", reason: "an analyser named \"\(kind.name)\" is already registered") }
    }

    /// A name a config can give as a JSON key and events can carry in a line: a lowercase word.
    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.unicodeScalars.count <= 64 else { return false }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// The kind named `name`, or nil.
    public static func kind(named name: String) -> AnalyzerKind? {
        kinds.withLock { $0[name] }
    }

    /// Every name, sorted.
    public static var names: [String] {
        kinds.withLock { $0.keys.sorted() }
    }

    /// A checked analyser of kind `name`; throws naming the kind or the option that is wrong.
    public static func make(_ name: String, options: AnalyzerOptions = AnalyzerOptions()) throws(AnalyzerOptionError) -> any FrameAnalyzer {
        guard let kind = kind(named: name) else {
            throw AnalyzerOptionError(key: "", reason: "no analyser \"\(name)\" (there are: \(names.joined(separator: ", ")))")
        }
        try kind.validate(options)
        return try kind.make(options)
    }
}
