/// The key frames a shared live encoder is asked for (a viewer joining, a browser's PLI or FIR after a lost packet),
/// at most one per `interval`: the first request is served at once; one inside the interval waits for its end and is
/// served then, once, however many more came meanwhile. A storm of PLIs from a lossy viewer so costs every subscriber
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
        /// Force one `after` seconds from now, then call `fireDeferred`.
        case after(Double)
        /// One is already on its way.
        case merged
    }

    mutating func request(at now: Double) -> Decision {
        if waiting {
            merged += 1
            return .merged
        }
        let wait = lastForced + interval - now
        guard wait > 0 else {
            lastForced = now
            forced += 1
            return .now
        }
        waiting = true
        return .after(wait)
    }

    /// The deferred request is served at `now`.
    mutating func fireDeferred(at now: Double) {
        guard waiting else { return }
        waiting = false
        lastForced = now
        forced += 1
    }
}
