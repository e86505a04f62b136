import Base
import Config
import Dispatch
import GStreamer
import Synchronization

/// Notices a camera that stops delivering frames without posting an error (a hung driver, a loopback device whose
/// writer stopped): it counts the buffers leaving each watched source and, when one has been silent for longer than its
/// limit, reports a stall once and stops. The session treats that like a failure and recovers the same way.
///
/// The limit is ten frame intervals at the rate the source negotiated, never less than `Settings.floor` (5 s): a
/// 30 fps camera is stalled after 5 s, a 1 fps one after 10 s. Before a source's first frame the limit is
/// `Settings.firstFrame` (20 s): a camera (or a software-emulated VM) can be slow to start.
///
/// A `DispatchSourceTimer` on its own queue reads the counters a few times per limit; no thread sleeps. One
/// watchdog belongs to one graph: `RunningGraph.teardown` cancels it, and the session acts on a stall only while
/// that graph is the playing one and nothing else (start, stop, a recovery) owns it.
final class StallWatchdog: Sendable {
    /// The limits, per session (tests shorten them and watch test sources).
    struct Settings: Sendable {
        /// The shortest silence called a stall, in seconds.
        var floor = 5.0
        /// How many frame intervals of silence make a stall.
        var intervals = 10.0
        /// The longest wait for a source's first frame, in seconds.
        var firstFrame = 20.0
        /// Watches test-pattern and file sources too, and lets such sessions recover (for tests: a `videotestsrc` can be
        /// made to stall; a driver cannot).
        var watchesEverySource = false
    }

    /// One watched source: its element name, a counter on its `src` pad, and the pad (for the negotiated rate).
    struct Source: Sendable {
        var name: String
        var pad: Pad
        var counter: BufferCounter
    }

    private struct Seen: Sendable {
        var count = 0
        var since: Double
    }

    /// Thread-safe by itself (libdispatch); cancelled by `cancel` and `deinit`.
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    /// Starts watching `sources`; `onStall(source, seconds)` is called at most once, on the watchdog's queue.
    init(sources: [Source], settings: Settings, label: String, onStall: @escaping @Sendable (_ source: String, _ seconds: Int) -> Void) {
        let now = MonotonicClock.now
        // What each source had sent when it last sent something; nil once a stall was reported.
        let seen = Locked<[Seen]?>(sources.map { _ in Seen(since: now) })
        let tick = max(0.05, min(1, settings.floor / 5))
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stalls.\(label)"))
        timer.schedule(deadline: .now() + tick, repeating: tick, leeway: .milliseconds(Int(tick * 250)))
        timer.setEventHandler {
            let now = MonotonicClock.now
            let stalled = seen.withLock { seen -> (String, Int)? in
                guard var counts = seen else { return nil }
                for (index, source) in sources.enumerated() {
                    let count = source.counter.value
                    if count != counts[index].count {
                        counts[index] = Seen(count: count, since: now)
                        continue
                    }
                    let limit = count == 0 ? settings.firstFrame : Self.limit(of: source.pad, settings: settings)
                    if now - counts[index].since >= limit {
                        seen = nil
                        return (source.name, Int(limit.rounded(.up)))
                    }
                }
                seen = counts
                return nil
            }
            guard let (source, seconds) = stalled else { return }
            onStall(source, seconds)
        }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Stops watching; a check already running may still finish (the session ignores a stall of a retired graph).
    func cancel() {
        timer.cancel()
    }

    /// Ten frame intervals at the pad's negotiated rate, at least `floor`; `floor` when the rate is unknown or variable.
    static func limit(of pad: Pad, settings: Settings) -> Double {
        guard let rate = pad.currentCaps?.structure(at: 0)?.fraction("framerate"), rate.numerator > 0, rate.denominator > 0 else {
            return settings.floor
        }
        return max(settings.floor, settings.intervals * Double(rate.denominator) / Double(rate.numerator))
    }
}

extension CaptureSession {
    /// Starts the stall watchdog on a graph just published as the playing one: its v4l2 sources (every source when
    /// the settings say so). A stall starts recovery only if that graph still plays and nothing else owns it.
    func watchForStalls(_ graph: RunningGraph) {
        let settings = stallSettings.withLock { $0 }
        let context = FailureContext(config: config)
        var sources: [StallWatchdog.Source] = []
        for (index, source) in (config.sources ?? []).enumerated()
        where source.kind != .test && source.kind != .file || settings.watchesEverySource {
            let name = PipelineBuilder.Names.source(index)
            guard let pad = try? graph.pipeline.element(named: name)?.staticPad("src") else { continue }
            sources.append(StallWatchdog.Source(name: name, pad: pad, counter: pad.countBuffers().counter))
        }
        guard !sources.isEmpty else { return }
        let watchdog = StallWatchdog(sources: sources, settings: settings, label: name) { [weak self, weak graph] source, seconds in
            guard let self, let graph else { return }
            let device = graph.sourceProcesses[source]?.label ?? context.sources[source]?.device ?? source
            self.stalled(graph, device: device, seconds: seconds)
        }
        graph.watch(stalls: watchdog)
    }

    /// A source of `graph` sent nothing for `seconds`: recover as after a failure, unless the graph is no longer the
    /// playing one or a start, stop or recovery owns it (the failure that started a recovery is already being handled).
    private func stalled(_ graph: RunningGraph, device: String, seconds: Int) {
        let recover = state.withLock { state -> (@Sendable (CameraFailure) -> Void)? in
            guard state.graph === graph, !state.recovering, !state.transitioning, !state.ended, !state.stopping,
                let recover = state.recover
            else { return nil }
            state.recovering = true
            return recover
        }
        guard let recover else { return }
        DebugLog.warning("\(name): \(device) delivered no buffer for \(seconds) s and posted no error")
        recover(CameraFailure(device: device, cause: .stalled(seconds: seconds), next: .restarting(continuesIn: nil)))
    }
}
