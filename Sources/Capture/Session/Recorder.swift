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
    /// Frames handed to the encoder's appsrc (those the branch's queue did not drop).
    let framesOut = BufferCounter()
    /// Frames that left the recording's appsrc for the encoder (what its bounded queue did not drop).
    let framesEncoded: BufferCounter
    private let recording: Pipeline
    private let source: AppSrc
    private let feed: TeeFeed
    private let failure = Locked<String?>(nil)
    private let ended = DispatchSemaphore(value: 0)
    private var watch: BusWatch?

    /// Frames that entered the branch (the difference to `framesOut` leaked).
    var framesIn: Int { feed.framesIn.value }

    /// Starts the recording pipeline and links the feeding branch to a new tee pad.
    /// `onFailure` runs once, on the recording's bus thread, with the first error (a full disk, an encoder
    /// failure): the session ends the recording then and says so, rather than at `record stop`.
    init(pipeline: Pipeline, tee: Element, graph: GraphDescription, path: String,
         onFailure: @escaping @Sendable (String) -> Void) throws {
        self.path = path
        recording = try graph.build()
        guard let source = recording.element(named: "record-src", as: AppSrc.self) else {
            throw SessionError.recordingFailed(reason: "the recording pipeline has no appsrc")
        }
        self.source = source
        framesEncoded = try source.staticPad("src").countBuffers().counter
        // The watch is the bus's only reader: it records failures and signals the end of the file.
        let failure = failure, ended = ended
        watch = recording.bus.watch { message in
            switch message {
            case let .error(source, text, _, _):
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
        let framesOut = framesOut, timeline = Locked(StreamTimeline()), lastCaps = Locked<Caps?>(nil)
        do {
            feed = try TeeFeed(pipeline: pipeline, tee: tee, name: "record", backlog: 8) { sample in
                // On the branch's streaming thread: hand on, never block, never trap.
                guard failure.withLock({ $0 }) == nil else { return }
                if forward(sample, into: source, timeline: timeline, lastCaps: lastCaps) { framesOut.record() }
            }
        } catch {
            try? recording.setState(.null)
            watch?.cancel()
            throw SessionError.recordingFailed(reason: "\(error)")
        }
    }

    /// Frames the record branch leaked and those the recording's bounded appsrc dropped. While it runs, up to
    /// 8 frames may wait in the branch and 30 in the appsrc, so only what is beyond those counts; once finished
    /// (the queues drained into the file), every frame not encoded was dropped.
    func droppedFrames(finished: Bool) -> Int {
        let branchSlack = finished ? 0 : 8, sourceSlack = finished ? 0 : 30
        return max(0, framesIn - framesOut.value - branchSlack) + max(0, framesOut.value - framesEncoded.value - sourceSlack)
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
        feed.detach()
    }
}
