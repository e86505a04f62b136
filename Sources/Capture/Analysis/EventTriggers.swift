import Analysis
import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer

/// What a config's `triggers` set off: stills (rate-limited by the events' own timestamps), a command per event
/// (bounded concurrency, no shell) and recordings with pre-roll (`EventRecorder`).
final class EventTriggers: Sendable {
    let still: StillTrigger?
    let command: CommandTrigger?
    let recorder: EventRecorder?
    /// The time (pipeline nanoseconds) of the last event that took a still.
    private let lastStill = Locked<UInt64?>(nil)
    private let running = Locked(0)
    /// Stills and commands run here, never on an analyser's queue.
    private let queue: DispatchQueue

    init(session name: String, config: PipelineConfig, triggers: TriggersConfig) {
        still = triggers.still
        command = triggers.command
        recorder = triggers.record.map { trigger in
            EventRecorder(trigger: trigger, directory: trigger.directory ?? config.record?.directory ?? "recordings", session: name)
        }
        queue = DispatchQueue(label: "swiftcam.triggers.\(name)", attributes: .concurrent)
    }

    func start(_ session: CaptureSession) {
        recorder?.start(session)
    }

    /// Ends the recording under way. Commands still running are not waited for (a slow one must not hold up the stop):
    /// their results are still told.
    func stop() {
        recorder?.stop()
    }

    /// On an analyser's queue: sets off what `event` triggers.
    func handle(_ event: AnalysisEvent, session: CaptureSession) {
        recorder?.handle(event)
        if let still, event.source == (still.on ?? "motion"), event.kind == "start" {
            let interval = UInt64(min(max(still.minInterval ?? 5, 0), Limits.maxSeconds) * 1e9)
            let due = lastStill.withLock { last -> Bool in
                if let last, event.time >= last, event.time - last < interval { return false }
                last = event.time
                return true
            }
            if due {
                queue.async { [weak session] in
                    guard let session, let path = try? session.snapshot(tag: event.source) else { return }
                    session.emit(.stillWritten(path: path))
                    EventSidecar.write(for: path, event: event, extra: [:])
                }
            }
        }
        if let command, command.on.map({ $0 == event.source }) ?? true {
            run(command, for: event, session: session)
        }
    }

    private func run(_ command: CommandTrigger, for event: AnalysisEvent, session: CaptureSession) {
        let limit = command.maxRunning ?? 2
        let admitted = running.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            session.warn("event \(event.name): \(limit) commands are still running; \(command.run[0]) not run for this one")
            return
        }
        let running = running
        queue.async { [weak session] in
            defer { running.withLock { $0 -= 1 } }
            if let failure = Self.execute(command.run, environment: event.environment) {
                session?.warn("event \(event.name): \(failure)")
            }
        }
    }

    /// Runs `argv` (no shell) with the event in its environment and waits for it; returns why it failed, or nil.
    static func execute(_ argv: [String], environment: [String: String]) -> String? {
        guard let program = argv.first, let executable = Spawn.resolve(program) else {
            return "command \(argv.first ?? "") not found (give an absolute path or a program in PATH)"
        }
        let pid: Int32
        do {
            // Its output goes where the host's goes (the journal under systemd).
            pid = try Spawn.start(
                [executable] + argv.dropFirst(), environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                standardOutput: 1, standardError: 2)
        } catch {
            return "command \(program) would not start: \(SystemError.message(error.code))"
        }
        let termination = Spawn.wait(for: pid)
        return termination == .exited(0) ? nil : "command \(program) \(termination)"
    }
}

/// The `FILE.event.json` next to a capture an event made: the gallery's tag, and the event's times.
enum EventSidecar {
    static let suffix = ".event.json"

    static func write(for path: String, event: AnalysisEvent, extra: [String: Double]) {
        var fields: [String: String] = [
            "event": "\"\(event.source)\"", "kind": "\"\(event.kind)\"",
            "time": fmt(Double(event.time) / 1e9, 3)
        ]
        if let area = event.area { fields["area"] = fmt(area, 3) }
        for (key, value) in extra { fields[key] = fmt(value, 3) }
        let text = "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}\n"
        try? text.write(toFile: path + suffix, atomically: true, encoding: .utf8)
    }

    /// The event that made the capture at `path`, when it has a sidecar.
    static func event(of path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path + suffix) else { return nil }
        return (try? JSONValue.parse(data))?["event"]?.string
    }
}
