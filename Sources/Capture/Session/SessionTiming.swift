public import Config
public import Dispatch

/// The times a config's numbers become while a session runs: the `duration` deadline and the periodic still
/// timer. Computed here only, so the config fuzz target exercises exactly the arithmetic `run` does, without a
/// pipeline. The values are bounded by `Limits` when the config is read; these steps rely on that and never trap.
public struct SessionTiming: Sendable {
    /// Seconds `run` plays before it stops (`duration`), nil for no limit.
    public let duration: Double?
    /// Seconds between periodic stills (`still.every`), nil for none.
    public let stillEvery: Double?

    /// The timing of a loaded (validated) config.
    public init(_ config: PipelineConfig) {
        duration = config.duration
        stillEvery = config.still?.every
    }

    /// The monotonic deadline (see `MonotonicClock`) `duration` sets from `now`; infinity without one.
    public func deadline(from now: Double) -> Double {
        duration.map { now + $0 } ?? .infinity
    }

    /// The periodic still timer's repeat, in whole nanoseconds as Dispatch takes them; nil without one.
    public var stillInterval: DispatchTimeInterval? {
        stillEvery.map(Self.interval)
    }

    /// `seconds` as a Dispatch interval, held to `Limits`' interval range first (a caller may pass any number).
    static func interval(_ seconds: Double) -> DispatchTimeInterval {
        let bounded = seconds.isNaN ? Limits.maxSeconds : Swift.min(Swift.max(seconds, Limits.minInterval), Limits.maxSeconds)
        return .nanoseconds(Int((bounded * 1e9).rounded()))
    }
}
