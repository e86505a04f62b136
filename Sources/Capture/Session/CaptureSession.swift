public import Analysis
public import Base
import Camera
public import Config
import Dispatch
import Filters
public import GStreamer
import Synchronization

/// Something a running session tells its host (printed by the CLI).
public enum SessionEvent: Sendable {
    /// A still was written.
    case stillWritten(path: String)
    /// A still failed (periodic or asked for by any transport); the session goes on.
    case stillFailed(reason: String)
    /// GStreamer warned.
    case warning(String)
    /// A recording ended at a write or encoder error; the session goes on.
    case recordingFailed(String)
    /// The pipeline failed; the session is over (or recovering, for cameras).
    case failed(CameraStatus)
    /// The stream ended.
    case endOfStream
    /// Something the session did on its own that a person should see (recovery, metering settled).
    case notice(String)
    /// An analyser saw something (`motion start area=0.12 box=…`).
    case analysis(AnalysisEvent)
}

/// One running pipeline and its controls: the `AVCaptureSession` of SwiftCam.
///
/// Commands may come from any thread (stdin, the control socket, timers). No lock is held while a command
/// waits for a frame, encodes, or changes a pipeline's state, so `stats` is answered while a `snap` waits:
/// - `state` (a `Condition` over `SessionState`, SessionState.swift): status, the playing graph, counts carried
///   over recoveries; every wait here (for EOS, for a frame goal, for a stop request) waits on it with a deadline;
/// - its parts, each an object with its own lock that sees the session only through `SessionCore`: `controls` (camera
///   controls and the user's chain), `stills`, `recordings`, `live` (the shared encoders), `analysis`, `storage`.
/// Start, stop and recovery claim `transitioning` instead of holding a lock across a state change; the bus thread's
/// handling is in SessionBus.swift.
public final class CaptureSession: Sendable {
    /// The config's name (file name without `.json`).
    public let name: String
    /// The config it runs.
    public let config: PipelineConfig
    /// Builds the graph.
    public let builder: PipelineBuilder
    /// The largest digital zoom factor.
    public let maxZoom = 16.0

    let state = Condition(SessionState())
    /// What the parts may ask of the session (SessionCore.swift).
    let core: SessionCore
    /// The camera controls and the user's chain (SessionControls.swift).
    let controls: SessionControls
    /// Stills on request and on a timer (Stills.swift).
    let stills: SessionStills
    /// The recording, one at a time (Recording.swift).
    let recordings: SessionRecordings
    let rates = Locked(RateWindow())
    /// Whether anyone waits for a frame count (`waitUntilDone(frames:)`, `waitForFrames`); read per frame.
    let frameGoal = FrameGoal()
    let recoveryQueue: DispatchQueue
    /// The inotify wait of a running recovery, so `stop` can wake it.
    let recoveryArrival = Locked<DeviceArrival?>(nil)
    /// What transports outside Capture add to `stats` (a publisher's state), by key.
    let reports = Locked([String: @Sendable () -> String]())
    /// The shared live encoders (browser viewers, RTSP, publishers), fed from the tee while subscribed.
    let live: LiveStreams
    /// When a silent camera counts as stalled (StallWatchdog.swift); read when each graph starts.
    let stallSettings = Locked(StallWatchdog.Settings())
    /// The disk budget of the recording and still folders, when the config has `storage`.
    let storage: StorageBudget?
    /// The analysers, their events and triggers (Analysis/).
    let analysis: SessionAnalysis

    /// A session for a validated config.
    public init(name: String, config: PipelineConfig, builder: PipelineBuilder? = nil) {
        GStreamer.initialize()
        self.name = name
        self.config = config
        let builder = builder ?? PipelineBuilder(config: config)
        self.builder = builder
        let core = SessionCore(name: name, state: state)
        self.core = core
        controls = SessionControls(core: core, sources: config.sources, chain: builder.filterChain, maxZoom: maxZoom)
        recoveryQueue = DispatchQueue(label: "swiftcam.recovery.\(name)")
        live = LiveStreams(session: name, state: state, encoder: config.live?.encoder)
        analysis = SessionAnalysis(session: name, config: config)
        let slot = Locked(RecordingSlot.idle)
        let storage = config.storage.map { limits in
            // Where recordings and stills go (`snap` without a folder writes stills to `captures` even without `still`).
            let directories =
                (config.record != nil ? [config.record?.directory ?? "recordings"] : []) + [config.still?.directory ?? "captures"]
            return StorageBudget(
                limits: limits, directories: directories, label: name, log: { line in core.emit(.notice(line)) },
                openFiles: { slot.withLock { $0.openFiles } })
        }
        self.storage = storage
        stills = SessionStills(core: core, config: config.still, storage: storage)
        recordings = SessionRecordings(core: core, builder: builder, slot: slot, storage: storage)
    }

    deinit {
        state.withLock { $0.graph }?.teardown()
    }

    /// Where the session stands.
    public var status: CameraStatus { state.withLock { $0.status } }

    /// The filtered frames for Swift code, when the config has `"tap": true` (nil otherwise or when stopped):
    /// the latest frame on demand, or each frame to a closure on its own queue.
    public var tap: FrameTap? { graph?.frameTap }

    /// Whether the stream ended or failed.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Receives events on the bus or timer thread; set before `start`.
    public func onEvent(_ handler: (@Sendable (SessionEvent) -> Void)?) {
        state.withLock { $0.onEvent = handler }
    }

    /// A warning from a transport over the session (a viewer ended, and why), told as the session's own are.
    public func warn(_ text: String) {
        emit(.warning(text))
    }

    /// Tells the host `event` (on the caller's thread).
    func emit(_ event: SessionEvent) {
        core.emit(event)
    }

    /// The playing graph, or nil.
    var graph: RunningGraph? { core.graph }

    /// The playing graph; throws when the session is not running.
    func running() throws -> RunningGraph {
        try core.running()
    }

    // MARK: - Start and stop

    /// Checks the cameras, builds the graph and plays it, waiting at most `timeout` seconds.
    /// Throws `StartError` with the status (`unconfigured`, `unauthorized`, `failed`).
    ///
    /// With v4l2 sources the session recovers from streaming errors (unplugged, driver reloaded, fatal driver
    /// errors) and from a camera that stops sending frames without one (`StallWatchdog`): status `failed` (or `busy`)
    /// with the camera's sentence, then it waits for the device to return and rebuilds the graph.
    public func start(timeout: Double = 10) throws {
        let claimed = state.withLock { state -> Bool in
            guard state.graph == nil, !state.transitioning else { return false }
            state.transitioning = true
            state.stopping = false
            state.stopRequested = false
            state.ended = false
            return true
        }
        guard claimed else { return }
        defer { state.withLock { $0.transitioning = false } }
        _ = Self.allocatorPolicy
        for path in v4l2Devices {
            if let error = DevicePreflight.check(path) {
                let status = CameraStatus(opening: path, error: error)
                state.withLock { $0.status = status }
                throw StartError(status: status)
            }
        }
        let graph = try launch(timeout: timeout)
        let recovers =
            !v4l2Devices.isEmpty || config.sources?.contains { $0.kind == .libcamera || $0.kind == .launch } == true
            || stallSettings.withLock { $0.watchesEverySource }
        state.withLock { state in
            state.graph = graph
            state.status = .configured
            if recovers {
                state.recover = { [weak self] failure in self?.beginRecovery(failure) }
            }
        }
        if recovers { watchForStalls(graph) }
        live.graphChanged()
        startAnalysis()
        storage?.start()
        if let every = config.still?.every { stills.startPeriodic(every: every) }
        if config.record?.autostart == true { _ = try recordings.start() }
    }

    /// A session builds and drops pipelines for as long as it runs (a recording's encoder, still encoders, recovery):
    /// freed frame buffers must go back to the system, or RSS climbs with every recording (`GStreamer.mapLargeBlocks`).
    /// Process-wide, set once by the first session that starts.
    private static let allocatorPolicy: Bool = GStreamer.mapLargeBlocks()

    /// The device paths of the config's v4l2 sources.
    var v4l2Devices: [String] {
        (config.sources ?? []).filter { $0.kind == .v4l2 }.map { $0.device ?? "/dev/video0" }
    }

    /// Chooses the cameras' modes, builds the graph and plays it; a failure sets the status and throws `StartError`.
    func launch(timeout: Double) throws -> RunningGraph {
        // The cameras' modes are read afresh at every launch: a camera replugged during recovery may be another.
        let resolved: PipelineBuilder
        do {
            resolved = try builder.resolvingCameras()
        } catch {
            let status = CameraStatus(CameraFailure(device: error.path, cause: .noMode(error), next: .stopping))
            state.withLock { $0.status = status }
            throw StartError(status: status)
        }
        if let status = resolved.missingLibcameraCamera {
            state.withLock { $0.status = status }
            throw StartError(status: status)
        }
        do {
            let graph = try launch(resolved, timeout: timeout)
            for line in resolved.cameraSummaries { emit(.notice(line)) }
            return graph
        } catch let error as StartError {
            // A hardware JPEG decoder that will not start is not tried again in this process: jpegdec takes over.
            let hardware = resolved.cameraPlans.values.compactMap(\.decoder).filter { $0 != JPEGDecoder.software }
            guard !hardware.isEmpty, !state.withLock({ $0.stopping }) else { throw error }
            hardware.forEach(JPEGDecoder.markFailed)
            // The failed graph's error ended the start it belonged to, not this one.
            state.withLock { $0.ended = false }
            DebugLog.warning("hardware JPEG decoder \(hardware.joined(separator: ", ")): \(error.status)")
            emit(
                .warning(
                    "the hardware JPEG decoder \(hardware.joined(separator: ", ")) would not start; "
                        + "decoding with \(JPEGDecoder.software) instead"))
            return try launch(timeout: timeout)
        }
    }

    /// Builds `resolved`'s graph and plays it; a failure sets the status and throws `StartError`.
    private func launch(_ resolved: PipelineBuilder, timeout: Double) throws -> RunningGraph {
        let graph: RunningGraph
        do {
            graph = try RunningGraph(config: config, builder: resolved)
        } catch {
            throw fail(element: "pipeline", message: "\(error)")
        }
        // The handlers hold the shared state, never the session, so dropping a session frees it.
        let state = state, goal = frameGoal, context = FailureContext(config: config)
        state.withLock { $0.lastFailure = nil }
        do {
            try graph.play(config: config, timeout: timeout, handler: { message in Self.handle(message, state: state, context: context) }) {
                // Wakes `waitUntilDone` only while it waits for a frame count.
                if goal.waiters.load(ordering: .relaxed) > 0 { state.withLock { _ in } }
                goal.observer.withLock { $0 }?()
            }
        } catch let GStreamerError.stateChangeFailed(element, _, message) {
            // The bus thread reads the error that failed the change (its code, not GStreamer's words) and may not
            // have finished when the change returns: wait for it a moment.
            let seen = state.wait(until: MonotonicClock.now + 2) { $0.lastFailure }
            DebugLog.warning("\(name): \(element) would not start: \(message)")
            if let seen {
                // While recovering, recovery decides what the status says (and what it does next).
                state.withLock { if !$0.recovering { $0.status = seen } }
                throw StartError(status: seen)
            }
            throw fail(element: element, message: "would not start (`swiftcam run --verbose` shows GStreamer's message)")
        } catch let error as SourceProcessError {
            DebugLog.warning("\(name): \(error.source.label)'s process: \(error.ending.map { "\($0)" } ?? "did not play in time")")
            // While recovering, recovery decides what the status says (and what it does next).
            state.withLock { if !$0.recovering { $0.status = error.status } }
            throw StartError(status: error.status)
        } catch {
            throw fail(element: graph.pipeline.name, message: "\(error)")
        }
        for (index, source) in (config.sources ?? []).enumerated() {
            guard let settings = source.controls, let camera = graph.cameras[index] else { continue }
            do {
                for note in try camera.apply(settings.mapValues { Int64($0) }) { emit(.notice(note)) }
            } catch {
                emit(.warning("\(error)"))
            }
        }
        // Rates count from what earlier graphs carried, or the first rate after a recovery would count them too.
        let carried = state.withLock { $0.carried }
        rates.withLock { $0 = RateWindow(time: graph.startTime, framesIn: carried.framesIn, framesOut: carried.framesOut) }
        return graph
    }

    private func fail(element: String, message: String) -> StartError {
        let status = CameraStatus.failed(element: element, message: message)
        state.withLock { $0.status = status }
        return StartError(status: status)
    }

    /// Sends end-of-stream so every file is finalized, waits at most `timeout` seconds for it, then stops
    /// the pipeline. Waits for a start or recovery under way to finish (or give up) first. Returns the file of the
    /// recording it finished, if one was running (of a segmented one, its last segment); with a storage budget, the
    /// folders are within it again once the stop returns.
    @discardableResult
    public func stop(timeout: Double = 5) -> String? {
        state.withLock {
            $0.stopping = true
            $0.stopRequested = true
        }
        recoveryArrival.withLock { $0?.cancel() }
        controls.cancelMetering()
        stills.stopPeriodic()
        storage?.stop()
        let graph: RunningGraph?? = state.wait(until: MonotonicClock.now + 30) { state in
            guard !state.transitioning else { return nil }
            state.transitioning = true
            return .some(state.graph)
        }
        guard case let .some(claimed) = graph else { return nil }  // a start or recovery that never finished
        guard let graph = claimed else {
            state.withLock { $0.transitioning = false }
            return nil
        }
        // The recording has a pipeline of its own: end its file first, while frames still flow.
        let recorded = recordings.finish()
        stopAnalysis()
        live.shutdown()
        if !hasEnded {
            graph.pipeline.sendEndOfStream()
            _ = state.wait(until: MonotonicClock.now + timeout) { $0.ended ? true : nil }
        }
        let final = stats(of: graph)
        controls.releaseCameras(of: graph)
        graph.teardown()
        state.withLock { state in
            state.finalStats = final
            state.graph = nil
            state.transitioning = false
        }
        // Nothing is open any more: the last segment counts in full, and no growth is reserved for it.
        storage?.checkNow()
        return recorded
    }

    /// A test hook: pauses the playing graph's sources (`source0`, `source1`, …) so frames stop flowing while the
    /// process and the pipeline go on, as with a hung driver that posts no error. Returns how many it paused.
    @discardableResult
    public func stallSources() -> Int {
        guard let graph else { return 0 }
        var paused = 0
        for index in 0..<max(1, config.sources?.count ?? 0) {
            if let source = graph.pipeline.element(named: PipelineBuilder.Names.source(index)), source.requestState(.paused) { paused += 1 }
        }
        return paused
    }

    /// Frames that left the filter, across recoveries.
    public var framesFiltered: Int { state.withLock { $0.framesFiltered } }

    /// Stills and recordings that failed so far.
    public var failedOutputs: Int { state.withLock { $0.failedOutputs } }

    /// The kind of the first still or recording that failed (`permission` for a folder this user may not write).
    public var firstOutputFailure: FailureKind? { state.withLock { $0.firstOutputFailure } }

    /// Failures that happened on their own (a recording ending at a full disk) and that no reply has told
    /// yet; the next reply on any transport carries them, once.
    public func takeUnreported() -> [String] {
        state.withLock { state in
            defer { state.unreported = [] }
            return state.unreported
        }
    }

    /// How many times the session recovered from a source failure.
    public var recoveries: Int { state.withLock { $0.carried.recoveries } }

    /// The Graphviz description of the running graph, or nil when not running.
    public func dotDescription() -> String? {
        graph?.pipeline.dotDescription()
    }
}
