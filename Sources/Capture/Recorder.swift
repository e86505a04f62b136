import Dispatch
import Foundation
import GStreamer

/// The recording branch: attached to the running tee on start, finalized with an EOS that goes down this
/// branch only (the preview keeps running), then removed.
final class Recorder: @unchecked Sendable {
    /// The file being written.
    let path: String
    private let pipeline: Pipeline
    private let tee: Element
    private let bin: Bin
    private let teePad: Pad
    private let finished = DispatchSemaphore(value: 0)
    /// Frames that entered the branch, and those that left its queue (the difference, less what is queued, leaked).
    let framesIn: BufferCounter
    let framesOut: BufferCounter

    /// Builds the branch from gst-launch text, adds it to the pipeline and links it to a new tee pad.
    init(pipeline: Pipeline, tee: Element, description: String, path: String) throws {
        self.pipeline = pipeline
        self.tee = tee
        self.path = path
        bin = try Bin.parseBin(description)
        try pipeline.add(bin)
        guard let file = bin.element(named: "record-file") else {
            pipeline.remove(bin)
            throw SessionError.recordingFailed(reason: "the record branch has no file sink")
        }
        let finished = finished
        try file.staticPad("sink").onDownstreamEvent { type in
            if type == endOfStreamEvent { finished.signal() }
        }
        let binSink = try bin.staticPad("sink")
        framesIn = binSink.countBuffers().counter
        framesOut = try bin.element(named: "record-queue").map { try $0.staticPad("src").countBuffers().counter } ?? BufferCounter()
        guard bin.syncStateWithParent() else {
            try? bin.setState(.null)
            pipeline.remove(bin)
            throw SessionError.recordingFailed(reason: "the record branch would not start")
        }
        do {
            teePad = try tee.requestPad("src_%u")
            try teePad.link(to: binSink)
        } catch {
            try? bin.setState(.null)
            pipeline.remove(bin)
            throw SessionError.recordingFailed(reason: "\(error)")
        }
    }

    /// Detaches from the tee, sends EOS down the branch, waits for it to reach the file, then removes the branch.
    /// Returns false when the EOS did not arrive in time (the file is still closed, maybe without its index).
    @discardableResult
    func finish(timeout: Double = 5) -> Bool {
        let binSink = try? bin.staticPad("sink")
        if let binSink { teePad.unlink(from: binSink) }
        tee.releaseRequestPad(teePad)
        binSink?.sendEndOfStream()
        let completed = finished.wait(timeout: .now() + timeout) == .success
        try? bin.setState(.null)
        pipeline.remove(bin)
        return completed
    }

    /// Waits for an EOS that the whole pipeline sent (on stop), without detaching.
    func waitForEndOfStream(timeout: Double) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }
}
