import Base
import GStreamer

/// A leaky branch on a running graph's tee that hands every frame to a closure: what a recording and the
/// live encoders are fed by. The branch (`queue leaky=downstream ! appsink`) is a bin added to the running
/// pipeline and linked to a new tee pad, so attaching or detaching one never stops the others; a consumer
/// slower than the camera loses its oldest frames in its own queue (counted by the graph's queue drops).
/// Unchecked Sendable: the GStreamer references are immutable, and `teePad` is written only in `init` and in
/// `detach`, which the feed's one owner calls from one thread at a time (a `LiveEncoder`'s `control` queue, or
/// the `Recorder` finishing).
final class TeeFeed: @unchecked Sendable {
    /// Frames that entered the branch.
    let framesIn: BufferCounter
    private let pipeline: Pipeline
    private let tee: Element
    private let branch: Bin
    private let tap: AppSink
    private var teePad: Pad?

    /// Adds the branch named `name` (its queue holds `backlog` frames) and links it; `onSample` runs on the
    /// branch's streaming thread with each frame: it must not block or trap.
    init(pipeline: Pipeline, tee: Element, name: String, backlog: Int, onSample: @escaping @Sendable (Sample) -> Void) throws {
        self.pipeline = pipeline
        self.tee = tee
        branch = try PipelineBuilder.feedGraph(name: name, backlog: backlog).buildBin()
        guard let tap = branch.element(named: "\(name)-tap", as: AppSink.self) else {
            throw SessionError.missingElement(name: "\(name)-tap", command: name)
        }
        self.tap = tap
        framesIn = try branch.staticPad("sink").countBuffers().counter
        tap.onSample(onSample)
        do {
            try pipeline.add(branch)
            guard branch.syncStateWithParent() else { throw SessionError.branchFailed(name: name) }
            let pad = try tee.requestPad("src_%u")
            teePad = pad
            try pad.link(to: branch.staticPad("sink"))
        } catch {
            detach()
            throw error
        }
    }

    /// Stops the callbacks, unlinks the branch from the tee and removes it. Idempotent.
    func detach() {
        tap.onSample(nil)
        if let teePad {
            if let sink = try? branch.staticPad("sink") { teePad.unlink(from: sink) }
            tee.releaseRequestPad(teePad)
            self.teePad = nil
        }
        try? branch.setState(.null)
        pipeline.remove(branch)
    }
}

/// Where the next buffer lands on a consumer's own timeline (a file, a live stream): starts at zero and
/// never goes back, so the timeline survives a restart of the source side (recovery builds a new graph
/// whose clock starts again).
struct StreamTimeline: Sendable {
    private var base: UInt64?
    private var last: UInt64?
    private var step: UInt64 = 33_333_333

    /// The pipeline time of consumer time `time` (nil before the first buffer).
    func pipelineTime(of time: UInt64) -> UInt64? {
        base.map { $0 &+ time }
    }

    /// The consumer's time for a buffer at pipeline time `pts`.
    mutating func place(_ pts: UInt64, duration: UInt64?) -> UInt64 {
        if let duration, duration > 0 { step = duration }
        let base = base ?? pts
        self.base = base
        var time = pts >= base ? pts - base : 0
        if let last, time <= last {
            // The source restarted (or a frame repeated): continue one frame after the last.
            self.base = pts &- (last + step)
            time = last + step
        }
        last = time
        return time
    }
}

/// Feeds an `appsrc` from a tee feed: restamps each buffer onto `timeline` and sets the caps only when they
/// change (encoders and muxers refuse needless caps events). Returns whether the buffer was accepted.
@discardableResult
func forward(_ sample: Sample, into source: AppSrc, timeline: Locked<StreamTimeline>, lastCaps: Locked<Caps?>) -> Bool {
    guard let buffer = sample.buffer else { return false }
    var copy = WritableBuffer(buffer)  // the sample's buffer is shared: a copy of its metadata to restamp
    if let pts = buffer.pts {
        copy.pts = timeline.withLock { $0.place(pts, duration: buffer.duration) }
    }
    if let caps = sample.caps,
        lastCaps.withLock({ last in
            defer { last = caps }
            return last.map { !$0.isEqual(to: caps) } ?? true
        })
    {
        source.caps = caps
    }
    return (try? source.push(copy)) != nil
}
