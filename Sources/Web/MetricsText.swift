/// One metric family for Prometheus's text exposition format (version 0.0.4): a name, its help, its type and its
/// samples. Values are in base units (seconds, bytes); counters end in `_total`.
public struct MetricFamily: Sendable, Equatable {
    /// The `# TYPE` of a family. An info metric (one sample valued 1 whose labels carry the facts) is a gauge whose name
    /// ends in `_info`: version 0.0.4 has no info type.
    public enum Kind: String, Sendable {
        case counter, gauge, summary, untyped
    }

    /// One line: the family's name plus `suffix` (`_sum`, `_count` for a summary), its labels in the order given, a value.
    public struct Sample: Sendable, Equatable {
        public var suffix: String = ""
        public var labels: [Label] = []
        public var value: Double
    }

    /// A label name and its value (any text: it is escaped when written).
    public struct Label: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]
}

extension MetricFamily {
    /// A family of one sample without labels.
    public init(name: String, help: String, kind: Kind, value: Double) {
        self.init(name: name, help: help, kind: kind, samples: [Sample(value: value)])
    }

    /// A family of one sample per value of one label, in the order given.
    init(name: String, help: String, kind: Kind, label: String, values: [(String, Double)]) {
        let samples = values.map { Sample(labels: [Label(name: label, value: $0.0)], value: $0.1) }
        self.init(name: name, help: help, kind: kind, samples: samples)
    }

    /// A counter of one sample without labels.
    static func counter(_ name: String, _ help: String, _ value: Int) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .counter, value: Double(value))
    }

    /// A gauge of one sample without labels.
    static func gauge(_ name: String, _ help: String, _ value: Double) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .gauge, value: value)
    }

    /// A state set: one sample per state, 1 for `current` and 0 for the others, under the label `label`.
    static func stateSet(_ name: String, _ help: String, label: String, states: [String], current: String) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: .gauge, label: label, values: states.map { ($0, $0 == current ? 1 : 0) })
    }
}

/// Writes metric families as Prometheus's text exposition format, version 0.0.4: for each family a `# HELP` and a
/// `# TYPE` line, then its samples. Families come out sorted by name, and a name given twice is written once with the
/// samples of both (a scraper refuses a family split in two); samples keep their order. Names are made valid (every
/// character outside `[a-zA-Z0-9_:]` becomes `_`), help text and label values are escaped, so no input makes the
/// output unreadable.
public enum MetricsText {
    /// The `Content-Type` of the text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The exposition of `families`.
    public static func render(_ families: [MetricFamily]) -> String {
        var merged: [String: MetricFamily] = [:]
        for family in families {
            let name = metricName(family.name)
            if merged[name] == nil {
                merged[name] = MetricFamily(name: name, help: family.help, kind: family.kind, samples: family.samples)
            } else {
                merged[name]?.samples += family.samples
            }
        }
        var text = ""
        for name in merged.keys.sorted() {
            guard let family = merged[name] else { continue }
            text += "# HELP \(name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                text += metricName(name + sample.suffix)
                if !sample.labels.isEmpty {
                    text +=
                        "{" + sample.labels.map { "\(labelName($0.name))=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",") + "}"
                }
                text += " \(number(sample.value))\n"
            }
        }
        return text
    }

    /// A value as the format writes it: whole numbers without a fraction, `NaN`, `+Inf`, `-Inf`.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Help text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String { escape(text, quote: false) }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabelValue(_ text: String) -> String { escape(text, quote: true) }

    private static func escape(_ text: String, quote: Bool) -> String {
        // By scalar: "\r\n" is one Character and would slip past a match on "\n".
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\"" where quote: out.append(contentsOf: "\\\"".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`: other characters become `_`, and a name that would start with a digit (or be empty)
    /// gets a leading `_`.
    static func metricName(_ name: String) -> String { sanitized(name, allowingColon: true) }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, made so the same way.
    static func labelName(_ name: String) -> String { sanitized(name, allowingColon: false) }

    private static func sanitized(_ name: String, allowingColon: Bool) -> String {
        var out = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    let valid =
                        (0x61...0x7A).contains(scalar.value) || (0x41...0x5A).contains(scalar.value)
                        || (0x30...0x39).contains(scalar.value) || scalar == "_" || (allowingColon && scalar == ":")
                    return valid ? scalar : "_"
                }))
        if out.first.map({ $0.isNumber }) ?? true { out = "_" + out }
        return out
    }
}
