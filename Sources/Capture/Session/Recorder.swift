import Dispatch
import Foundation
import GStreamer

/// A recording: a leaky branch on the running tee hands frames to a pipeline of its own
/// (`appsrc ! encoder ! muxer ! filesink`). An encoder or disk failure ends the recording, never the
/// session; EOS goes only into the recording pipeline, so the preview keeps running; timestamps are
/// rebased to start at zero and kept increasing, so a recording survives a restart of the source side.
final class Recorder: @unchecked Sendable {
    /// The file being written.
    let path: String
    /// Frames that entered the branch, and those handed to the encoder (the difference leaked).
    let framesIn: BufferCounter
    let framesOut = BufferCounter()
    /// Frames that left the recording's appsrc for the encoder (what its bounded queue did not drop).
    let framesEncoded: BufferCounter
    private let pipeline: Pipeline
    private let tee: Element
    private let branch: Bin
    private var teePad: Pad?
    private let recording: Pipeline
    private let source: AppSrc
    private let tap: AppSink
    private let clock = Locked(Timeline())
    private let failure = Locked<String?>(nil)
    private let ended = DispatchSemaphore(value: 0)
    private var watch: BusWatch?

    /// Where the next buffer lands on the file's timeline.
    private struct Timeline {
        var base: UInt64?
        var last: UInt64?
        var step: UInt64 = 33_333_333

        /// The file time for a buffer at pipeline time `pts`: starts at zero, never goes back.
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

    /// Starts the recording pipeline and links the feeding branch to a new tee pad.
    /// `onFailure` runs once, on the recording's bus thread, with the first error (a full disk, an encoder
    /// failure): the session ends the recording then and says so, rather than at `record stop`.
    init(pipeline: Pipeline, tee: Element, graph: GraphDescription, path: String,
         onFailure: @escaping @Sendable (String) -> Void) throws {
        self.pipeline = pipeline
        self.tee = tee
        self.path = path
        recording = try graph.build()
        guard let source = recording.element(named: "record-src", as: AppSrc.self) else {
            throw SessionError.recordingFailed(reason: "the recording pipeline has no appsrc")
        }
        self.source = source
        framesEncoded = try source.staticPad("src").countBuffers().counter
        branch = try PipelineBuilder.recordFeedGraph.buildBin()
        guard let tap = branch.element(named: "record-tap", as: AppSink.self) else {
            throw SessionError.recordingFailed(reason: "the record branch has no appsink")
        }
        self.tap = tap
        framesIn = try branch.staticPad("sink").countBuffers().counter
        // The watch is the bus's only reader: it records failures and signals the end of the file.
        let failure = failure, ended = ended
        watch = recording.bus.watch { message in
            switch message {
            case let .error(source, text, _):
                let first = failure.withLock { failure -> Bool in
                    defer { failure = failure ?? "\(source): \(text)" }
                    return failure == nil
                }
                ended.signal()
                if first { onFailure(text) }
            case .eos:
                ended.signal()
            default:
                break
            }
        }
        do {
            try recording.setState(.playing, timeout: 5)
        } catch {
            watch?.cancel()
            throw SessionError.recordingFailed(reason: "\(error)")
        }
        let clock = clock, framesOut = framesOut
        let lastCaps = Locked<Caps?>(nil)
        tap.onSample { sample in
            // On the branch's streaming thread: hand on, never block, never trap.
            guard failure.withLock({ $0 }) == nil, let buffer = sample.buffer else { return }
            var copy = WritableBuffer(buffer)   // the sample's buffer is shared: a copy of its metadata to restamp
            if let pts = buffer.pts {
                copy.pts = clock.withLock { $0.place(pts, duration: buffer.duration) }
            }
            // Caps change rarely (never within one source): set them only when they do.
            if let caps = sample.caps, lastCaps.withLock({ last in
                defer { last = caps }
                return last.map { !$0.isEqual(to: caps) } ?? true
            }) {
                source.caps = caps
            }
            if (try? source.push(copy)) != nil { framesOut.record() }
        }
        do {
            try pipeline.add(branch)
            guard branch.syncStateWithParent() else { throw SessionError.recordingFailed(reason: "the record branch would not start") }
            let pad = try tee.requestPad("src_%u")
            teePad = pad
            try pad.link(to: branch.staticPad("sink"))
        } catch {
            detach()
            try? recording.setState(.null)
            watch?.cancel()
            throw SessionError.recordingFailed(reason: "\(error)")
        }
    }

    /// Why the recording stopped working, if it did.
    var failureReason: String? { failure.withLock { $0 } }

    /// Detaches from the tee, ends the file (EOS into the recording pipeline), waits for the muxer to finish it,
    /// then stops. The wait ends when `timeout` seconds pass without the encoder taking a frame: the up to 30
    /// frames queued before a slow encoder (`vp8enc` on loaded cores) may take longer than that to drain, and a
    /// stop that gave up on them refused `record stop` and left the file without its end. Returns false when the
    /// end could not be written.
    @discardableResult
    func finish(timeout: Double = 5) -> Bool {
        detach()
        source.endOfStream()
        var encoded = framesEncoded.value
        var completed = false
        while true {
            if ended.wait(timeout: .now() + timeout) == .success {
                completed = true
                break
            }
            // The queue is finite after EOS, so this wait ends: in EOS, or in `timeout` without progress.
            let now = framesEncoded.value
            if now == encoded { break }
            encoded = now
        }
        watch?.cancel()
        try? recording.setState(.null)
        return completed && failureReason == nil
    }

    private func detach() {
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
