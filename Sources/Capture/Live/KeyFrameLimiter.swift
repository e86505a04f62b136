/// The key frames a shared live encoder is asked for (a viewer joining, a browser's PLI or FIR after a lost packet),
/// at most one per `interval`: the first request is served at once; one inside the interval waits for its end and is
/// served with the first frame after it, once, however many more came meanwhile. A storm of PLIs from a lossy viewer so costs every subscriber
/// at most a key frame per interval, and no request goes unanswered.
struct KeyFrameLimiter: Sendable, Equatable {
    /// Seconds between two forced key frames.
    let interval: Double
    private var lastForced = -Double.infinity
    private var waiting = false
    /// Key frames forced, and requests answered by one forced for another.
    private(set) var forced = 0
    private(set) var merged = 0

    init(interval: Double) {
        self.interval = interval
    }

    /// What to do with a request that comes at `now` (seconds, monotonic).
    enum Decision: Equatable {
        /// Force one now.
        case now
        /// Force one when the interval is over: `takeDue` says when, at each encoded frame.
        case deferred
        /// One is already on its way.
        case merged
    }

    mutating func request(at now: Double) -> Decision {
        if waiting {
            merged += 1
            return .merged
        }
        guard lastForced + interval <= now else {
            waiting = true
            return .deferred
        }
        lastForced = now
        forced += 1
        return .now
    }

    /// Whether a deferred request is due at `now` (its interval is over): then it counts as forced now, and the caller
    /// forces it. Asked at every encoded frame, so it is served at the first frame after its interval.
    mutating func takeDue(at now: Double) -> Bool {
        guard waiting, lastForced + interval <= now else { return false }
        waiting = false
        lastForced = now
        forced += 1
        return true
    }
}
