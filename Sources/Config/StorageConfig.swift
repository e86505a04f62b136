import Base
import FoundationEssentials

/// The disk budget of the folders a config writes captures into (its recordings' and stills' directories):
/// when one limit is passed, the oldest recordings (segments) and stills there go first, never a file being written.
public struct StorageConfig: Codable, Sendable, Equatable {
    /// The most bytes the captures in those folders may take together.
    public var maxBytes: Int?
    /// Captures older than this many seconds are deleted.
    public var maxAge: Double?
    /// Bytes to keep free on the file system that holds them.
    public var minFree: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case maxBytes, maxAge, minFree }

    /// The largest byte count a key may name: 2⁶⁰ (an exbibyte), so sums of sizes never overflow `Int`.
    public static let maxByteCount = 1 << 60
    /// The smallest `maxBytes`: a mebibyte (smaller budgets cannot hold one second of most recordings).
    public static let minBudget = 1 << 20

    public init(maxBytes: Int? = nil, maxAge: Double? = nil, minFree: Int? = nil) {
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.minFree = minFree
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxBytes = try Self.decodeBytes(.maxBytes, in: container)
        minFree = try Self.decodeBytes(.minFree, in: container)
        if let seconds = try? container.decodeIfPresent(Double.self, forKey: .maxAge) {
            maxAge = seconds
        } else if let text = try container.decodeIfPresent(String.self, forKey: .maxAge) {
            guard let seconds = Self.seconds(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .maxAge, in: container,
                    debugDescription:
                        "\"\(text)\" is not an age such as 3600, \"90m\", \"12h\" or \"7d\" (s, m, h, d)")
            }
            maxAge = seconds
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(maxBytes, forKey: .maxBytes)
        try container.encodeIfPresent(maxAge, forKey: .maxAge)
        try container.encodeIfPresent(minFree, forKey: .minFree)
    }

    /// A whole number of bytes, or a string with a binary unit ("500M", "1.5G", "800KiB").
    private static func decodeBytes(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> Int? {
        if let number = try? container.decodeIfPresent(Int.self, forKey: key) { return number }
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let bytes = Self.bytes(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription:
                    "\"\(text)\" is not a size such as 1000000, \"500M\" or \"2G\" (K, M, G, T: powers of 1024) up to 1024P")
        }
        return bytes
    }

    /// "500M" → 524288000; nil when it is not a size or passes `maxByteCount`. Bounded before any conversion.
    static func bytes(_ text: String) -> Int? {
        let units: [(String, Double)] = [("T", 0x1p40), ("G", 0x1p30), ("M", 0x1p20), ("K", 0x1p10), ("", 1)]
        var body = text.trimmed.uppercased()
        for suffix in ["IB", "B"] where body.hasSuffix(suffix) {
            body.removeLast(suffix.count)
            break
        }
        for (unit, scale) in units where body.hasSuffix(unit) {
            let digits = body.dropLast(unit.count).trimmed
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let number = Double(digits), number.isFinite
            else { return nil }
            let value = (number * scale).rounded()
            guard value >= 0, value <= Double(maxByteCount) else { return nil }
            return Int(exactly: value)
        }
        return nil
    }

    /// "90m" → 5400; nil when it is not an age or passes `Limits.maxSeconds`.
    static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
        let body = text.trimmed.lowercased()
        for (unit, scale) in units where body.hasSuffix(unit) {
            let digits = body.dropLast(unit.count).trimmed
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let number = Double(digits), number.isFinite
            else { return nil }
            let value = number * scale
            guard value <= Limits.maxSeconds else { return nil }
            return value
        }
        return nil
    }
}
