import Dispatch
import FoundationEssentials
import GStreamer

/// A recording: a leaky branch on the running tee hands frames to a pipeline of its own
/// (`appsrc ! encoder ! muxer ! filesink`). An encoder or disk failure ends the recording, never the
/// session; EOS goes only into the recording pipeline, so the preview keeps running; timestamps are
/// rebased to start at zero and kept increasing, so a recording survives a restart of the source side.
/// The encoder is the recording's `EncoderChoice`: one that fails to start, or fails before anything reached the
/// file, is replaced by the next (see `RecordingStages`).
/// Unchecked Sendable: every field is a `let` of a `Sendable` type, and `finish` (which detaches `feed`) is
/// called only by the one thread that took the recorder out of the recording's slot.
final class Recorder: @unchecked Sendable {
    /// The file being written.
    let path: String
    /// Frames handed to the encoder's appsrc (those the branch's queue did not drop).
    let framesOut = BufferCounter()
    private let stages: RecordingStages
    private let feed: TeeFeed

    /// Frames that left the recording's appsrc for the encoder (what its bounded queue did not drop).
    var framesEncoded: BufferCounter { stages.framesEncoded }

    /// Frames that entered the branch (the difference to `framesOut` leaked).
    var framesIn: Int { feed.framesIn.value }

    /// The encoder element writing the file.
    var encoderElement: String? { stages.encoder?.element }

    /// The encoder writing the file, with its codec.
    var encoder: EncoderCandidate? { stages.encoder }

    /// Starts the recording pipeline with the first encoder of `choice` that starts (`graph` makes its pipeline)
    /// and links the feeding branch to a new tee pad. `onWarning` hears of each encoder that failed and the one
    /// used instead. `onFailure` runs once, on the recording's bus thread, with the first error (a full disk, an
    /// encoder failure with nothing left to fall back to): the session ends the recording then and says so,
    /// rather than at `record stop`.
    init(
        pipeline: Pipeline, tee: Element, choice: EncoderChoice, path: String,
        graph: @escaping @Sendable (EncoderCandidate) -> GraphDescription, segmenting: RecordingStages.Segmenting? = nil,
        onWarning: @escaping @Sendable (String) -> Void, onFailure: @escaping @Sendable (String) -> Void
    ) throws {
        self.path = path
        segments = segmenting?.files
        let stages = RecordingStages(choice: choice, graph: graph, segmenting: segmenting, onWarning: onWarning, onFailure: onFailure)
        self.stages = stages
        try stages.start()
        let framesOut = framesOut
        do {
            feed = try TeeFeed(pipeline: pipeline, tee: tee, name: "record", backlog: 8) { sample in
                // On the branch's streaming thread: hand on, never block, never trap.
                if stages.push(sample) { framesOut.record() }
            }
        } catch {
            stages.stop()
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
    var failureReason: String? { stages.failureReason }

    /// A segmented recording's files; nil for one file.
    let segments: SegmentFiles?

    /// The file being written now: the segment, or the one file.
    var currentFile: String { segments?.now.current ?? path }

    /// Bytes written into the recording's files so far.
    var bytesWritten: Int { segments?.bytesWritten ?? SegmentFiles.size(of: path) }

    /// The files still being written, and the bytes the open one may grow by before the next cut (the largest
    /// segment so far), for the storage budget.
    var openFiles: (paths: Set<String>, reserve: Int) {
        guard let segments else { return ([path], 0) }
        let open = segments.openFiles
        return (open.isEmpty ? [path] : open, segments.now.largest)
    }

    /// Detaches from the tee, ends the file (EOS into the recording pipeline), waits for the muxer to finish it,
    /// then stops. The wait ends when `timeout` seconds pass without the encoder taking a frame: the up to 30
    /// frames queued before a slow encoder (`vp8enc` on loaded cores) may take longer than that to drain, and a
    /// stop that gave up on them refused `record stop` and left the file without its end. Returns false when the
    /// end could not be written.
    @discardableResult
    func finish(timeout: Double = 5) -> Bool {
        feed.detach()
        stages.endOfStream()
        var encoded = framesEncoded.value
        var completed = false
        while true {
            if stages.ended.wait(timeout: .now() + timeout) == .success {
                completed = true
                break
            }
            // The queue is finite after EOS, so this wait ends: in EOS, or in `timeout` without progress.
            let now = framesEncoded.value
            if now == encoded { break }
            encoded = now
        }
        stages.stop()
        return completed && failureReason == nil
    }
}
