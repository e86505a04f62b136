import Base
import Camera
import Config
import GStreamer
import Glibc
import SwiftFilterElement

/// One built and playing graph with the parts the session drives: the filter, the still and tap sinks,
/// the counters on every queue, the sequence-gap counters on v4l2 sources and the open camera devices.
/// Everything is fixed when it is built; recovery replaces the whole graph rather than mending one.
///
/// Unchecked Sendable: the `let` references are immutable, the `var` fields are written in `play` (before the
/// session publishes the graph) and in `teardown`; once published, the camera devices are read and closed only under
/// `SessionControls`' lock (`SessionControls.releaseCameras`, before the session tears a published graph down).
final class RunningGraph: @unchecked Sendable {
    let pipeline: Pipeline
    let filter: Element?
    let stillFrames: FrameTap?
    let frameTap: FrameTap?
    let filterIn: BufferCounter
    let filterOut: BufferCounter
    let queues: [(into: BufferCounter, out: BufferCounter, queue: Element)]
    let sourceGaps: [SequenceGaps]
    /// The mode each v4l2 source (by index) was asked for and how it reaches the config's caps.
    let cameraPlans: [Int: CameraPlan]
    /// How each libcamera and `launch` source (by index) runs in its child process.
    let childSources: [Int: ChildSource]
    /// The children running libcamera sources, by the host element that receives their frames (`source0`); set by `play`.
    private(set) var sourceProcesses: [String: SourceProcess] = [:]
    /// Each camera's plan in one line, by source index.
    let cameraSummaries: [String]
    private(set) var cameras: [Int: CameraDevice] = [:]
    private var watch: BusWatch?
    /// The stall watchdog on the sources, once the session publishes the graph; cancelled with the graph.
    private let stalls = Locked<StallWatchdog?>(nil)
    /// When it started playing (monotonic seconds).
    private(set) var startTime = 0.0

    /// Builds the graph and finds its parts; nothing plays yet.
    init(config: PipelineConfig, builder: PipelineBuilder) throws {
        pipeline = try builder.build()
        cameraPlans = builder.cameraPlans
        childSources = builder.childSources
        cameraSummaries = builder.cameraSummaries
        filter = pipeline.allElements.first { $0.factoryName == SwiftFilterElement.factoryName }
        filterIn = (try? filter?.staticPad("sink").countBuffers().counter) ?? BufferCounter()
        filterOut = (try? filter?.staticPad("src").countBuffers().counter) ?? BufferCounter()
        stillFrames = pipeline.element(named: PipelineBuilder.Names.stillFrames, as: AppSink.self)
            .flatMap { try? FrameTap(sink: $0, backlog: 1) }
        frameTap = pipeline.element(named: PipelineBuilder.Names.tap, as: AppSink.self)
            .flatMap { try? FrameTap(sink: $0, backlog: 8) }
        queues = pipeline.allElements.filter { $0.factoryName == "queue" }.compactMap { queue in
            guard let into = try? queue.staticPad("sink"), let out = try? queue.staticPad("src") else { return nil }
            return (into.countBuffers().counter, out.countBuffers().counter, queue)
        }
        var gaps: [SequenceGaps] = []
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .v4l2 {
            if let element = pipeline.element(named: PipelineBuilder.Names.source(index)), let pad = try? element.staticPad("src") {
                let counter = SequenceGaps()
                counter.watch(pad)
                gaps.append(counter)
            }
        }
        sourceGaps = gaps
        for (index, source) in (config.sources ?? []).enumerated() where source.timecode == true {
            // After the source's caps filter, so the stamp is written in the format the filter receives.
            if let caps = pipeline.element(named: PipelineBuilder.Names.sourceCaps(index)), let pad = try? caps.staticPad("src") {
                Timecode.stamp(pad)
            }
        }
    }

    /// Watches the bus with `handler` (on the watch's thread), calls `onFrame` for every frame leaving the
    /// filter (on the streaming thread: keep it short), plays within `timeout` seconds, then opens the
    /// config's cameras for their controls. On failure the graph is torn down before the error is thrown.
    func play(
        config: PipelineConfig, timeout: Double, handler: @escaping @Sendable (Message) -> Void,
        onFrame: @escaping @Sendable () -> Void
    ) throws {
        watch = pipeline.bus.watch(handler)
        if let pad = try? filter?.staticPad("src") { pad.onBuffer { _ in onFrame() } }
        do {
            try startSourceProcesses(timeout: timeout)
            try pipeline.setState(.playing, timeout: timeout)
        } catch {
            teardown()
            throw error
        }
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .v4l2 {
            cameras[index] = try? CameraDevice(path: source.device ?? "/dev/video0")
        }
        startTime = MonotonicClock.now
    }

    /// Starts a child for each libcamera and `launch` source and waits until its graph plays (its shared memory is then there for
    /// the host's `shmsrc`). A child that ends first throws, saying how it ended.
    private func startSourceProcesses(timeout: Double) throws {
        for index in childSources.keys.sorted() {
            guard let source = childSources[index] else { continue }
            let process = try SourceProcess(label: source.label, arguments: source.arguments)
            sourceProcesses[PipelineBuilder.Names.source(index)] = process
            guard process.waitUntilPlaying(timeout: timeout) else {
                let ending = process.ending(timeout: 1)
                process.stop()
                throw SourceProcessError(source: source, ending: ending)
            }
        }
    }

    /// Frames the branch queues dropped (what went in, less what came out, less what is still queued).
    var queueDrops: Int {
        queues.reduce(0) { total, counter in
            let queued = (try? counter.queue.get("current-level-buffers", as: Int.self)) ?? 0
            return total + max(0, counter.into.value - counter.out.value - queued)
        }
    }

    /// Frames the v4l2 sources' drivers dropped.
    var sourceDrops: Int { sourceGaps.reduce(0) { $0 + $1.lost } }

    /// Keeps `watchdog` for this graph's life (`teardown` cancels it).
    func watch(stalls watchdog: StallWatchdog) {
        stalls.withLock { $0 = watchdog }
    }

    /// Stops the stall watchdog, the bus watch and the pipeline and closes the cameras (so a driver can be unloaded).
    func teardown() {
        stalls.withLock { watchdog in
            watchdog?.cancel()
            watchdog = nil
        }
        watch?.cancel()
        watch = nil
        try? pipeline.setState(.null)
        for process in sourceProcesses.values { process.stop() }
        for source in childSources.values { unlink(source.socketPath) }
        stillFrames?.close()
        frameTap?.close()
        closeCameras()
    }

    /// Closes the cameras opened for their controls (a published graph's under the controls' lock).
    func closeCameras() {
        cameras = [:]
    }
}
