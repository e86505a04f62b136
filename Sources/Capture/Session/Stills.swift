import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// The session's stills: how many, the next sequence number, the periodic timer.
struct StillState: Sendable {
    var count = 0
    var sequence = 0
    /// Dispatch sources are thread-safe; this one is only replaced or cancelled under the lock.
    nonisolated(unsafe) var timer: DispatchSourceTimer?
}

extension CaptureSession {
    /// Writes a still of the next filtered frame, atomically and under a new name, into `directory`
    /// (default: the config's); returns its path. A failure leaves no file and the pipeline running.
    /// Holds no lock while it waits for the frame or encodes it: other commands are answered meanwhile.
    ///
    /// A failure is told on the host as it happens (a `stillFailed` event), whoever asked: a client's typo in
    /// `snap DIR` counts toward `run`'s exit code like any failed still, so the host says why when it happens.
    @discardableResult
    public func snapshot(directory: String? = nil) throws -> String {
        try snapshot(directory: directory, tag: nil)
    }

    /// A still named with `tag` after the session's name (`cam-motion-…`): what an event trigger takes.
    func snapshot(directory: String? = nil, tag: String?) throws -> String {
        do {
            return try takeStill(directory: directory, tag: tag)
        } catch {
            emit(.stillFailed(reason: "\(error)"))
            throw error
        }
    }

    private func takeStill(directory: String?, tag: String?) throws -> String {
        let graph = try running()
        guard let tap = graph.stillFrames else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.stillFrames, command: "snap")
        }
        // Prefer a frame that arrives after the request, like a shutter press; fall back to the newest.
        let frame = tap.frame(after: tap.counts.received, until: MonotonicClock.now + 2) ?? tap.latestFrame
        guard let frame else { throw SessionError.snapshotFailed(reason: "no frame has arrived yet") }
        let still = config.still
        let format = still?.format ?? .jpeg
        let path: String
        do {
            let bytes = try StillEncoder.encode(frame, format: format, quality: still?.quality ?? 90)
            let sequence = stills.withLock { state -> Int in
                state.sequence += 1
                return state.sequence
            }
            path = try StillWriter.write(
                bytes, directory: directory ?? still?.directory ?? "captures",
                base: stillBaseName(sequence: sequence, tag: tag), extension: format == .png ? "png" : "jpg", parents: directory == nil)
        } catch {
            recordFailure("still failed: \(error)", unprompted: false, kind: FailureKind(of: error))
            throw error
        }
        stills.withLock { $0.count += 1 }
        state.withLock { $0.lastCapture = path }
        storage?.check()
        return path
    }

    private func stillBaseName(sequence: Int, tag: String?) -> String {
        let pattern = config.still?.pattern ?? "{name}-{date}-{n}"
        var number = String(sequence)
        while number.count < 4 { number = "0" + number }
        return pattern.replacing("{name}", with: tag.map { "\(name)-\($0)" } ?? name)
            .replacing("{date}", with: timestamp())
            .replacing("{n}", with: number)
    }

    /// Takes a still every `seconds` (bounded by `Limits.isInterval`, as `still.every` is when read) on a timer;
    /// failures are reported as events and the timer goes on.
    public func startPeriodicStills(every seconds: Double) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stills.\(name)"))
        let interval = SessionTiming.interval(seconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            // A failure is told by `snapshot` itself.
            if let path = try? self.snapshot() { self.emit(.stillWritten(path: path)) }
        }
        stills.withLock { state in
            state.timer?.cancel()
            state.timer = timer
        }
        timer.resume()
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
