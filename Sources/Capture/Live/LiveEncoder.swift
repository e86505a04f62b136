import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import GStreamer
import Synchronization

/// What a live consumer asks for: video for WebRTC and RTSP, or JPEG frames for MJPEG viewers.
public enum LiveFormat: String, Sendable, CaseIterable {
    /// H.264 constrained-baseline (x264enc, `tune=zerolatency`), or VP8 where x264enc is absent.
    case video
    /// JPEG frames at most 960 pixels wide and 15 per second, full range.
    case mjpeg
}

/// The codec a live format is encoded with on this machine.
public enum LiveCodec: String, Sendable {
    case h264, vp8, jpeg

    /// The RTP encoding name (SDP `a=rtpmap`).
    public var encodingName: String {
        switch self {
        case .h264: "H264"
        case .vp8: "VP8"
        case .jpeg: "JPEG"
        }
    }

    /// The RTP payloader's element factory.
    public var payloader: String {
        switch self {
        case .h264: "rtph264pay"
        case .vp8: "rtpvp8pay"
        case .jpeg: "rtpjpegpay"
        }
    }

    /// The codec for `format`: H.264 needs x264enc (Debian gstreamer1.0-plugins-ugly).
    static func choose(for format: LiveFormat) -> LiveCodec {
        switch format {
        case .video: Element.factoryExists("x264enc") ? .h264 : .vp8
        case .mjpeg: .jpeg
        }
    }
}

extension LiveFormat {
    /// The live encoder's pipeline for this format on this machine, as gst-launch text (`swiftcam show`).
    public var launchDescription: String { LiveEncoder.graph(for: LiveCodec.choose(for: self)).launchText }
}

/// One live subscriber's handle. Cancel it when the viewer leaves; the last cancel stops the encoder.
public final class LiveSubscription: Sendable {
    /// The callback (released at cancel, so a callback that refers to its own subscription makes no cycle)
    /// and whether a key frame has been delivered yet; held while the callback runs.
    private struct Delivery {
        var handler: (@Sendable (Sample) -> Void)?
        var sawKeyFrame = false
    }

    private let active = Atomic(true)
    private let delivery: Locked<Delivery>
    /// The thread inside the callback now (`pthread_self`), 0 when none.
    private let deliveringThread = Atomic<UInt>(0)
    private let count = BufferCounter()
    private let onCancel: @Sendable (LiveSubscription) -> Void

    init(handler: @escaping @Sendable (Sample) -> Void, onCancel: @escaping @Sendable (LiveSubscription) -> Void) {
        delivery = Locked(Delivery(handler: handler))
        self.onCancel = onCancel
    }

    /// Samples handed to the subscriber.
    public var delivered: Int { count.value }

    /// Stops the deliveries: none runs after this returns (a delivery under way on another thread is waited
    /// for; it is one push into the subscriber's own queue), and the callback is released. Idempotent; safe
    /// from any thread, the subscriber's own callback included.
    public func cancel() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if deliveringThread.load(ordering: .acquiring) != UInt(pthread_self()) {
            delivery.withLock { $0.handler = nil }
        }   // else: inside the callback, which releases it when it returns
        onCancel(self)
    }

    /// Hands `sample` on, from the first key frame; on the encoder's streaming thread.
    func deliver(_ sample: Sample, isKeyFrame: Bool) {
        delivery.withLock { state in
            guard active.load(ordering: .acquiring), let handler = state.handler else { return }
            if !state.sawKeyFrame {
                guard isKeyFrame else { return }
                state.sawKeyFrame = true
            }
            deliveringThread.store(UInt(pthread_self()), ordering: .releasing)
            handler(sample)
            deliveringThread.store(0, ordering: .releasing)
            count.record()
            if !active.load(ordering: .acquiring) { state.handler = nil }   // cancelled from inside the callback
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
final class LiveEncoder: @unchecked Sendable {
    let format: LiveFormat
    let codec: LiveCodec
    /// Frames handed to the encoder, and encoded frames out of it (over every run).
    let framesIn = BufferCounter()
    let framesEncoded = BufferCounter()

    private struct Running {
        let pipeline: Pipeline
        let source: AppSrc
        let sink: AppSink
        let watch: BusWatch
        var feed: TeeFeed?
    }

    /// Start, stop and re-attachment, in order, off every streaming thread.
    private let control: DispatchQueue
    private let subscribers = Locked<[ObjectIdentifier: LiveSubscription]>([:])
    /// Touched only on `control`.
    private var running: Running?
    private let timeline = Locked(StreamTimeline())
    private let lastCaps = Locked<Caps?>(nil)
    private let failure = Locked<String?>(nil)
    /// The tee of the graph playing now (nil while none plays, e.g. during recovery), from the session;
    /// throws when the playing graph has none (a raw launch config without `tee name=split`).
    private let currentTee: @Sendable () throws -> (Pipeline, Element)?

    init(format: LiveFormat, session name: String, currentTee: @escaping @Sendable () throws -> (Pipeline, Element)?) {
        self.format = format
        codec = LiveCodec.choose(for: format)
        self.currentTee = currentTee
        control = DispatchQueue(label: "swiftcam.live.\(format.rawValue).\(name)")
    }

    /// Subscribers now.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Why the encoder last failed, if it did. A failed encoder stays down until every subscriber has left; the
    /// next subscriber then starts a new one.
    var failureReason: String? { failure.withLock { $0 } }

    /// Adds a subscriber, starting the encoder for the first.
    func subscribe(_ handler: @escaping @Sendable (Sample) -> Void) throws -> LiveSubscription {
        let subscription = LiveSubscription(handler: handler) { [weak self] subscription in
            self?.remove(subscription)
        }
        subscribers.withLock { $0[ObjectIdentifier(subscription)] = subscription }
        do {
            try control.sync {
                try startIfNeeded()
                _ = running?.sink.requestKeyFrame()
            }
        } catch {
            subscribers.withLock { $0[ObjectIdentifier(subscription)] = nil }
            throw error
        }
        return subscription
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

    private func startIfNeeded() throws {
        guard running == nil else { return }
        let pipeline = try Self.graph(for: codec).build()
        guard let source = pipeline.element(named: "live-src", as: AppSrc.self),
              let sink = pipeline.element(named: "live-out", as: AppSink.self) else {
            throw SessionError.liveFailed(reason: "the live pipeline lacks live-src or live-out")
        }
        let failure = failure
        let watch = pipeline.bus.watch { message in
            // On the watch's thread: reported in `liveStats` (see `failureReason`).
            if case let .error(source, text, _, _) = message {
                failure.withLock { $0 = "\(source): \(text)" }
            }
        }
        let subscribers = subscribers, framesEncoded = framesEncoded, isJPEG = codec == .jpeg
        sink.onSample { sample in
            framesEncoded.record()
            let isKeyFrame = isJPEG || !(sample.buffer?.isDeltaUnit ?? true)
            for subscriber in subscribers.withLock({ Array($0.values) }) {
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
        failure.withLock { $0 = nil }
        timeline.withLock { $0 = StreamTimeline() }
        lastCaps.withLock { $0 = nil }
        running = Running(pipeline: pipeline, source: source, sink: sink, watch: watch)
        do {
            // No graph playing (the session recovers): the feed comes with `graphChanged`.
            let feed = try attachFeed()
            running?.feed = feed
        } catch {
            stop()
            throw error
        }
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
        running.feed?.detach()
        running.sink.onSample(nil)
        running.watch.cancel()
        try? running.pipeline.setState(.null)
    }

    /// `appsrc name=live-src` → (encoder chain for `codec`) → `appsink name=live-out`. The appsrc holds two
    /// frames and drops the oldest: an encoder slower than the camera skips frames instead of adding delay.
    static func graph(for codec: LiveCodec) -> GraphDescription {
        var graph = GraphDescription()
        var chain = [
            graph.add("appsrc", name: "live-src", ["format": "time", "is-live": true, "do-timestamp": false,
                                                   "max-buffers": 2, "max-bytes": 0, "leaky-type": "downstream"]),
        ]
        switch codec {
        case .h264:
            chain += [
                graph.add("videoconvert"),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("I420"))]))]),
                graph.add("x264enc", ["tune": "zerolatency", "speed-preset": "ultrafast", "key-int-max": 30, "bitrate": 2000]),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-h264", [("profile", .string("constrained-baseline"))]))]),
                // SPS/PPS before every key frame: a viewer joining mid-stream decodes from the next one.
                graph.add("h264parse", ["config-interval": -1]),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-h264", [("stream-format", .string("byte-stream")),
                                                                                        ("alignment", .string("au"))]))]),
            ]
        case .vp8:
            chain += [
                graph.add("videoconvert"),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("I420"))]))]),
                graph.add("vp8enc", ["deadline": 1, "cpu-used": 8, "threads": 2, "lag-in-frames": 0, "keyframe-max-dist": 30,
                                     "end-usage": "cbr", "target-bitrate": 2_000_000]),
            ]
        case .jpeg:
            chain += [
                graph.add("videorate", ["max-rate": 15, "drop-only": true]),
                graph.add("videoscale"),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("width", .intRange(1, 960)),
                                                                                       ("pixel-aspect-ratio", .fraction(1, 1))]))]),
                // Through RGB, as stills: JPEG is full range and a camera's YUV is not.
                graph.add("videoconvert"),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("RGB"))]))]),
                graph.add("jpegenc", ["quality": 75]),
            ]
        }
        chain.append(graph.add("appsink", name: "live-out", ["sync": false, "max-buffers": 4, "drop": true]))
        for (from, to) in zip(chain, chain.dropFirst()) { graph.link(from, to: to) }
        return graph
    }
}
