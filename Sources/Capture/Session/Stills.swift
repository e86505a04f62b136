import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// The session's stills: written on request (`snap`, a trigger) or on a timer, named by the config's pattern, counted.
/// Its own lock holds only the count and the sequence number (the timer is a `RepeatingTimer`); nothing is held while
/// a still waits for its frame, encodes or is written.
final class SessionStills: Sendable {
    private struct State: Sendable {
        var count = 0
        var sequence = 0
    }

    private let core: SessionCore
    private let config: StillConfig?
    private let storage: StorageBudget?
    private let state = Locked(State())
    private let timer: RepeatingTimer

    init(core: SessionCore, config: StillConfig?, storage: StorageBudget?) {
        self.core = core
        self.config = config
        self.storage = storage
        timer = RepeatingTimer(queue: DispatchQueue(label: "swiftcam.stills.\(core.name)"))
    }

    /// Stills written so far.
    var count: Int { state.withLock { $0.count } }

    /// Writes a still of the next filtered frame, atomically and under a new name, into `directory` (default: the
    /// config's), named with `tag` after the session's name when given (`cam-motion-…`); returns its path. A failure
    /// leaves no file and the pipeline running, and is told on the host as it happens (a `stillFailed` event), whoever
    /// asked: a client's typo in `snap DIR` counts toward `run`'s exit code like any failed still.
    func snapshot(directory: String?, tag: String?) throws -> String {
        do {
            return try takeStill(directory: directory, tag: tag)
        } catch {
            core.emit(.stillFailed(reason: "\(error)"))
            throw error
        }
    }

    private func takeStill(directory: String?, tag: String?) throws -> String {
        let graph = try core.running()
        guard let tap = graph.stillFrames else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.stillFrames, command: "snap")
        }
        // Prefer a frame that arrives after the request, like a shutter press; fall back to the newest.
        let frame = tap.frame(after: tap.counts.received, until: MonotonicClock.now + 2) ?? tap.latestFrame
        guard let frame else { throw SessionError.snapshotFailed(reason: "no frame has arrived yet") }
        let format = config?.format ?? .jpeg
        let path: String
        do {
            let bytes = try StillEncoder.encode(frame, format: format, quality: config?.quality ?? 90)
            let sequence = state.withLock { state -> Int in
                state.sequence += 1
                return state.sequence
            }
            path = try StillWriter.write(
                bytes, directory: directory ?? config?.directory ?? "captures",
                base: baseName(sequence: sequence, tag: tag), extension: format == .png ? "png" : "jpg", parents: directory == nil)
        } catch {
            core.recordFailure("still failed: \(error)", unprompted: false, kind: FailureKind(of: error))
            throw error
        }
        state.withLock { $0.count += 1 }
        core.captured(path)
        storage?.check()
        return path
    }

    private func baseName(sequence: Int, tag: String?) -> String {
        let pattern = config?.pattern ?? "{name}-{date}-{n}"
        var number = String(sequence)
        while number.count < 4 { number = "0" + number }
        return pattern.replacing("{name}", with: tag.map { "\(core.name)-\($0)" } ?? core.name)
            .replacing("{date}", with: timestamp())
            .replacing("{n}", with: number)
    }

    /// Takes a still every `seconds` (bounded by `Limits.isInterval`, as `still.every` is when read) on a timer;
    /// failures are reported as events and the timer goes on.
    func startPeriodic(every seconds: Double) {
        let interval = SessionTiming.interval(seconds)
        timer.start(every: interval, after: interval) { [weak self] in
            guard let self else { return }
            // A failure is told by `snapshot` itself.
            if let path = try? self.snapshot(directory: nil, tag: nil) { self.core.emit(.stillWritten(path: path)) }
        }
    }

    /// Stops the periodic stills, if any.
    func stopPeriodic() {
        timer.stop()
    }
}

extension CaptureSession {
    /// Writes a still of the next filtered frame, atomically and under a new name, into `directory`
    /// (default: the config's); returns its path. A failure leaves no file and the pipeline running.
    /// Holds no lock while it waits for the frame or encodes it: other commands are answered meanwhile.
    @discardableResult
    public func snapshot(directory: String? = nil) throws -> String {
        try stills.snapshot(directory: directory, tag: nil)
    }

    /// A still named with `tag` after the session's name (`cam-motion-…`): what an event trigger takes.
    func snapshot(tag: String) throws -> String {
        try stills.snapshot(directory: nil, tag: tag)
    }

    /// Takes a still every `seconds` on a timer; failures are reported as events and the timer goes on.
    public func startPeriodicStills(every seconds: Double) {
        stills.startPeriodic(every: seconds)
    }
}

/// Local time as YYYYMMDD-HHMMSS for file names, or YYYYMMDD-HHMMSS.mmm with `milliseconds`.
func timestamp(milliseconds: Bool = false) -> String {
    var clock = timespec()
    clock_gettime(CLOCK_REALTIME, &clock)
    var now = clock.tv_sec
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let seconds =
        "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    guard milliseconds else { return seconds }
    let millis = Int(clock.tv_nsec / 1_000_000)
    return seconds + "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + "\(millis)"
}
