import Dispatch
import Filters
import Foundation
import GStreamer
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

    private let lock = NSRecursiveLock()
    private let shared = Locked(Shared())
    private var pipeline: Pipeline?
    private var watch: BusWatch?
    private var filter: Element?
    private var stillFrames: FrameTap?
    private var frameTap: FrameTap?
    private var recorder: Recorder?
    private var periodicStills: DispatchSourceTimer?
    private var counters: [String: (into: BufferCounter, out: BufferCounter, queue: Element)] = [:]
    private var filterIn = BufferCounter()
    private var filterOut = BufferCounter()
    private var userChain = ""
    private var zoomFactor = 1.0
    private var activeSource = 0
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
    }

    /// A session for a validated config.
    public init(name: String, config: PipelineConfig, builder: PipelineBuilder? = nil) {
        self.name = name
        self.config = config
        self.builder = builder ?? PipelineBuilder(config: config)
        userChain = config.filter ?? ""
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

    private func emit(_ event: SessionEvent) {
        shared.withLock { $0.onEvent }?(event)
    }

    private static func emit(_ event: SessionEvent, shared: Locked<Shared>) {
        shared.withLock { $0.onEvent }?(event)
    }

    // MARK: - Start and stop

    /// Checks the cameras, builds the graph and plays it, waiting at most `timeout` seconds.
    /// Throws `StartError` with the status (`unconfigured`, `unauthorized`, `failed`).
    public func start(timeout: Double = 10) throws {
        lock.lock()
        defer { lock.unlock() }
        guard pipeline == nil else { return }
        for source in config.sources ?? [] where source.kind == .v4l2 {
            if let status = DevicePreflight.check(source.device ?? "/dev/video0") {
                shared.withLock { $0.status = status }
                throw StartError(status: status)
            }
        }
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
        // The watch holds only the shared state, never the session, so dropping a session frees it.
        let shared = shared
        watch = pipeline.bus.watch { message in Self.handle(message, shared: shared) }
        do {
            try pipeline.setState(.playing, timeout: timeout)
        } catch let GStreamerError.stateChangeFailed(element, _, message) {
            teardown()
            throw fail(element: element, message: message)
        } catch {
            teardown()
            throw fail(element: pipeline.name, message: "\(error)")
        }
        startTime = monotonicSeconds()
        rateWindow = (startTime, 0, 0, 0, 0)
        shared.withLock { $0.status = .configured }
        if let every = config.still?.every { startPeriodicStills(every: every) }
        if config.record?.autostart == true { _ = try startRecording() }
    }

    private func fail(element: String, message: String) -> StartError {
        let status = CameraStatus.failed(element: element, message: message)
        shared.withLock { $0.status = status }
        return StartError(status: status)
    }

    /// Sends end-of-stream so every file is finalized, waits at most `timeout` seconds, then stops the pipeline.
    public func stop(timeout: Double = 5) {
        lock.lock()
        defer { lock.unlock() }
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
        pipeline = nil
    }

    /// Runs on the bus thread.
    private static func handle(_ message: Message, shared: Locked<Shared>) {
        switch message {
        case let .error(source, text, debug):
            let detail = debug.flatMap { $0.split(separator: "\n").last.map(String.init) }
            let status = CameraStatus.failed(element: source, message: detail.map { "\(text) (\($0))" } ?? text)
            shared.withLock {
                $0.status = status
                $0.ended = true
            }
            emit(.failed(status), shared: shared)
        case .eos:
            shared.withLock { $0.ended = true }
            emit(.endOfStream, shared: shared)
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
            if let frames, filterOut.value >= frames { return }
            if let duration, monotonicSeconds() - start >= duration { return }
            usleep(50_000)
        }
    }

    // MARK: - Controls

    private func running() throws -> Pipeline {
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

    /// Digital zoom about the centre, clamped to [1, maxZoom]. Returns the factor applied.
    @discardableResult
    public func zoom(_ factor: Double) throws -> Double {
        lock.lock()
        defer { lock.unlock() }
        guard factor.isFinite else { throw SessionError.badCommand("zoom takes a number, e.g. zoom 2") }
        zoomFactor = min(max(factor, 1), maxZoom)
        _ = try applyChain()
        return zoomFactor
    }

    /// Sets the element's chain: the zoom stage (when zoomed) before the user's chain.
    private func applyChain() throws -> String {
        _ = try running()
        guard let filter else { throw SessionError.missingElement(name: "swiftfilter", command: "filter") }
        var stages: [String] = []
        if zoomFactor > 1 { stages.append("zoom factor=\(zoomFactor)") }
        if !userChain.isEmpty { stages.append(userChain) }
        let text = try FilterChain(parsing: stages.joined(separator: " | ")).description
        try filter.set("chain", text)
        return text
    }

    /// Tap-to-focus; test and file sources have no lens.
    public func focus(x: Double, y: Double) throws {
        throw SessionError.notSupported(feature: "focus", source: sourceDescription)
    }

    /// The torch (flash LED in torch mode).
    public func torch(_ on: Bool) throws {
        throw SessionError.notSupported(feature: "torch", source: sourceDescription)
    }

    /// Tap-to-expose at a normalized point.
    public func exposure(x: Double, y: Double) throws {
        throw SessionError.notSupported(feature: "exposure", source: sourceDescription)
    }

    private var sourceDescription: String {
        guard let source = config.sources?[safe: activeSource] else { return "launch pipeline" }
        switch source.kind {
        case .test: return "test pattern"
        case .file: return "file \(source.path ?? "")"
        case .v4l2: return "v4l2 \(source.device ?? "")"
        }
    }

    /// Starts recording into a new file while everything else keeps running; returns its path.
    @discardableResult
    public func startRecording() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let pipeline = try running()
        if let recorder { throw SessionError.alreadyRecording(path: recorder.path) }
        guard let tee = pipeline.element(named: PipelineBuilder.Names.tee) else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "record")
        }
        let directory = config.record?.directory ?? "recordings"
        try StillWriter.createDirectory(directory)
        var path = "\(directory)/\(name)-\(timestamp()).\(builder.recordExtension)"
        var attempt = 2
        while FileManager.default.fileExists(atPath: path) {
            path = "\(directory)/\(name)-\(timestamp())-\(attempt).\(builder.recordExtension)"
            attempt += 1
        }
        recorder = try Recorder(pipeline: pipeline, tee: tee, description: builder.recordBranchDescription(location: path), path: path)
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
        let framesIn = filterIn.value, framesOut = filterOut.value
        if now - rateWindow.time >= 0.5 {
            let span = now - rateWindow.time
            rateWindow = (now, framesIn, framesOut,
                          Double(framesIn - rateWindow.framesIn) / span, Double(framesOut - rateWindow.framesOut) / span)
        }
        var queueDrops = 0
        for (_, counter) in counters {
            let queued = (try? counter.queue.get("current-level-buffers", as: Int.self)) ?? 0
            queueDrops += max(0, counter.into.value - counter.out.value - queued)
        }
        if let recorder { queueDrops += max(0, recorder.framesIn.value - recorder.framesOut.value - 8) }
        let filterStats = filter.flatMap { SwiftFilterElement.stats(of: $0) }
        return SessionStats(
            status: status.name, uptime: pipeline == nil ? 0 : now - startTime,
            framesIn: framesIn, framesOut: framesOut, fpsIn: rateWindow.fpsIn, fpsOut: rateWindow.fpsOut,
            queueDrops: queueDrops, qosDrops: filterStats?.dropped ?? 0, sourceDrops: 0,
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
public struct StartError: Error, Sendable, CustomStringConvertible {
    /// The status the session ended in.
    public let status: CameraStatus
    public var description: String { status.description }
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
