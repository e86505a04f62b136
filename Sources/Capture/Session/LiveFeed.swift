public import GStreamer

/// A leaky branch on the running tee that hands every filtered frame to Swift on the branch's streaming
/// thread, for a transport that encodes the live picture itself (the browser screen's WebRTC and MJPEG
/// encoders). A slow consumer never stalls the camera: the branch's queue holds two frames and drops the
/// oldest. Closing it detaches the branch; a graph rebuilt by recovery needs a new feed.
public final class LiveFeed: @unchecked Sendable {
    let pipeline: Pipeline
    private let tee: Element
    private let branch: Bin
    private let sink: AppSink
    private let teePad = Locked<Pad?>(nil)

    init(pipeline: Pipeline, tee: Element, handler: @escaping @Sendable (Sample) -> Void) throws {
        self.pipeline = pipeline
        self.tee = tee
        var graph = GraphDescription()
        let queue = graph.add("queue", name: "live-queue", ["max-size-buffers": 2, "max-size-bytes": 0, "max-size-time": 0,
                                                             "leaky": "downstream"])
        graph.chain(queue, graph.add("appsink", name: "live-tap", ["sync": false, "async": false, "max-buffers": 1, "drop": true,
                                                                    "wait-on-eos": false]))
        graph.ghost("sink", queue, pad: "sink")
        branch = try graph.buildBin()
        guard let sink = branch.element(named: "live-tap", as: AppSink.self) else {
            throw SessionError.missingElement(name: "live-tap", command: "live feed")
        }
        self.sink = sink
        sink.onSample(handler)
        try pipeline.add(branch)
        guard branch.syncStateWithParent() else {
            close()
            throw SessionError.missingElement(name: "live-queue", command: "live feed")
        }
        let pad = try tee.requestPad("src_%u")
        teePad.withLock { $0 = pad }
        try pad.link(to: branch.staticPad("sink"))
    }

    /// Detaches the branch from the tee and stops it; idempotent.
    public func close() {
        sink.onSample(nil)
        guard let pad = teePad.withLock({ pad -> Pad? in
            defer { pad = nil }
            return pad
        }) else { return }
        if let sinkPad = try? branch.staticPad("sink") { _ = pad.unlink(from: sinkPad) }
        tee.releaseRequestPad(pad)
        try? branch.setState(.null)
        _ = pipeline.remove(branch)
    }

    deinit { close() }
}

extension CaptureSession {
    /// Attaches a live feed of the filtered frames to the playing graph; `handler` runs on the feed's
    /// streaming thread for every frame (keep it short, never block). Throws when the session is not running.
    public func openFeed(_ handler: @escaping @Sendable (Sample) -> Void) throws -> LiveFeed {
        let graph = try running()
        guard let tee = graph.pipeline.element(named: PipelineBuilder.Names.tee) else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "live feed")
        }
        return try LiveFeed(pipeline: graph.pipeline, tee: tee, handler: handler)
    }

    /// Whether the feed hangs on the graph playing now (false after a recovery rebuilt it).
    public func isCurrent(_ feed: LiveFeed) -> Bool {
        graph?.pipeline === feed.pipeline
    }
}
