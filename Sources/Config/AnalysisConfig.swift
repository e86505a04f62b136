/// One analyser in a config's `"analyze"` list: `{"motion": {"threshold": 25, "zones": […]}}` — exactly one key,
/// the analyser's name, with its options (checked by `ConfigValidator` against `AnalyzerRegistry`).
public import Analysis

public struct AnalyzerEntry: Codable, Sendable, Equatable {
    public var name: String
    public var options: AnalyzerOptions

    public init(name: String, options: AnalyzerOptions = AnalyzerOptions()) {
        self.name = name
        self.options = options
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "each analyser is one key, its name, with its options, e.g. {\"motion\": {\"minArea\": 0.02}}"))
        }
        name = key.stringValue
        options = AnalyzerOptions(try container.decodeIfPresent([String: AnalyzerValue].self, forKey: key) ?? [:])
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(options.values, forKey: AnyKey(stringValue: name))
    }
}

/// What analysis events set off: a still, a recording with the seconds before, a command.
public struct TriggersConfig: Codable, Sendable, Equatable {
    /// A still at each event start, at most one per `minInterval` seconds.
    public var still: StillTrigger?
    /// A recording from `preRoll` seconds before the event start to `postRoll` seconds after its end.
    public var record: RecordTrigger?
    /// A program run at every event (start and end), without a shell.
    public var command: CommandTrigger?

    enum CodingKeys: String, CodingKey, CaseIterable { case still, record, command }

    public init(still: StillTrigger? = nil, record: RecordTrigger? = nil, command: CommandTrigger? = nil) {
        self.still = still
        self.record = record
        self.command = command
    }
}

/// `triggers.still`.
public struct StillTrigger: Codable, Sendable, Equatable {
    /// The analyser whose `start` events take stills (default `motion`).
    public var on: String?
    /// The fewest seconds between two such stills (default 5).
    public var minInterval: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case on, minInterval }

    public init(on: String? = nil, minInterval: Double? = nil) {
        self.on = on
        self.minInterval = minInterval
    }
}

/// `triggers.record`.
public struct RecordTrigger: Codable, Sendable, Equatable {
    /// The analyser whose events start and end recordings (default `motion`).
    public var on: String?
    /// Seconds before the event start the recording begins with (default 5), from the encoded pre-roll ring.
    public var preRoll: Double?
    /// Seconds after the event's end the recording goes on (default 5); a new start in that time extends it.
    public var postRoll: Double?
    /// The most bytes the pre-roll ring holds (default 64 MB); the oldest key-frame groups go first.
    public var maxBytes: Int?
    /// Where event recordings go (default: `record.directory`, else `recordings`).
    public var directory: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case on, preRoll, postRoll, maxBytes, directory }

    public init(on: String? = nil, preRoll: Double? = nil, postRoll: Double? = nil, maxBytes: Int? = nil, directory: String? = nil) {
        (self.on, self.preRoll, self.postRoll, self.maxBytes, self.directory) = (on, preRoll, postRoll, maxBytes, directory)
    }
}

/// `triggers.command`.
public struct CommandTrigger: Codable, Sendable, Equatable {
    /// The analyser whose events run it (default: every analyser's).
    public var on: String?
    /// The program and its arguments (an absolute path, or a name looked up in `PATH`); the event is in its environment.
    public var run: [String]
    /// At most this many run at once (default 2); an event that finds them all running is skipped and logged.
    public var maxRunning: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case on, run, maxRunning }

    public init(on: String? = nil, run: [String], maxRunning: Int? = nil) {
        self.on = on
        self.run = run
        self.maxRunning = maxRunning
    }
}

extension ConfigValidator {
    /// `analyze` and `triggers`: known analysers with options that fit, triggers on analysers the config has.
    static func validateAnalysis(_ config: PipelineConfig, fail: (String, String) -> ConfigError) throws(ConfigError) {
        let entries = config.analyze ?? []
        for (index, entry) in entries.enumerated() {
            let path = "analyze[\(index)].\(entry.name)"
            guard let kind = AnalyzerRegistry.kind(named: entry.name) else {
                throw fail(
                    "analyze[\(index)]", "no analyser \"\(entry.name)\" (there are: \(AnalyzerRegistry.names.joined(separator: ", ")))")
            }
            do {
                try kind.validate(entry.options)
            } catch {
                throw fail("\(path).\(error.key)", error.reason)
            }
        }
        guard let triggers = config.triggers else { return }
        let names = Set(entries.map(\.name))
        func source(_ on: String?, _ path: String) throws(ConfigError) {
            let name = on ?? "motion"
            guard names.contains(name) else {
                throw fail(path, "triggers on \"\(name)\", which \"analyze\" does not list (add {\"\(name)\": {}} to \"analyze\")")
            }
        }
        if let still = triggers.still {
            try source(still.on, "triggers.still.on")
            if let every = still.minInterval, !(every >= 0 && every <= Limits.maxSeconds) {
                throw fail("triggers.still.minInterval", "must be a number of seconds from 0 to \(Int(Limits.maxSeconds))")
            }
        }
        if let record = triggers.record {
            try source(record.on, "triggers.record.on")
            for (key, value) in [("preRoll", record.preRoll), ("postRoll", record.postRoll)] {
                if let value, !(value >= 0 && value <= 3600) {
                    throw fail("triggers.record.\(key)", "must be a number of seconds from 0 to 3600")
                }
            }
            if let bytes = record.maxBytes, !(1_000_000...(1 << 34)).contains(bytes) {
                throw fail("triggers.record.maxBytes", "must be from 1000000 to \(1 << 34) bytes")
            }
            if let directory = record.directory, directory.isEmpty { throw fail("triggers.record.directory", "must not be empty") }
        }
        if let command = triggers.command {
            if let on = command.on { try source(on, "triggers.command.on") }
            guard let program = command.run.first, !program.isEmpty else {
                throw fail("triggers.command.run", "give the program and its arguments, e.g. [\"/usr/bin/logger\", \"motion\"]")
            }
            if let running = command.maxRunning, !(1...64).contains(running) {
                throw fail("triggers.command.maxRunning", "\(running) is outside 1…64")
            }
        }
    }
}
