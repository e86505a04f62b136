// Host: the running `swiftcam run` as a type: options in, an outcome out. It owns the session and everything
// around it (the camera page, publishing, the control socket, the signals, the stats ticks) and decides how the run
// ended; the executable parses arguments, prints the events and maps the outcome to an exit code. Imports Capture,
// Web and Publish; only the `swiftcam` executable imports it.

public import Capture
import Dispatch
import Publish
import Synchronization
import Web

/// One running host: its session and the transports and services around it, started in order and stopped in
/// reverse, and the policy that turns how the session ended into a `HostOutcome`.
///
/// `run()` blocks until the host has ended and everything it started is stopped; `requestStop()` (any thread, a
/// signal, `quit` on any transport) ends it the way Ctrl-C does, files finalized.
public final class CameraHost: Sendable {
    /// What it runs.
    public let options: HostOptions
    /// The session it runs.
    public let session: CaptureSession
    /// The console's interpreter (standard input), with the console's permissions.
    public let console: CommandInterpreter
    private let observers: [@Sendable (HostEvent) -> Void]
    /// The camera page once it serves: session events (on the bus thread) reach it.
    private let page = Mutex<WebServer?>(nil)

    /// A host for `options`, reporting to each of `observers` in order; nothing starts until `run()`.
    public init(options: HostOptions, observers: [@Sendable (HostEvent) -> Void]) {
        self.options = options
        self.observers = observers
        let session = CaptureSession(name: options.name, config: options.config)
        self.session = session
        console = CommandInterpreter(session: session, permissions: .console) { session.requestStop() }
    }

    /// Ends the run as Ctrl-C does: end-of-stream, files finalized, then everything stopped.
    public func requestStop() {
        session.requestStop()
    }

    /// Runs until the config's end, its frame or duration limit, or a stop request; returns how it ended.
    public func run() -> HostOutcome {
        let config = options.config
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
        // Last on the way out: the handler holds this host, and events of the final stop are still reported.
        defer {
            session.onEvent(nil)
            page.withLock { $0 = nil }
        }
        let signals = options.handlesSignals ? SignalRelay.listen { [self] in received($0) } : nil
        defer { signals.map(SignalRelay.stopListening) }
        var services = HostServices()
        defer { services.stopAll() }

        let metrics = HostMetricsSource(session: session) { [self] in page.withLock { $0 }?.viewerCounts }
        var startFailure: (any Error)?
        do {
            try session.start()
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
            let server = WebServer(session: session, interpreter: console, options: web,
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
            report(.cameraScreen(url: server.url))
        }
        if let startFailure {
            // The page shows the reason (the `unconfigured`, `unauthorized` or `failed` banner) until a stop
            // request: a session that failed while starting has already ended, so wait for the request itself.
            report(.showingFailure(startFailure))
            session.waitForStopRequest()
            return .shownUntilStopped(startFailure)
        }
        do {
            metrics.publish(try startPublishing(into: &services))
        } catch {
            services.stopAll()
            session.stop()
            return .notStarted(error)
        }
        report(.running(name: options.name, description: config.description))
        startControlSocket(into: &services)
        report(.ready(console: console))
        if options.reportsStats { services.started(statsTicker()) }

        session.waitUntilDone(frames: config.frames, duration: config.duration)
        services.stopAll()
        return ended()
    }

    /// The exit policy: a camera that failed for good outweighs failed outputs, which outweigh a clean end.
    private func ended() -> HostOutcome {
        let statusBeforeStop = session.status
        let recording = session.stats.recording
        session.stop()
        // A recording still running at the end is finalized by the stop.
        let summary = HostSummary(recorded: session.stats.recordingFailure == nil ? recording : nil, stats: session.stats.line)
        switch statusBeforeStop {
        case .failed, .cameraFailed, .busy: return .cameraFailed(statusBeforeStop, summary)
        case .configured, .unconfigured, .unauthorized: break
        }
        let failed = session.failedOutputs
        if failed > 0 { return .outputsFailed(count: failed, first: session.firstOutputFailure, summary) }
        return .stopped(summary)
    }

    /// What a signal does: each of them asks the host to stop.
    private func received(_ signal: HostSignal) {
        switch signal {
        case .interrupt, .terminate, .hangUp: requestStop()
        }
    }

    /// Starts what the config's `publish` asks for, fed from the session's encoded stream; nil when it asks for nothing.
    private func startPublishing(into services: inout HostServices) throws -> PublishService? {
        guard let publish = options.config.publish else { return nil }
        let service = try PublishService(config: publish, name: options.name, stream: SessionVideoStream(session: session))
        services.started(service.stop)
        if let server = service.server { report(.rtsp(url: server.url)) }
        if let publisher = service.publisher { report(.pushing(target: publisher.target.redacted)) }
        service.report(to: session)
        return service
    }

    /// The control socket, when asked for; a socket that cannot listen leaves the host running without it.
    private func startControlSocket(into services: inout HostServices) {
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
    private func statsTicker() -> () -> Void {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stats"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [self] in report(.stats(session.stats.line)) }
        timer.resume()
        return { timer.cancel() }
    }

    private func report(_ event: HostEvent) {
        for observer in observers { observer(event) }
    }
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
