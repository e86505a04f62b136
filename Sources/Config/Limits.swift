/// The ranges a number from a user is held to where it is read (config keys, command-line options), so that
/// every later step — a deadline, a timer interval, a conversion to nanoseconds or to `Int` — is safe.
public enum Limits {
    /// The longest time in seconds any key or option may name: 10⁹ s, about 31 years. Its nanoseconds
    /// (10¹⁸) still fit `Int64`, so `DispatchTime + seconds` and `MonotonicClock.now + seconds` never trap.
    public static let maxSeconds: Double = 1e9
    /// The shortest repeat interval in seconds (`still.every`): a hundred stills a second.
    public static let minInterval: Double = 0.01
    /// The shortest recording segment in seconds: a file a second at most keeps a folder countable.
    public static let minSegment: Double = 1

    /// Whether `value` is a duration a user may give: more than 0, at most `maxSeconds` (NaN and ∞ are not).
    public static func isDuration(_ value: Double) -> Bool { value > 0 && value <= maxSeconds }

    /// Whether `value` is a repeat interval a user may give: `minInterval` to `maxSeconds`.
    public static func isInterval(_ value: Double) -> Bool { value >= minInterval && value <= maxSeconds }

    /// "a number of seconds more than 0 and at most 1000000000", for every message about a duration.
    public static let durationRule = "a number of seconds more than 0 and at most \(Int(maxSeconds))"
    /// The same for an interval.
    public static let intervalRule = "a number of seconds from \(minInterval) to \(Int(maxSeconds))"
}
