import Base
import Dispatch
import GStreamer

/// A recording's encoding pipeline (`appsrc ! encoder ! muxer ! filesink`), replaced by the next encoder of its
/// choice when the one running fails before anything reached the file: its state change failed, or it posted an
/// error before the muxer wrote a byte (hardware encoders often refuse only when the first frame's caps arrive).
/// Nothing is lost then, so the file is simply started again. An error after the first write ends the recording.
/// A segmented recording ends in a splitmuxsink instead of a muxer and file sink: it gets them from `Segmenting`,
/// and its files their names.
/// Unchecked Sendable: `closing` is touched only on the `control` queue; every other field is immutable,
/// `Sendable`, or behind `Locked`.
final class RecordingStages: @unchecked Sendable {
    /// How a segmented recording's splitmuxsink gets its muxer and file sink, and its files' names.
    struct Segmenting: Sendable {
        let files: SegmentFiles
        let splitter: @Sendable () throws -> (splitter: Element, sink: Element)?
    }

    /// One encoder's pipeline, with its own timeline and caps: a frame still on its way into a stage being replaced
    /// must not leave the next stage without caps (its first buffer would then fail as not negotiated).
    private struct Stage {
        let pipeline: Pipeline
        let source: AppSrc
        let watch: BusWatch
        let encoder: EncoderCandidate
        let generation: Int
        let timeline = Locked(StreamTimeline())
        let lastCaps = Locked<Caps?>(nil)
    }

    /// Frames that left the appsrc for the encoder, over every stage.
    let framesEncoded = BufferCounter()
    /// Signalled at the end of the file (EOS) or at an error that ends the recording.
    let ended = DispatchSemaphore(value: 0)
    private let choice: EncoderChoice
    private let graph: @Sendable (EncoderCandidate) -> GraphDescription
    private let onWarning: @Sendable (String) -> Void
    private let onFailure: @Sendable (String) -> Void
    private let segmenting: Segmenting?
    private let current = Locked<Stage?>(nil)
    private let generations = Locked(0)
    private let failure = Locked<String?>(nil)
    /// Replacements, off the bus threads (stopping a stage waits for its bus thread).
    private let control = DispatchQueue(label: "swiftcam.record.encoder")
    /// Set once the file is being ended or stopped: no new stage starts then. Touched only on `control`.
    private var closing = false

    init(
        choice: EncoderChoice, graph: @escaping @Sendable (EncoderCandidate) -> GraphDescription, segmenting: Segmenting? = nil,
        onWarning: @escaping @Sendable (String) -> Void, onFailure: @escaping @Sendable (String) -> Void
    ) {
        (self.choice, self.segmenting, self.graph, self.onWarning, self.onFailure) = (choice, segmenting, graph, onWarning, onFailure)
    }

    /// The encoder of the stage now.
    var encoder: EncoderCandidate? { current.withLock { $0?.encoder } }

    /// Why the recording stopped working, if it did.
    var failureReason: String? { failure.withLock { $0 } }

    /// Starts the first encoder that starts; throws `recordingFailed` when none does. On `control`, so a replacement
    /// asked for by a stage's early error runs only once that stage is the current one.
    func start() throws {
        try control.sync {
            do {
                let (stage, _) = try choice.start(warn: onWarning) { try makeStage($0) }
                current.withLock { $0 = stage }
            } catch {
                throw SessionError.recordingFailed(reason: "\(error)")
            }
        }
    }

    /// Hands `sample` to the stage now, restamped; on the branch's streaming thread. False when it was not taken.
    func push(_ sample: Sample) -> Bool {
        guard failureReason == nil, let stage = current.withLock({ $0 }) else { return false }
        return forward(sample, into: stage.source, timeline: stage.timeline, lastCaps: stage.lastCaps)
    }

    /// Ends the file: EOS into the stage now (after any replacement under way; none starts after this).
    func endOfStream() {
        control.sync { closing = true }
        current.withLock { $0?.source }?.endOfStream()
    }

    /// Stops the stage now, after any replacement under way; none starts after this.
    func stop() {
        control.sync { closing = true }
        guard let stage = current.withLock({ $0 }) else { return }
        stage.watch.cancel()
        try? stage.pipeline.setState(.null)
    }

    private func makeStage(_ encoder: EncoderCandidate) throws -> Stage {
        let pipeline = try graph(encoder).build()
        guard let source = pipeline.element(named: "record-src", as: AppSrc.self),
            let file = try pipeline.element(named: "record-file") ?? segmentSink(in: pipeline)
        else {
            throw SessionError.recordingFailed(reason: "the recording pipeline has no appsrc or file sink")
        }
        let framesEncoded = framesEncoded
        _ = try source.staticPad("src").onBuffer { _ in framesEncoded.record() }
        let written = try file.staticPad("sink").countBuffers().counter
        let generation = generations.withLock { number in
            number += 1
            return number
        }
        // The watch is the bus's only reader: it replaces an encoder that failed before the first write, records
        // other failures and signals the end of the file.
        let watch = pipeline.bus.watch { [weak self] message in
            guard let self else { return }
            switch message {
            case let .error(source, text, _, _):
                if written.value == 0, choice.next(after: encoder) != nil {
                    control.async { self.replace(encoder, generation: generation, reason: "\(source): \(text)") }
                    return
                }
                let first = failure.withLock { failure -> Bool in
                    defer { failure = failure ?? "\(source): \(text)" }
                    return failure == nil
                }
                ended.signal()
                if first { onFailure(text) }
            case .eos:
                ended.signal()
            case let .element(_, structure) where structure.name == "splitmuxsink-fragment-closed":
                if let location = structure.string("location") { segmenting?.files.closed(location) }
            default:
                break
            }
        }
        do {
            if segmenting == nil {
                try pipeline.setState(.playing, timeout: 5)
            } else {
                // A splitmuxsink reaches PAUSED only with its first frame, which comes once this stage is running: an
                // encoder that refuses to start fails in the change to PAUSED (the live appsrc needs no preroll), and
                // PLAYING completes with the first frame.
                try pipeline.setState(.paused, timeout: 5)
                // A refusal asks again, waiting, for GStreamer's reason.
                if !pipeline.requestState(.playing) { try pipeline.setState(.playing, timeout: 5) }
            }
        } catch {
            watch.cancel()
            try? pipeline.setState(.null)
            throw error
        }
        return Stage(pipeline: pipeline, source: source, watch: watch, encoder: encoder, generation: generation)
    }

    /// A segmented recording's file sink: links the encoder's chain to the splitter, which names its files; nil without one.
    private func segmentSink(in pipeline: Pipeline) throws -> Element? {
        guard let segmenting, let encoded = pipeline.element(named: PipelineBuilder.Names.recordEncoded),
            let (splitter, sink) = try segmenting.splitter()
        else { return nil }
        let files = segmenting.files
        splitter.onFormatLocation { files.name(fragment: $0) }
        try pipeline.add(splitter)
        _ = try encoded.link(to: splitter)
        return sink
    }

    /// On `control`: the stage of `encoder` failed before writing; start the next encoder into the same file.
    private func replace(_ encoder: EncoderCandidate, generation: Int, reason: String) {
        guard let old = current.withLock({ $0 }), old.generation == generation else { return }
        guard !closing else {
            // Ending or stopped: no new stage; the waiter for the end hears of the failure.
            failure.withLock { $0 = $0 ?? reason }
            ended.signal()
            return
        }
        let (warning, next) = choice.fail(encoder, reason: reason)
        onWarning(warning)
        old.watch.cancel()
        try? old.pipeline.setState(.null)
        do {
            guard next != nil else { throw SessionError.recordingFailed(reason: reason) }
            // Nothing reached the file: the new stage starts it again, its timestamps from zero (its own timeline).
            let (stage, _) = try choice.start(warn: onWarning) { try makeStage($0) }
            current.withLock { $0 = stage }
        } catch {
            current.withLock { $0 = nil }
            failure.withLock { $0 = $0 ?? "\(error)" }
            ended.signal()
            onFailure("\(error)")
        }
    }
}
