// Host: the running `swiftcam run` as a type: options in, an outcome out. It owns the session and everything
// around it (the camera page, publishing, the control socket, the signals, the stats ticks) and decides how the run
// ended; the executable parses arguments, prints the events and maps the outcome to an exit code. Imports Capture,
// Web, Publish and Control; only the `swiftcam` executable imports it.

import Base
public import Capture
import Config
import Control
import Dispatch
import FoundationEssentials
import Publish
import Synchronization
import Web

/// One running host: its session and the transports and services around it, started in order and stopped in
/// reverse, and the policy that turns how the session ended into a `HostOutcome`.
///
/// `run()` blocks until the host has ended and everything it started is stopped; `requestStop()` (any thread, a
/// signal, `quit` on any transport) ends it the way Ctrl-C does, files finalized.
public final class CameraHost: Sendable {
    /// What it was started with (a reload changes what runs, not these).
    public let options: HostOptions
    /// The session it runs now: a reload that changes more than the filter replaces it.
    public var session: CaptureSession { current.withLock { $0.session } }
    /// The console's interpreter (standard input), with the console's permissions, for the session it runs now.
    public var console: CommandInterpreter { current.withLock { $0.console } }
    private let observers: [@Sendable (HostEvent) -> Void]
    /// The camera page once it serves: session events (on the bus thread) reach it.
    private let page = Locked<WebServer?>(nil)
    private let current: Locked<Generation>
    /// A config waiting to replace the running one, and the stall test hook's countdown.
    private let plan = Locked(Plan())
    /// Set by any stop request: a reload waiting to start the next session gives way to it.
    private let stopAsked: StopRequest
    /// The service manager's notifications, when one started the process.
    private let notifier: ServiceNotifier?

    /// One config and the session running it, with the console bound to that session.
    private struct Generation: Sendable {
        var config: PipelineConfig
        let session: CaptureSession
        let console: CommandInterpreter
    }

    private struct Plan {
        var next: PipelineConfig?
        /// Frames until the test hook stalls the sources (`HostOptions.stallAfterFrames`); nil once it did.
        var framesUntilStall: Int?
    }

    /// A host for `options`, reporting to each of `observers` in order; nothing starts until `run()`.
    public init(options: HostOptions, observers: [@Sendable (HostEvent) -> Void]) {
        self.options = options
        self.observers = observers
        notifier = options.serviceManager.flatMap(ServiceNotifier.init)
        let stopAsked = StopRequest()
        self.stopAsked = stopAsked
        current = Locked(Self.generation(options.config, name: options.name, stopAsked: stopAsked))
        plan.withLock { $0.framesUntilStall = options.stallAfterFrames }
    }

    /// A session for `config` and the console's interpreter over it; `quit` on any transport stops the host.
    private static func generation(_ config: PipelineConfig, name: String, stopAsked: StopRequest) -> Generation {
        let session = CaptureSession(name: name, config: config)
        return Generation(
            config: config, session: session,
            console: CommandInterpreter(session: session, permissions: .console) {
                stopAsked.asked.store(true, ordering: .sequentiallyConsistent)
                session.requestStop()
            })
    }

    /// Ends the run as Ctrl-C does: end-of-stream, files finalized, then everything stopped.
    public func requestStop() {
        stopAsked.asked.store(true, ordering: .sequentiallyConsistent)
        session.requestStop()
    }

    /// Runs until the config's end, its frame or duration limit, or a stop request; returns how it ended. A reload
    /// that changes more than the filter ends the session it runs and starts the next, with the new config, here.
    public func run() -> HostOutcome {
        let signals = options.handlesSignals ? SignalRelay.listen { [self] in received($0) } : nil
        defer { signals.map(SignalRelay.stopListening) }
        while true {
            let outcome = runSession(current.withLock { $0 })
            let next = plan.withLock { plan -> PipelineConfig? in
                defer { plan.next = nil }
                return plan.next
            }
            guard let next, !stopAsked.asked.load(ordering: .sequentiallyConsistent), case .stopped = outcome else {
                return outcome
            }
            current.withLock { $0 = Self.generation(next, name: options.name, stopAsked: stopAsked) }
        }
    }

    /// Runs `generation`'s session with everything around it until it ends or a reload replaces it.
    private func runSession(_ generation: Generation) -> HostOutcome {
        let config = generation.config, session = generation.session, console = generation.console
        do {
            // Before the camera opens: a server that would be refused is a config problem, said first.
            if let publish = config.publish { try PublishService.check(publish, name: options.name) }
            // A window without a display segfaults inside GStreamer; a missing file fails as "internal error".
            try PipelineBuilder(config: config).preflight()
        } catch {
            return .notStarted(error)
        }
        session.onEvent { [self] event in
            page.withLock { $0 }?.notify(event)
            report(.session(event))
        }
        session.onFilteredFrame { [self] in filtered() }
        // Last on the way out: the handler holds this host, and events of the final stop are still reported.
        defer {
            session.onEvent(nil)
            session.onFilteredFrame(nil)
            page.withLock { $0 = nil }
        }
        var services = HostServices()
        defer { services.stopAll() }

        let metrics = HostMetricsSource(session: session) { [self] in page.withLock { $0 } }
        var startFailure: (any Error)?
        do {
            try session.start()
            // A stop asked for while a reload switched sessions reached the one before (a start clears the request).
            if stopAsked.asked.load(ordering: .sequentiallyConsistent) { session.requestStop() }
        } catch {
            guard options.web != nil || options.metrics != nil else { return .notStarted(error) }
            startFailure = error
        }
        if let address = options.metrics {
            do {
                let server = try metrics.serve(address, interpreter: console)
                services.started(server.stop)
                report(.metrics(url: server.url + "metrics"))
            } catch {
                session.stop()
                return .pageUnavailable(error)
            }
        }
        if let web = options.web {
            let server = WebServer(
                session: session, interpreter: console, options: web,
                galleryDirectories: [config.still?.directory ?? "captures", config.record?.directory ?? "recordings"],
                metrics: { metrics.snapshot() })
            do {
                try server.start()
            } catch {
                session.stop()
                return .pageUnavailable(error)
            }
            page.withLock { $0 = server }
            services.started(server.stop)
            for url in server.urls { report(.cameraScreen(url: url)) }
            if let tls = web.tls { report(.certificate(fingerprint: tls.fingerprint, origin: tls.origin)) }
        }
        if let startFailure {
            // The page shows the reason (the `unconfigured`, `unauthorized` or `failed` banner) until a stop
            // request: a session that failed while starting has already ended, so wait for the request itself.
            report(.showingFailure(startFailure))
            notifier?.tell(status: "camera failed: \(startFailure)")
            session.waitForStopRequest()
            return .shownUntilStopped(startFailure)
        }
        do {
            metrics.publish(try startPublishing(config, session: session, into: &services))
        } catch {
            services.stopAll()
            session.stop()
            return .notStarted(error)
        }
        report(.running(name: options.name, description: config.description))
        startControlSocket(console, into: &services)
        report(.ready(console: console))
        if let notifier {
            // Ready once a frame has come through the filter with everything up; a graph without `swiftfilter` says
            // nothing of its frames, so it is ready now.
            if session.filtersFrames {
                notifier.awaitFirstFrame(status: "\(options.name): \(session.status), first frame filtered")
            } else {
                notifier.send("READY=1", "STATUS=\(options.name): \(session.status)")
            }
        }
        if options.reportsStats { services.started(statsTicker(session)) }
        if let notifier { services.started(serviceTicker(notifier, session: session)) }

        session.waitUntilDone(frames: config.frames, duration: config.duration)
        if stopAsked.asked.load(ordering: .sequentiallyConsistent) || plan.withLock({ $0.next }) == nil {
            // The stop begins: files are finalized from here on (a reload that rebuilds the graph said RELOADING=1).
            notifier?.send("STOPPING=1", "STATUS=stopping")
        }
        services.stopAll()
        return ended(session)
    }

    /// The exit policy: a camera that failed for good outweighs failed outputs, which outweigh a clean end.
    private func ended(_ session: CaptureSession) -> HostOutcome {
        let statusBeforeStop = session.status
        // A recording still running at the end is finalized by the stop, which names its last file: a segmented one
        // goes on cutting segments until then.
        let recording = session.stop()
        let summary = HostSummary(recorded: session.stats.recordingFailure == nil ? recording : nil, stats: session.stats.line)
        switch statusBeforeStop {
        case .failed, .cameraFailed, .busy: return .cameraFailed(statusBeforeStop, summary)
        case .configured, .unconfigured, .unauthorized: break
        }
        let failed = session.failedOutputs
        if failed > 0 { return .outputsFailed(count: failed, first: session.firstOutputFailure, summary) }
        return .stopped(summary)
    }

    /// What a signal does: SIGINT and SIGTERM ask the host to stop; SIGHUP re-reads the config when the host knows
    /// how (`HostOptions.reload`), and stops it otherwise (the terminal went away).
    private func received(_ signal: HostSignal) {
        switch signal {
        case .interrupt, .terminate: requestStop()
        case .hangUp: options.reload == nil ? requestStop() : reload()
        }
    }

    /// Starts what the config's `publish` asks for, fed from the session's encoded stream; nil when it asks for nothing.
    private func startPublishing(
        _ config: PipelineConfig, session: CaptureSession,
        into services: inout HostServices
    ) throws -> PublishService? {
        guard let publish = config.publish else { return nil }
        // The session's VP8 encoder too, for a Janus mountpoint's browsers without H.264.
        let vp8 = session.liveFormat(for: .vp8).map { SessionVideoStream(session: session, format: $0) }
        let service = try PublishService(
            config: publish, name: options.name, stream: SessionVideoStream(session: session), onDemand: vp8.map { [$0] } ?? [])
        services.started(service.stop)
        if let server = service.server { report(.rtsp(url: server.url)) }
        for publisher in service.publishers { report(.pushing(target: publisher.target.redacted)) }
        if let janus = service.janus { report(.pushing(target: "Janus \(janus.api.url) mountpoint \(janus.mountpoint)")) }
        if let viewers = service.janusViewers { page.withLock { $0 }?.relayViewers(through: JanusRelay(viewers: viewers)) }
        service.report(to: session)
        return service
    }

    /// The control socket, when asked for; a socket that cannot listen leaves the host running without it.
    private func startControlSocket(_ console: CommandInterpreter, into services: inout HostServices) {
        guard options.controlSocket else { return }
        do {
            let server = try ControlServer(name: options.name, interpreter: console.restricted(to: .controlSocket))
            services.started(server.shutdown)
            report(.controlSocket(path: server.path))
        } catch {
            report(.controlSocketUnavailable(error))
        }
    }

    /// Reports the stats line every second; the returned closure stops it.
    private func statsTicker(_ session: CaptureSession) -> () -> Void {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stats"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [self] in report(.stats(session.stats.line)) }
        timer.resume()
        return { timer.cancel() }
    }

    /// Every filtered frame, on the streaming thread: the service manager's readiness and watchdog, and the stall test
    /// hook's countdown (the sources are paused off this thread: a state change here would wait on itself).
    private func filtered() {
        notifier?.frame()
        guard options.stallAfterFrames != nil else { return }
        let stall = plan.withLock { plan -> Bool in
            guard let left = plan.framesUntilStall else { return false }
            plan.framesUntilStall = left > 1 ? left - 1 : nil
            return left <= 1
        }
        if stall {
            DispatchQueue.global().async { [self] in
                report(.session(.notice("test hook: stalling the sources after \(options.stallAfterFrames ?? 0) frames")))
                session.stallSources()
            }
        }
    }

    /// Tells the service manager the session's state and rate every few seconds; a graph without `swiftfilter` feeds the
    /// watchdog from here, as frames cannot. The returned closure stops it.
    private func serviceTicker(_ notifier: ServiceNotifier, session: CaptureSession) -> () -> Void {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.service"))
        let every = min(5, max(0.5, (notifier.manager.watchdog ?? 10) / 2))
        timer.schedule(deadline: .now() + every, repeating: every)
        let pingsHere = !session.filtersFrames
        timer.setEventHandler { [self] in
            notifier.tell(status: Self.serviceStatus(session.stats, name: options.name))
            if pingsHere { notifier.send("WATCHDOG=1") }
        }
        timer.resume()
        return { timer.cancel() }
    }

    /// `STATUS=` for `systemctl status`: the state, the filtered rate, the recording.
    static func serviceStatus(_ stats: SessionStats, name: String) -> String {
        let fps = (stats.fpsOut * 10).rounded() / 10
        var text = "\(name): \(stats.status), \(fps) fps"
        if let recording = stats.recording { text += ", recording \(recording)" }
        return text
    }

    /// Re-reads the config (`HostOptions.reload`, SIGHUP): a changed filter is set on the running graph as the `filter`
    /// command sets it; any other change ends the running session and starts one with the new config; a config that
    /// does not load (or would not start) leaves the running one as it is and is reported with its reason. The
    /// service manager hears `RELOADING=1`, then `READY=1` when the reload is done (after the new graph's first frame
    /// when it rebuilds).
    public func reload() {
        guard let load = options.reload else { return }
        notifier?.send("RELOADING=1", "STATUS=reloading")
        let running = current.withLock { $0 }
        let outcome: ReloadOutcome
        do {
            let config = try load()
            var sameButFilter = config
            sameButFilter.filter = running.config.filter
            sameButFilter.filterChain = running.config.filterChain
            if config == running.config {
                outcome = .unchanged
            } else if sameButFilter == running.config {
                // The loader parsed the new chain; the running graph takes it as a value.
                let detail: String
                do {
                    detail = try running.session.setFilter(PipelineBuilder(config: config).filterChain)
                } catch {
                    throw ReloadError.filterRefused(reply: "\(error)")
                }
                current.withLock {
                    $0.config.filter = config.filter
                    $0.config.filterChain = config.filterChain
                }
                outcome = .filterChanged(detail)
            } else {
                if let publish = config.publish { try PublishService.check(publish, name: options.name) }
                try PipelineBuilder(config: config).preflight()
                outcome = .restarting(changed: Self.changedKeys(running.config, config))
                plan.withLock { $0.next = config }
                report(.reloaded(outcome))
                // The next session's first frame says READY=1.
                running.session.requestStop()
                return
            }
        } catch {
            notifier?.send("READY=1", "STATUS=reload refused: \(error)")
            report(.reloadFailed(error))
            return
        }
        notifier?.send("READY=1", "STATUS=\(Self.serviceStatus(running.session.stats, name: options.name))")
        report(.reloaded(outcome))
    }

    /// The top-level keys whose values differ between two configs, sorted.
    static func changedKeys(_ old: PipelineConfig, _ new: PipelineConfig) -> [String] {
        func fields(_ config: PipelineConfig) -> [String: JSONValue] {
            guard let data = try? JSONEncoder().encode(config), let object = (try? JSONValue.parse(data))?.object else { return [:] }
            return object
        }
        let before = fields(old), after = fields(new)
        return Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
    }

    private func report(_ event: HostEvent) {
        for observer in observers { observer(event) }
    }
}

/// Whether a stop was asked for, shared with the consoles' `quit`.
private final class StopRequest: Sendable {
    let asked = Atomic(false)
}

/// What a run started and must stop: stopped in the reverse order, each once.
private struct HostServices {
    private var stops: [() -> Void] = []

    mutating func started(_ stop: @escaping () -> Void) {
        stops.append(stop)
    }

    mutating func stopAll() {
        while let stop = stops.popLast() { stop() }
    }
}
