import Base
import Dispatch
import GStreamer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What a live consumer asks for: video for WebRTC and RTSP, or JPEG frames for MJPEG viewers.
public enum LiveFormat: String, Sendable, CaseIterable {
    /// H.264 constrained-baseline from the first encoder of `EncoderChoice.video` that works here (hardware
    /// first, then x264enc, openh264enc), or VP8 where no H.264 encoder starts.
    case video
    /// VP8 from vp8enc with real-time settings, for browsers whose WebRTC has no H.264 (Debian's Firefox): started only
    /// when one chooses it, and only where `video` is not VP8 already (see `CaptureSession.liveFormat(for:)`).
    case vp8
    /// VP9 from vp9enc with real-time settings, for a page that prefers it: started only when one chooses it (no
    /// browser's own order puts it before H.264 or VP8), and only where `video` is not VP9 already.
    case vp9
    /// JPEG frames at most 960 pixels wide and 15 per second, full range.
    case mjpeg
}

/// The codec a live format is encoded with on this machine.
public enum LiveCodec: String, Sendable {
    case h264, vp8, vp9, jpeg

    /// The RTP encoding name (SDP `a=rtpmap`).
    public var encodingName: String {
        switch self {
        case .h264: "H264"
        case .vp8: "VP8"
        case .vp9: "VP9"
        case .jpeg: "JPEG"
        }
    }

    /// The RTP payloader's element factory.
    public var payloader: String {
        switch self {
        case .h264: "rtph264pay"
        case .vp8: "rtpvp8pay"
        case .vp9: "rtpvp9pay"
        case .jpeg: "rtpjpegpay"
        }
    }

    /// The encoded stream's media type (caps name).
    public var mediaType: String {
        switch self {
        case .h264: "video/x-h264"
        case .vp8: "video/x-vp8"
        case .vp9: "video/x-vp9"
        case .jpeg: "image/jpeg"
        }
    }
}

extension LiveFormat {
    /// The live encoder's pipeline for this format on this machine, as gst-launch text (`swiftcam show`), with the
    /// encoder a config's `live.encoder` names (nil: the choice).
    public func launchDescription(encoder name: String? = nil) -> String {
        LiveEncoder.graph(for: self, encoder: choice(named: name)?.chosen).launchText
    }

    /// The encoder choice of this format (nil for MJPEG, always jpegenc); `name` is the config's `live.encoder`, which
    /// only `video` follows.
    func choice(named name: String?) -> EncoderChoice? {
        switch self {
        case .video: EncoderChoice.live(named: name)
        case .vp8: EncoderChoice.live(named: "vp8enc")
        case .vp9: EncoderChoice.live(named: "vp9enc")
        case .mjpeg: nil
        }
    }
}

/// The shared live encoder of one format: the session's filtered stream encoded once, however many
/// viewers, RTSP clients and publishers consume it.
///
/// It runs a pipeline of its own (`appsrc ! … ! encoder ! appsink`), fed by a leaky branch on the running
/// graph's tee, from the first subscriber until the last leaves. When recovery replaces the graph, the
/// session re-attaches the feed, and subscribers keep their stream (timestamps continue). Each subscriber
/// gets the encoded samples from a key frame on; a new subscriber asks the encoder for one.
///
/// The video encoder is `EncoderChoice.live`'s: when it fails to start (its state change fails, or it posts an
/// error before its first encoded frame), the next one is started in its place, with a warning naming both, and
/// the failed one is skipped for the rest of the process. Subscribers keep their stream when the codec stays the
/// same; a change of codec (H.264 to VP8) ends their subscriptions, since their payloaders were built for the old one.
/// Unchecked Sendable: `running` and `generation` are touched only on the `control` queue; every other field is
/// immutable, `Sendable`, or behind `Locked`.
final class LiveEncoder: @unchecked Sendable {
    let format: LiveFormat
    /// Frames handed to the encoder, and encoded frames out of it (over every run).
    let framesIn = BufferCounter()
    let framesEncoded = BufferCounter()

    private struct Running {
        let pipeline: Pipeline
        let source: AppSrc
        let sink: AppSink
        let watch: BusWatch
        let encoder: EncoderCandidate?
        /// Counts this run's starts, so a late error from a run already replaced is ignored.
        let generation: Int
        var feed: TeeFeed?
    }

    /// Start, stop and re-attachment, in order, off every streaming thread.
    private let control: DispatchQueue
    private let subscribers = Locked<[ObjectIdentifier: LiveSubscription]>([:])
    /// Touched only on `control`.
    private var running: Running?
    /// Key frames forced for subscribers: at most one per half second.
    private let keyFrames = Locked(KeyFrameLimiter(interval: 0.5))
    /// The running encoder's sink, where a key frame is asked for (from any thread); nil while none runs.
    private let liveSink = Locked<AppSink?>(nil)
    private let timeline = Locked(StreamTimeline())
    private let lastCaps = Locked<Caps?>(nil)
    private let failure = Locked<String?>(nil)
    /// The video encoder's choice (nil for MJPEG, whose encoder is always jpegenc).
    private let choice: EncoderChoice?
    /// The encoder of the run now, or of the last one.
    private let current = Locked<EncoderCandidate?>(nil)
    /// Touched only on `control`.
    private var generation = 0
    private let warn: @Sendable (String) -> Void
    /// The tee of the graph playing now (nil while none plays, e.g. during recovery), from the session;
    /// throws when the playing graph has none (a raw launch config without `tee name=split`).
    private let currentTee: @Sendable () throws -> (Pipeline, Element)?

    init(
        format: LiveFormat, session name: String, choice: EncoderChoice?, warn: @escaping @Sendable (String) -> Void,
        currentTee: @escaping @Sendable () throws -> (Pipeline, Element)?
    ) {
        self.format = format
        self.choice = format == .mjpeg ? nil : choice
        self.warn = warn
        self.currentTee = currentTee
        control = DispatchQueue(label: "swiftcam.live.\(format.rawValue).\(name)")
    }

    /// The codec the stream has now: the running encoder's, else the one the next start would use.
    var codec: LiveCodec {
        if format == .mjpeg { return .jpeg }
        return (current.withLock { $0 } ?? choice?.chosen)?.codec ?? .vp8
    }

    /// The encoder element of the run now (or the last), else the one the next start would use; nil when none is installed.
    var encoderElement: String? {
        format == .mjpeg ? "jpegenc" : (current.withLock { $0 } ?? choice?.chosen)?.element
    }

    /// The session's pipeline time of a stream time (an encoded sample's timestamp); nil before the first frame.
    func pipelineTime(ofStream time: UInt64) -> UInt64? {
        timeline.withLock { $0.pipelineTime(of: time) }
    }

    /// Subscribers now.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Why the encoder last failed, if it did. A failed encoder stays down until every subscriber has left; the
    /// next subscriber then starts a new one.
    var failureReason: String? { failure.withLock { $0 } }

    /// Adds a subscriber, starting the encoder for the first.
    func subscribe(_ handler: @escaping @Sendable (Sample) -> Void) throws -> LiveSubscription {
        try control.sync {
            try startIfNeeded()
            let subscription = LiveSubscription(
                codec: codec, handler: handler, onKeyFrameRequest: { [weak self] in self?.requestKeyFrame() }
            ) { [weak self] subscription in
                self?.remove(subscription)
            }
            subscribers.withLock { $0[ObjectIdentifier(subscription)] = subscription }
            requestKeyFrame()
            return subscription
        }
    }

    /// Key frames forced for subscribers, and requests a forced one answered along with another.
    var keyFrameCounts: (forced: Int, merged: Int) {
        keyFrames.withLock { ($0.forced, $0.merged) }
    }

    /// Asks the running encoder for a key frame, at most one per half second (`KeyFrameLimiter`); from any thread.
    /// MJPEG's frames are all key frames.
    func requestKeyFrame() {
        guard format != .mjpeg, keyFrames.withLock({ $0.request(at: MonotonicClock.now) }) == .now else { return }
        _ = liveSink.withLock { $0 }?.requestKeyFrame()
    }

    private func remove(_ subscription: LiveSubscription) {
        let empty = subscribers.withLock { subscribers in
            subscribers[ObjectIdentifier(subscription)] = nil
            return subscribers.isEmpty
        }
        // Asynchronous: a cancel may come from a subscriber's callback, on the thread stopping waits for.
        if empty { control.async { self.stopIfUnused() } }
    }

    /// The session's graph changed (started, or rebuilt by recovery): feed the encoder from the new tee.
    func graphChanged() {
        control.async {
            guard self.running != nil else { return }
            self.running?.feed?.detach()
            self.running?.feed = nil
            do {
                let feed = try self.attachFeed()
                self.running?.feed = feed
            } catch {
                self.running?.feed = nil
                self.failure.withLock { $0 = "\(error)" }
            }
        }
    }

    /// The session's graph is about to be torn down: let go of its tee first. Waits for that.
    func graphRetiring() {
        control.sync {
            running?.feed?.detach()
            running?.feed = nil
        }
    }

    /// Stops the encoder whatever the subscribers (the session stops); they receive nothing more.
    func shutdown() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        all.forEach { $0.cancel() }
        control.sync { stop() }
    }

    // MARK: - On `control`

    private func startIfNeeded(continuing: Bool = false) throws {
        guard running == nil else { return }
        var warnings: [String] = []
        let started: Running
        if let choice {
            (started, _) = try choice.start(warn: {
                warnings.append($0); warn($0)
            }) { try run($0) }
        } else {
            started = try run(nil)
        }
        failure.withLock { $0 = warnings.last }
        if !continuing { timeline.withLock { $0 = StreamTimeline() } }
        lastCaps.withLock { $0 = nil }
        current.withLock { $0 = started.encoder }
        running = started
        liveSink.withLock { $0 = started.sink }
        do {
            // No graph playing (the session recovers): the feed comes with `graphChanged`.
            let feed = try attachFeed()
            running?.feed = feed
        } catch {
            stop()
            throw error
        }
    }

    /// Builds and starts the pipeline for `encoder` (nil: MJPEG's), or throws why it would not start.
    private func run(_ encoder: EncoderCandidate?) throws -> Running {
        let pipeline = try Self.graph(for: format, encoder: encoder).build()
        guard let source = pipeline.element(named: "live-src", as: AppSrc.self),
            let sink = pipeline.element(named: "live-out", as: AppSink.self)
        else {
            throw SessionError.liveFailed(reason: "the live pipeline lacks live-src or live-out")
        }
        generation += 1
        let generation = generation, failure = failure, encodedThisRun = BufferCounter()
        let watch = pipeline.bus.watch { [weak self] message in
            // On the watch's thread: reported in `liveStats` (see `failureReason`); an encoder that fails before its
            // first frame is replaced on `control`.
            guard case let .error(source, text, _, _) = message else { return }
            failure.withLock { $0 = "\(source): \(text)" }
            if let encoder, encodedThisRun.value == 0, let self {
                control.async { self.replace(encoder, generation: generation, reason: "\(source): \(text)") }
            }
        }
        let subscribers = subscribers, framesEncoded = framesEncoded, isJPEG = format == .mjpeg, codec = encoder?.codec ?? .jpeg
        let keyFrames = keyFrames, liveSink = liveSink
        sink.onSample { sample in
            framesEncoded.record()
            encodedThisRun.record()
            // A key frame asked for within the half second after the last one is asked for now that it is over.
            if !isJPEG, keyFrames.withLock({ $0.takeDue(at: MonotonicClock.now) }) { _ = liveSink.withLock { $0 }?.requestKeyFrame() }
            let isKeyFrame = isJPEG || !(sample.buffer?.isDeltaUnit ?? true)
            // Never a frame of this codec to a subscriber of another (one a fallback is about to end).
            for subscriber in subscribers.withLock({ Array($0.values) }) where subscriber.codec == codec {
                subscriber.deliver(sample, isKeyFrame: isKeyFrame)
            }
        }
        do {
            // A live pipeline's sinks complete PLAYING only with the first frame, which needs the feed: wait for
            // PAUSED (where a live source does not preroll, and errors surface), then ask for PLAYING.
            try pipeline.setState(.paused, timeout: 5)
            guard pipeline.requestState(.playing) else { throw SessionError.liveFailed(reason: "the encoder would not play") }
        } catch {
            sink.onSample(nil)
            watch.cancel()
            try? pipeline.setState(.null)
            throw SessionError.liveFailed(reason: "\(error)")
        }
        return Running(pipeline: pipeline, source: source, sink: sink, watch: watch, encoder: encoder, generation: generation)
    }

    /// On `control`: `encoder` posted an error before its first frame. Unless a later run replaced it already, the
    /// next encoder takes its place, fed from the same tee; subscribers of another codec are ended.
    private func replace(_ encoder: EncoderCandidate, generation: Int, reason: String) {
        guard let choice, let running, running.generation == generation else { return }
        let (warning, next) = choice.fail(encoder, reason: reason)
        warn(warning)
        guard next != nil else {
            failure.withLock { $0 = warning }
            return
        }
        stop()
        do {
            try startIfNeeded(continuing: true)
            failure.withLock { $0 = $0 ?? warning }
        } catch {
            failure.withLock { $0 = "\(warning); \(error)" }
            return
        }
        if codec != encoder.codec {
            for subscriber in subscribers.withLock({ Array($0.values) }) where subscriber.codec != codec { subscriber.cancel() }
        }
        _ = self.running?.sink.requestKeyFrame()
    }

    private func attachFeed() throws -> TeeFeed? {
        guard let running, let (pipeline, tee) = try currentTee() else { return nil }
        let source = running.source, framesIn = framesIn, timeline = timeline, lastCaps = lastCaps
        return try TeeFeed(pipeline: pipeline, tee: tee, name: "live-\(format.rawValue)", backlog: 2) { sample in
            if forward(sample, into: source, timeline: timeline, lastCaps: lastCaps) { framesIn.record() }
        }
    }

    private func stopIfUnused() {
        if subscribers.withLock({ $0.isEmpty }) { stop() }
    }

    private func stop() {
        guard let running else { return }
        self.running = nil
        liveSink.withLock { $0 = nil }
        running.feed?.detach()
        running.sink.onSample(nil)
        running.watch.cancel()
        try? running.pipeline.setState(.null)
    }

    /// `appsrc name=live-src` → (the chain of `encoder`, or MJPEG's) → `appsink name=live-out`. The appsrc holds two
    /// frames and drops the oldest: an encoder slower than the camera skips frames instead of adding delay.
    static func graph(for format: LiveFormat, encoder: EncoderCandidate?) -> GraphDescription {
        var graph = GraphDescription()
        let source = graph.add(
            "appsrc", name: "live-src",
            [
                "format": "time", "is-live": true, "do-timestamp": false,
                "max-buffers": 2, "max-bytes": 0, "leaky-type": "downstream"
            ])
        var tail = source
        if format == .mjpeg {
            let chain = [
                source,
                graph.add("videorate", ["max-rate": 15, "drop-only": true]),
                graph.add("videoscale"),
                graph.add(
                    "capsfilter",
                    [
                        "caps": .caps(
                            CapsDescription(
                                "video/x-raw",
                                [
                                    ("width", .intRange(1, 960)),
                                    ("pixel-aspect-ratio", .fraction(1, 1))
                                ]))
                    ]),
                // Through RGB, as stills: JPEG is full range and a camera's YUV is not.
                graph.add("videoconvert"),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("RGB"))]))]),
                graph.add("jpegenc", ["quality": 75])
            ]
            for (from, to) in zip(chain, chain.dropFirst()) { graph.link(from, to: to) }
            tail = chain[chain.count - 1]
        } else if let encoder {
            tail = encoder.addChain(after: source, for: .live, to: &graph)
        }
        graph.link(tail, to: graph.add("appsink", name: "live-out", ["sync": false, "max-buffers": 4, "drop": true]))
        return graph
    }
}
