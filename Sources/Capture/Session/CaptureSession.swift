import Camera
import Dispatch
import Filters
import Foundation
public import GStreamer
import SwiftFilterElement

/// Something a running session tells its host (printed by the CLI).
public enum SessionEvent: Sendable {
    /// A still was written.
    case stillWritten(path: String)
    /// A periodic still failed; the session goes on.
    case stillFailed(reason: String)
    /// GStreamer warned.
    case warning(String)
    /// The pipeline failed; the session is over.
    case failed(CameraStatus)
    /// The stream ended.
    case endOfStream
    /// Something the session did on its own that a person should see (recovery, metering settled).
    case notice(String)
}

/// One running pipeline and its controls: the `AVCaptureSession` of SwiftCam.
///
/// Commands may come from any thread (stdin, the control socket, timers); they serialize on `lock`.
/// The bus is watched on its own thread; frames never wait for either.
public final class CaptureSession: @unchecked Sendable {
    /// The config's name (file name without `.json`).
    public let name: String
    /// The config it runs.
    public let config: PipelineConfig
    /// Builds the graph.
    public let builder: PipelineBuilder
    /// The largest digital zoom factor.
    public let maxZoom = 16.0

    let lock = NSRecursiveLock()
    private let shared = Locked(Shared())
    var pipeline: Pipeline?
    private var watch: BusWatch?
    var filter: Element?
    var stillFrames: FrameTap?
    private var frameTap: FrameTap?
    private var recorder: Recorder?
    private var periodicStills: DispatchSourceTimer?
    private var counters: [String: (into: BufferCounter, out: BufferCounter, queue: Element)] = [:]
    private var filterIn = BufferCounter()
    private var filterOut = BufferCounter()
    private var userChain = ""
    /// Software fallbacks composed with the user's chain (see `applyChain`).
    var stages = SoftwareStages()
    /// The open V4L2 devices of the config's v4l2 sources, by source index, while running.
    var cameras: [Int: CameraDevice] = [:]
    /// Sequence-gap counters on the v4l2 sources of the running pipeline.
    private var sourceGaps: [SequenceGaps] = []
    /// Counts from pipelines that were replaced while recovering, added to the live ones.
    private let carried = Locked(Carried())
    /// Runs software spot metering; `meteringGeneration` cancels a running loop.
    let meteringQueue: DispatchQueue
    var meteringGeneration = 0
    private let recoveryQueue: DispatchQueue
    var activeSource = 0
    private var stillCount = 0
    private var stillSequence = 0
    private var startTime = 0.0
    private var rateWindow = (time: 0.0, framesIn: 0, framesOut: 0, fpsIn: 0.0, fpsOut: 0.0)
    private var finalStats: SessionStats?

    /// State the bus thread writes and everyone reads.
    private struct Shared {
        var status: CameraStatus = .configured
        var ended = false
        var lastCapture: String?
        var onEvent: (@Sendable (SessionEvent) -> Void)?
        /// A source failed and the session is bringing it back; errors and EOS of the old graph are ignored.
        var recovering = false
        /// `stop` was called: recovery gives up.
        var stopping = false
        /// Starts recovery after a source error (set by `start` for v4l2 configs).
        var recover: (@Sendable (CameraStatus) -> Void)?
    }

    /// Counts carried over from graphs replaced during recovery.
    private struct Carried {
        var framesIn = 0
        var framesOut = 0
        var queueDrops = 0
        var sourceDrops = 0
        var recoveries = 0
    }

    /// A session for a validated config.
    public init(name: String, config: PipelineConfig, builder: PipelineBuilder? = nil) {
        GStreamer.initialize()
        self.name = name
        self.config = config
        self.builder = builder ?? PipelineBuilder(config: config)
        userChain = config.filter ?? ""
        meteringQueue = DispatchQueue(label: "swiftcam.metering.\(name)")
        recoveryQueue = DispatchQueue(label: "swiftcam.recovery.\(name)")
    }

    deinit {
        periodicStills?.cancel()
        watch?.cancel()
    }

    /// Where the session stands.
    public var status: CameraStatus { shared.withLock { $0.status } }

    /// The filtered frames for Swift code, when the config has `"tap": true` (nil otherwise or when stopped):
    /// the latest frame on demand, or each frame to a closure on its own queue.
    public var tap: FrameTap? {
        lock.lock()
        defer { lock.unlock() }
        return frameTap
    }

    /// Whether the stream ended or failed.
    public var hasEnded: Bool { shared.withLock { $0.ended } }

    /// Receives events on the bus or timer thread; set before `start`.
    public func onEvent(_ handler: (@Sendable (SessionEvent) -> Void)?) {
        shared.withLock { $0.onEvent = handler }
    }

    func emit(_ event: SessionEvent) {
        shared.withLock { $0.onEvent }?(event)
    }

    private static func emit(_ event: SessionEvent, shared: Locked<Shared>) {
        shared.withLock { $0.onEvent }?(event)
    }

    // MARK: - Start and stop

    /// Checks the cameras, builds the graph and plays it, waiting at most `timeout` seconds.
    /// Throws `StartError` with the status (`unconfigured`, `unauthorized`, `failed`).
    ///
    /// With v4l2 sources the session recovers from streaming errors (unplugged, driver reloaded, fatal driver
    /// errors): status `failed`, then it waits for the device to return and rebuilds the graph.
    public func start(timeout: Double = 10) throws {
        lock.lock()
        defer { lock.unlock() }
        guard pipeline == nil else { return }
        shared.withLock { $0.stopping = false }
        for path in v4l2Devices {
            if let error = DevicePreflight.check(path) {
                let status = CameraStatus(opening: path, error: error)
                shared.withLock { $0.status = status }
                throw StartError(status: status)
            }
        }
        try launch(timeout: timeout)
        if !v4l2Devices.isEmpty {
            shared.withLock {
                $0.recover = { [weak self] status in
                    guard let self else { return }
                    self.recoveryQueue.async { self.recover(from: status) }
                }
            }
        }
        if let every = config.still?.every { startPeriodicStills(every: every) }
        if config.record?.autostart == true { _ = try startRecording() }
    }

    /// The device paths of the config's v4l2 sources.
    var v4l2Devices: [String] {
        (config.sources ?? []).filter { $0.kind == .v4l2 }.map { $0.device ?? "/dev/video0" }
    }

    /// Builds the graph, plays it and opens the cameras for their controls; the caller holds `lock`.
    private func launch(timeout: Double) throws {
        let pipeline: Pipeline
        do {
            pipeline = try builder.build()
        } catch {
            throw fail(element: "pipeline", message: "\(error)")
        }
        self.pipeline = pipeline
        filter = pipeline.allElements.first { $0.factoryName == SwiftFilterElement.factoryName }
        if let filter {
            if let pad = try? filter.staticPad("sink") { filterIn = pad.countBuffers().counter }
            if let pad = try? filter.staticPad("src") { filterOut = pad.countBuffers().counter }
        }
        if let sink = pipeline.element(named: PipelineBuilder.Names.stillFrames, as: AppSink.self) {
            stillFrames = try? FrameTap(sink: sink, backlog: 1)
        }
        if let sink = pipeline.element(named: PipelineBuilder.Names.tap, as: AppSink.self) {
            frameTap = try? FrameTap(sink: sink, backlog: 8)
        }
        for queue in pipeline.allElements where queue.factoryName == "queue" {
            if let into = try? queue.staticPad("sink"), let out = try? queue.staticPad("src") {
                counters[queue.name] = (into.countBuffers().counter, out.countBuffers().counter, queue)
            }
        }
        sourceGaps = []
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .v4l2 {
            if let element = pipeline.element(named: PipelineBuilder.Names.source(index)), let pad = try? element.staticPad("src") {
                let gaps = SequenceGaps()
                gaps.watch(pad)
                sourceGaps.append(gaps)
            }
        }
        // The watch holds only the shared state, never the session, so dropping a session frees it.
        let shared = shared
        watch = pipeline.bus.watch { message in Self.handle(message, shared: shared) }
        do {
            try pipeline.setState(.playing, timeout: timeout)
        } catch let GStreamerError.stateChangeFailed(element, _, message) {
            teardown()
            // The bus watch may have taken the error message first: it has the element and GStreamer's words.
            if case let .failed(source, text) = status { throw fail(element: source, message: withHolder(text)) }
            throw fail(element: element, message: withHolder(message))
        } catch {
            teardown()
            throw fail(element: pipeline.name, message: "\(error)")
        }
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .v4l2 {
            cameras[index] = try? CameraDevice(path: source.device ?? "/dev/video0")
        }
        startTime = monotonicSeconds()
        rateWindow = (startTime, 0, 0, 0, 0)
        shared.withLock { $0.status = .configured }
    }

    /// Names the process holding a busy camera (from /proc) in GStreamer's "busy" message.
    private func withHolder(_ message: String) -> String {
        guard message.lowercased().contains("busy") else { return message }
        for path in v4l2Devices {
            if let holder = ProcessHolder.holder(of: path) { return "\(message) (\(path) is in use by \(holder))" }
        }
        return message
    }

    private func fail(element: String, message: String) -> StartError {
        let status = CameraStatus.failed(element: element, message: message)
        shared.withLock { $0.status = status }
        return StartError(status: status)
    }

    /// Sends end-of-stream so every file is finalized, waits at most `timeout` seconds, then stops the pipeline.
    public func stop(timeout: Double = 5) {
        shared.withLock { $0.stopping = true }
        lock.lock()
        defer { lock.unlock() }
        meteringGeneration += 1
        periodicStills?.cancel()
        periodicStills = nil
        guard let pipeline else { return }
        // The recording has a pipeline of its own: end its file first, while frames still flow.
        recorder?.finish()
        recorder = nil
        if !hasEnded {
            pipeline.sendEndOfStream()
            let deadline = monotonicSeconds() + timeout
            while !hasEnded, monotonicSeconds() < deadline { usleep(10_000) }
        }
        teardown()
    }

    private func teardown() {
        if pipeline != nil { finalStats = currentStats() }
        watch?.cancel()
        watch = nil
        try? pipeline?.setState(.null)
        stillFrames = nil
        frameTap = nil
        filter = nil
        counters = [:]
        cameras = [:]
        pipeline = nil
    }

    // MARK: - Recovery

    /// Runs on the recovery queue after a source error: finalizes the recording, drops the graph and the
    /// device handles (so a driver can be reloaded), waits for every camera to open again, rebuilds and
    /// plays, then continues the recording into the next part. Gives up only when `stop` is called.
    private func recover(from status: CameraStatus) {
        lock.lock()
        guard pipeline != nil, !shared.withLock({ $0.stopping }) else {
            lock.unlock()
            return
        }
        meteringGeneration += 1
        var recordedPath: String?
        if let recorder {
            self.recorder = nil
            // The failed source's end-of-stream usually reached the file already; if not, this sends it.
            recorder.finish(timeout: 3)
            recordedPath = recorder.path
        }
        let live = currentStats()
        carried.withLock {
            $0.framesIn = live.framesIn
            $0.framesOut = live.framesOut
            $0.queueDrops = live.queueDrops
            $0.sourceDrops = live.sourceDrops
            $0.recoveries += 1
        }
        filterIn = BufferCounter()
        filterOut = BufferCounter()
        teardown()
        lock.unlock()
        let devices = v4l2Devices
        emit(.notice("recovering: waiting for \(devices.joined(separator: ", ")) (\(status))"))
        // A replugged camera (or a reloading driver) bounces: give it a moment before reopening, which also
        // leaves a window in which nothing holds the driver, so it can be unloaded.
        var settle = 6
        while settle > 0, !shared.withLock({ $0.stopping }) {
            usleep(250_000)
            settle -= 1
        }
        while !shared.withLock({ $0.stopping }) {
            if devices.allSatisfy({ DevicePreflight.check($0) == nil }) {
                lock.lock()
                defer { lock.unlock() }
                if shared.withLock({ $0.stopping }) { break }
                do {
                    try launch(timeout: 10)
                    if userChain != (config.filter ?? "") || stages != SoftwareStages() { _ = try? applyChain() }
                    var line = "recovered: \(devices.joined(separator: ", ")) streaming again"
                    if let recordedPath {
                        let next = try beginRecording(at: Self.nextPart(after: recordedPath))
                        line += "; \(recordedPath) is complete, recording continues in \(next)"
                    }
                    shared.withLock { $0.recovering = false }
                    emit(.notice(line))
                    return
                } catch {
                    // Not ready yet (the node may appear before the driver accepts formats): try again.
                    shared.withLock { $0.status = status }
                }
            }
            usleep(250_000)
        }
        shared.withLock { $0.ended = true }
    }

    /// `name-DATE.mkv` → `name-DATE-part2.mkv`, `…-part2.mkv` → `…-part3.mkv`, skipping names in use.
    static func nextPart(after path: String) -> String {
        let dot = path.lastIndex(of: ".") ?? path.endIndex
        var stem = String(path[..<dot])
        let ext = String(path[dot...])
        var number = 2
        if let range = stem.range(of: "-part", options: .backwards), let current = Int(stem[range.upperBound...]) {
            number = current + 1
            stem = String(stem[..<range.lowerBound])
        }
        var candidate = "\(stem)-part\(number)\(ext)"
        while FileManager.default.fileExists(atPath: candidate) {
            number += 1
            candidate = "\(stem)-part\(number)\(ext)"
        }
        return candidate
    }

    /// How many times the session recovered from a source failure.
    public var recoveries: Int { carried.withLock { $0.recoveries } }

    /// Runs on the bus thread.
    private static func handle(_ message: Message, shared: Locked<Shared>) {
        switch message {
        case let .error(source, text, debug):
            let detail = debug.flatMap { $0.split(separator: "\n").last.map(String.init) }
            let status = CameraStatus.failed(element: source, message: detail.map { "\(text) (\($0))" } ?? text)
            // The first error is the driver's; the source's follow-up "Internal data stream error" is not news.
            let (ignore, recover) = shared.withLock { state -> (Bool, (@Sendable (CameraStatus) -> Void)?) in
                if state.recovering || state.ended { return (true, nil) }
                state.status = status
                if let recover = state.recover, source.hasPrefix("source"), !state.stopping {
                    state.recovering = true
                    return (false, recover)
                }
                state.ended = true
                return (false, nil)
            }
            guard !ignore else { return }
            emit(.failed(status), shared: shared)
            recover?(status)
        case .eos:
            let recovering = shared.withLock { state -> Bool in
                if !state.recovering { state.ended = true }
                return state.recovering
            }
            if !recovering { emit(.endOfStream, shared: shared) }
        case let .warning(source, text, _):
            emit(.warning("\(source): \(text)"), shared: shared)
        default:
            break
        }
    }

    /// Blocks until the stream ends, fails, `frames` frames have passed the filter, `duration` seconds have
    /// passed, or `shouldStop` says so; polls every 50 ms.
    public func waitUntilDone(frames: Int? = nil, duration: Double? = nil, shouldStop: () -> Bool = { false }) {
        let start = monotonicSeconds()
        while !hasEnded, !shouldStop() {
            if let frames, framesFiltered >= frames { return }
            if let duration, monotonicSeconds() - start >= duration { return }
            usleep(50_000)
        }
    }

    /// Frames that left the filter, across recoveries.
    public var framesFiltered: Int {
        lock.lock()
        defer { lock.unlock() }
        return carried.withLock { $0.framesOut } + filterOut.value
    }

    // MARK: - Controls

    func running() throws -> Pipeline {
        guard let pipeline, !hasEnded else { throw SessionError.notRunning }
        return pipeline
    }

    /// Writes a still of the next filtered frame, atomically and under a new name, into `directory`
    /// (default: the config's); returns its path. A failure leaves no file and the pipeline running.
    @discardableResult
    public func snapshot(directory: String? = nil) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        _ = try running()
        guard let tap = stillFrames else { throw SessionError.missingElement(name: PipelineBuilder.Names.stillFrames, command: "snap") }
        // Prefer a frame that arrives after the request, like a shutter press; fall back to the newest.
        let seen = tap.counts.received
        let deadline = monotonicSeconds() + 2
        while tap.counts.received == seen, monotonicSeconds() < deadline { usleep(2_000) }
        guard let frame = tap.latestFrame else { throw SessionError.snapshotFailed(reason: "no frame has arrived yet") }
        let still = config.still
        let format = still?.format ?? .jpeg
        let bytes = try StillEncoder.encode(frame, format: format, quality: still?.quality ?? 90)
        stillSequence += 1
        let path = try StillWriter.write(bytes, directory: directory ?? still?.directory ?? "captures", base: stillBaseName(),
                                         extension: format == .png ? "png" : "jpg")
        stillCount += 1
        shared.withLock { $0.lastCapture = path }
        return path
    }

    private func stillBaseName() -> String {
        let pattern = config.still?.pattern ?? "{name}-{date}-{n}"
        var number = String(stillSequence)
        while number.count < 4 { number = "0" + number }
        return pattern.replacingOccurrences(of: "{name}", with: name)
            .replacingOccurrences(of: "{date}", with: timestamp())
            .replacingOccurrences(of: "{n}", with: number)
    }

    /// Takes a still every `seconds` on a timer; failures are reported as events and the timer goes on.
    public func startPeriodicStills(every seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        periodicStills?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stills.\(name)"))
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            do {
                let path = try self.snapshot()
                self.emit(.stillWritten(path: path))
            } catch {
                self.emit(.stillFailed(reason: "\(error)"))
            }
        }
        periodicStills = timer
        timer.resume()
    }

    /// Switches to the other source live (no restart; a recording continues). Returns the new source's label.
    @discardableResult
    public func switchCamera() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let pipeline = try running()
        guard (config.sources?.count ?? 0) > 1,
              let selector = pipeline.element(named: PipelineBuilder.Names.selector) else { throw SessionError.singleSource }
        let next = 1 - activeSource
        let pad = try selector.staticPad("sink_\(next)")
        try selector.set("active-pad", pad)
        activeSource = next
        return sourceLabel(next)
    }

    private func sourceLabel(_ index: Int) -> String {
        let source = config.sources?[index]
        return source?.label ?? "\(index) (\(source?.kind.rawValue ?? "source")\(source?.device.map { " \($0)" } ?? ""))"
    }

    /// Replaces the user's filter chain (the `chain` property); invalid text throws and changes nothing.
    @discardableResult
    public func setFilter(_ text: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let chain = try FilterChain(parsing: text)
        userChain = chain.description
        return try applyChain()
    }

    /// Sets the element's chain: the software stages (see `SoftwareStages`) before the user's chain.
    func applyChain() throws -> String {
        _ = try running()
        guard let filter else { throw SessionError.missingElement(name: "swiftfilter", command: "filter") }
        let text = try stages.chain(user: userChain)
        try filter.set("chain", text)
        return text
    }

    /// Starts recording into a new file while everything else keeps running; returns its path.
    @discardableResult
    public func startRecording() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        _ = try running()
        if let recorder { throw SessionError.alreadyRecording(path: recorder.path) }
        let directory = config.record?.directory ?? "recordings"
        try StillWriter.createDirectory(directory)
        var path = "\(directory)/\(name)-\(timestamp()).\(builder.recordExtension)"
        var attempt = 2
        while FileManager.default.fileExists(atPath: path) {
            path = "\(directory)/\(name)-\(timestamp())-\(attempt).\(builder.recordExtension)"
            attempt += 1
        }
        return try beginRecording(at: path)
    }

    /// Attaches a recording branch writing `path` (after recovery: the next part); the caller holds `lock`.
    private func beginRecording(at path: String) throws -> String {
        let pipeline = try running()
        guard let tee = pipeline.element(named: PipelineBuilder.Names.tee) else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "record")
        }
        recorder = try Recorder(pipeline: pipeline, tee: tee, graph: builder.recordingGraph(location: path), path: path)
        return path
    }

    /// Finalizes the recording (EOS down its branch only) and returns its path.
    @discardableResult
    public func stopRecording() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        guard let recorder else { throw SessionError.notRecording }
        self.recorder = nil
        guard recorder.finish() else {
            let reason = recorder.failureReason ?? "its end was not written in time"
            throw SessionError.recordingFailed(reason: "\(recorder.path): \(reason)")
        }
        return recorder.path
    }

    /// The file being recorded, if any.
    public var recordingPath: String? {
        lock.lock()
        defer { lock.unlock() }
        return recorder?.path
    }

    /// Rates, counts and drops now (after `stop`, as they were when the pipeline stopped).
    public var stats: SessionStats {
        lock.lock()
        defer { lock.unlock() }
        if pipeline == nil, let finalStats { return finalStats }
        return currentStats()
    }

    private func currentStats() -> SessionStats {
        let now = monotonicSeconds()
        let base = carried.withLock { $0 }
        let framesIn = base.framesIn + filterIn.value, framesOut = base.framesOut + filterOut.value
        if now - rateWindow.time >= 0.5 {
            let span = now - rateWindow.time
            rateWindow = (now, framesIn, framesOut,
                          Double(framesIn - rateWindow.framesIn) / span, Double(framesOut - rateWindow.framesOut) / span)
        }
        var queueDrops = base.queueDrops
        for (_, counter) in counters {
            let queued = (try? counter.queue.get("current-level-buffers", as: Int.self)) ?? 0
            queueDrops += max(0, counter.into.value - counter.out.value - queued)
        }
        if let recorder { queueDrops += max(0, recorder.framesIn.value - recorder.framesOut.value - 8) }
        let filterStats = filter.flatMap { SwiftFilterElement.stats(of: $0) }
        return SessionStats(
            status: status.name, uptime: pipeline == nil ? 0 : now - startTime,
            framesIn: framesIn, framesOut: framesOut, fpsIn: rateWindow.fpsIn, fpsOut: rateWindow.fpsOut,
            queueDrops: queueDrops, qosDrops: filterStats?.dropped ?? 0,
            sourceDrops: base.sourceDrops + sourceGaps.reduce(0) { $0 + $1.lost },
            filterMeanMs: filterStats?.meanMilliseconds ?? 0, filterMaxMs: filterStats?.maxMilliseconds ?? 0,
            chain: filterStats?.chain ?? "", activeSource: activeSource, recording: recorder?.path,
            stills: stillCount, lastCapture: shared.withLock { $0.lastCapture })
    }

    /// The Graphviz description of the running graph, or nil when not running.
    public func dotDescription() -> String? {
        lock.lock()
        defer { lock.unlock() }
        return pipeline?.dotDescription()
    }
}

/// Why `start` failed, carrying the status.
public struct StartError: CategorizedError, Sendable {
    /// The status the session ended in.
    public let status: CameraStatus
    public var description: String { "status \(status)" }
    /// `unauthorized` → permission, `unconfigured` → unavailable, `failed` → software.
    public var kind: FailureKind {
        switch status {
        case .unauthorized: .permission
        case .unconfigured: .unavailable
        case .configured, .failed: .software
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Local time as YYYYMMDD-HHMMSS for file names.
func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
}
