import Base
import GStreamer

/// The bookkeeping of an output that connects, fails and tries again with backoff (a push, the Janus feed): the current
/// attempt, where it stands, the failures and the connections. A value kept under its output's lock; the output does the
/// connecting and the waiting.
struct Attempts: Sendable {
    var phase = Publisher.Phase.connecting
    var lastError: String?
    /// Failed attempts since the last connection, and over the output's life.
    var failures = 0
    var failuresInAll = 0
    var attempt = 0
    var connections = 0

    /// Starts a new attempt; its number, or nil once stopped.
    mutating func begin() -> Int? {
        guard phase != .stopped else { return nil }
        attempt += 1
        phase = .connecting
        return attempt
    }

    /// Attempt `number` connected; false when it is no longer the one under way.
    mutating func connected(_ number: Int) -> Bool {
        guard attempt == number, phase == .connecting else { return false }
        phase = .connected
        failures = 0
        connections += 1
        return true
    }

    /// Attempt `number` failed for `reason`: the seconds until the next (0.5 doubling to `Publisher.maxBackoff`), or nil
    /// when it is no longer the one under way, the output stopped, or a retry is already set.
    mutating func failed(_ number: Int, reason: String) -> Double? {
        guard attempt == number, phase != .stopped else { return nil }
        if case .retrying = phase { return nil }
        lastError = reason
        failures += 1
        failuresInAll += 1
        var delay = 0.5
        for _ in 1..<min(failures, 8) { delay *= 2 }
        delay = min(delay, Publisher.maxBackoff)
        phase = .retrying(at: MonotonicClock.now + delay)
        return delay
    }

    /// Where it stands, for `stats`: `connecting`, `CONNECTED`, `retrying in 2 s` or `stopped`, and `(last error: …)`
    /// unless connected; `frames` before the error.
    func phrase(connected: String, frames: Int) -> String {
        var text =
            switch phase {
            case .connecting: failures > 0 ? "retrying: connecting" : "connecting"
            case .connected: connected
            case let .retrying(at): "retrying in \(Int((max(0, at - MonotonicClock.now)).rounded(.up))) s"
            case .stopped: "stopped"
            }
        text += " \(frames) frames"
        if let lastError, phase != .connected { text += " (last error: \(lastError))" }
        return text
    }

    /// The state's name in `/metrics`.
    var metricsState: String {
        switch phase {
        case .connecting: "connecting"
        case .connected: "connected"
        case .retrying: "retrying"
        case .stopped: "stopped"
        }
    }
}
