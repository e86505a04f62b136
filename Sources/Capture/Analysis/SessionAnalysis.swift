public import Analysis
import Base
import Config
import Dispatch
import GStreamer

/// A listener's handle on a session's analysis events; cancel it when the listener leaves.
public final class AnalysisSubscription: Sendable {
    private let onCancel: @Sendable () -> Void
    private let active = Locked(true)

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the deliveries. Idempotent.
    public func cancel() {
        guard
            active.withLock({ active in
                defer { active = false }; return active
            })
        else { return }
        onCancel()
    }
}

/// The session's analysers, their leaky feed on the tee, its event listeners and counts, and its triggers.
final class SessionAnalysis: Sendable {
    let runners = Locked<[AnalyzerRunner]>([])
    let feed = Locked<TeeFeed?>(nil)
    let listeners = Locked<(next: Int, handlers: [Int: @Sendable (AnalysisEvent) -> Void])>((0, [:]))
    let counts = Locked<[String: Int]>([:])
    /// The newest events (at most `recentLimit`), oldest first, and the sources with a `start` not yet ended.
    let recent = Locked<(events: [AnalysisEvent], active: Set<String>)>(([], []))
    static let recentLimit = 20
    /// Whether the config's analysers were made (once, at the first start).
    let configured = Locked(false)
    let triggers: EventTriggers?

    init(session name: String, config: PipelineConfig) {
        triggers = config.triggers.map { EventTriggers(session: name, config: config, triggers: $0) }
    }
}

extension CaptureSession {
    /// Adds an analyser from Swift: it gets every frame it can keep up with (luma first) on a queue of its own, and
    /// its events go where the config's do (the host's output, `events` subscribers, `/metrics`, triggers). Added
    /// before `start` or while running.
    public func addAnalyzer(_ analyzer: sending any FrameAnalyzer) {
        let runner = AnalyzerRunner(analyzer) { [weak self] events in self?.dispatch(events) }
        analysis.runners.withLock { $0.append(runner) }
        if graph != nil { attachAnalysisFeed() }
    }

    /// Calls `handler` with every analysis event (on the analyser's queue: it must not block) until cancelled.
    public func subscribeEvents(_ handler: @escaping @Sendable (AnalysisEvent) -> Void) -> AnalysisSubscription {
        let listeners = analysis.listeners
        let id = listeners.withLock { state -> Int in
            state.next += 1
            state.handlers[state.next] = handler
            return state.next
        }
        return AnalysisSubscription { listeners.withLock { _ = $0.handlers.removeValue(forKey: id) } }
    }

    /// Each analyser's frames, analysed frames and drops (frames that came while it was busy).
    public var analyzerStats: [AnalyzerStats] {
        analysis.runners.withLock { $0 }.map(\.stats)
    }

    /// The newest events, oldest first (at most 20), and the analysers whose event is under way (a start not yet ended).
    public var recentEvents: (events: [AnalysisEvent], active: Set<String>) {
        analysis.recent.withLock { $0 }
    }

    /// Events so far by name (`motion start`: 3).
    public var eventCounts: [String: Int] {
        analysis.counts.withLock { $0 }
    }

    /// Waits until every analyser has finished the frame it has, and every trigger it set off has been handed on.
    public func drainAnalysis() {
        analysis.runners.withLock { $0 }.forEach { $0.drain() }
    }

    /// The pre-roll ring's bytes now and at most, when the config records on events.
    public var preRollBytes: (now: Int, peak: Int)? {
        analysis.triggers?.recorder?.ringBytes
    }

    /// Event recordings finished so far (their paths).
    public var eventRecordings: [String] {
        analysis.triggers?.recorder?.finished ?? []
    }

    /// At start: the config's analysers (once), the feed, the pre-roll ring.
    func startAnalysis() {
        let first = analysis.configured.withLock { done in
            defer { done = true }; return !done
        }
        if first {
            for entry in config.analyze ?? [] {
                // Validated with the config: a failure here is a kind unregistered since, told and skipped.
                do {
                    addAnalyzer(try AnalyzerRegistry.make(entry.name, options: entry.options))
                } catch {
                    emit(.warning("analyze \(entry.name): \(error)"))
                }
            }
        }
        attachAnalysisFeed()
        analysis.triggers?.start(self)
    }

    /// The graph changed (recovery): the feed goes on the new tee.
    func analysisGraphChanged() {
        analysisGraphRetiring()
        attachAnalysisFeed()
    }

    /// The graph goes away: let go of its tee first.
    func analysisGraphRetiring() {
        analysis.feed.withLock { feed in
            feed?.detach()
            feed = nil
        }
    }

    /// At stop: the feed goes, every analyser finishes its frame, the triggers end what they started.
    func stopAnalysis() {
        analysisGraphRetiring()
        for runner in analysis.runners.withLock({ $0 }) { runner.drain() }
        analysis.triggers?.stop()
    }

    private func attachAnalysisFeed() {
        let runners = analysis.runners
        guard !runners.withLock({ $0.isEmpty }), let graph else { return }
        analysis.feed.withLock { feed in
            guard feed == nil else { return }
            guard let tee = graph.pipeline.element(named: PipelineBuilder.Names.tee) else {
                emit(.warning("analysis needs the graph's tee (a launch config needs `tee name=\(PipelineBuilder.Names.tee)`)"))
                return
            }
            do {
                // The callback only hands frames on (or drops them), so its few frames of backlog are for a busy CPU.
                feed = try TeeFeed(pipeline: graph.pipeline, tee: tee, name: "analyze", backlog: 4) { sample in
                    for runner in runners.withLock({ $0 }) { runner.offer(sample) }
                }
            } catch {
                emit(.warning("analysis could not start: \(error)"))
            }
        }
    }

    /// On an analyser's queue: counts, tells the host and the listeners, and sets off triggers.
    func dispatch(_ events: [AnalysisEvent]) {
        for event in events {
            analysis.counts.withLock { $0[event.name, default: 0] += 1 }
            analysis.recent.withLock { recent in
                recent.events.append(event)
                if recent.events.count > SessionAnalysis.recentLimit { recent.events.removeFirst() }
                if event.kind == "start" { recent.active.insert(event.source) }
                if event.kind == "end" { recent.active.remove(event.source) }
            }
            emit(.analysis(event))
            for handler in analysis.listeners.withLock({ Array($0.handlers.values) }) { handler(event) }
            analysis.triggers?.handle(event, session: self)
        }
    }
}
