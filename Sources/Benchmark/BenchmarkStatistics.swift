/// The summary of one measured variant's repetitions: what the bench table prints.
public struct BenchmarkStatistics: Sendable, Equatable, Codable {
    /// Milliseconds per frame of each repetition, in the order measured.
    public var samples: [Double]
    /// The middle sample (the mean of the two middle ones for an even count).
    public var median: Double
    /// Half the distance between the fastest and the slowest repetition: the table's "±".
    public var spread: Double

    /// Summarises repetitions; nil when there are none or one is not a finite number.
    public init?(samples: [Double]) {
        guard !samples.isEmpty, samples.allSatisfy(\.isFinite) else { return nil }
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        self.samples = samples
        median = sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
        spread = ((sorted.last ?? 0) - (sorted.first ?? 0)) / 2
    }

    /// The same repetitions with a fixed cost (the `appsrc ! identity ! fakesink` baseline) taken off each,
    /// never below zero: an element cheaper than the noise costs nothing measurable.
    public func subtracting(_ baseline: Double) -> BenchmarkStatistics {
        BenchmarkStatistics(samples: samples.map { max(0, $0 - baseline) }) ?? self
    }
}
