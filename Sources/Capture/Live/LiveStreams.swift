import Base
import Config
public import GStreamer

/// How a live format's shared encoder is doing, for `stats` and the transports' overlays.
public struct LiveStats: Sendable, Equatable {
    /// The codec the format is encoded with.
    public let codec: LiveCodec
    /// The encoder element (running, or the one the next start uses); nil when none is installed.
    public let encoder: String?
    /// Subscribers now (browser viewers, RTSP media, publishers).
    public let subscribers: Int
    /// Frames fed to the encoder and frames it produced, over the session.
    public let framesIn: Int
    public let framesEncoded: Int
    /// The encoder's last error, if it failed (it starts again once every subscriber has left and one comes), or the
    /// warning of the fallback that replaced a failed encoder.
    public let failure: String?
    /// Key frames forced for subscribers (a viewer joining, a PLI or FIR), and requests answered by one forced for
    /// another (a storm of PLIs costs at most a key frame per half second).
    public var keyFramesForced = 0
    public var keyFrameRequestsMerged = 0
}

/// The session's live encoders, one per format, created with the session and started by their first subscriber.
struct LiveStreams: Sendable {
    let encoders: [LiveFormat: LiveEncoder]

    /// `encoder` is the config's `live.encoder` (nil or "auto": the choice, with fallback).
    init(session name: String, state: Condition<SessionState>, encoder: String? = nil) {
        var encoders: [LiveFormat: LiveEncoder] = [:]
        let warn: @Sendable (String) -> Void = { text in state.withLock { $0.onEvent }?(.warning(text)) }
        for format in LiveFormat.allCases {
            encoders[format] = LiveEncoder(format: format, session: name, choice: format.choice(named: encoder), warn: warn) {
                guard let graph = state.withLock({ $0.graph }) else { return nil }
                guard let tee = graph.pipeline.element(named: PipelineBuilder.Names.tee) else {
                    throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "live \(format.rawValue)")
                }
                return (graph.pipeline, tee)
            }
        }
        self.encoders = encoders
    }

    func graphChanged() { encoders.values.forEach { $0.graphChanged() } }
    func graphRetiring() { encoders.values.forEach { $0.graphRetiring() } }
    func shutdown() { encoders.values.forEach { $0.shutdown() } }
}

extension CaptureSession {
    /// The codec `format` is encoded with on this machine.
    public func liveCodec(_ format: LiveFormat) -> LiveCodec {
        live.encoders[format]?.codec ?? (format == .mjpeg ? .jpeg : format.choice(named: config.live?.encoder)?.chosen?.codec ?? .vp8)
    }

    /// The video codecs this host can give a browser, best first: `video`'s (H.264 where an H.264 encoder works), then
    /// VP8 from `vp8` and VP9 from `vp9` where `video` is not that codec and its encoder is there. Each with the format
    /// to subscribe to.
    public var liveVideoCodecs: [(codec: LiveCodec, format: LiveFormat)] {
        let main = liveCodec(.video)
        var codecs = [(main, LiveFormat.video)]
        for (codec, format) in [(LiveCodec.vp8, LiveFormat.vp8), (.vp9, .vp9)]
        where main != codec && format.choice(named: nil)?.chosen != nil {
            codecs.append((codec, format))
        }
        return codecs
    }

    /// The format whose shared encoder gives `codec` (`liveVideoCodecs`); nil when this host has none.
    public func liveFormat(for codec: LiveCodec) -> LiveFormat? {
        liveVideoCodecs.first { $0.codec == codec }?.format
    }

    /// Subscribes to the session's shared live stream of `format`: encoded once, however many subscribers.
    /// The encoder starts with the first subscriber and stops after the last cancels.
    ///
    /// `onSample` runs on the encoder's streaming thread with each encoded frame (buffer and caps), starting
    /// at a key frame (subscribing asks for one); it must not block: push into a leaky queue of your own.
    /// Timestamps start at zero and keep increasing while the subscription lasts, across camera recovery.
    /// Throws when the encoder cannot start, or the config's graph has no tee to feed it from.
    public func subscribeLive(_ format: LiveFormat, onSample: @escaping @Sendable (Sample) -> Void) throws -> LiveSubscription {
        guard let encoder = live.encoders[format] else { throw SessionError.liveFailed(reason: "no \(format.rawValue) encoder") }
        guard !state.withLock({ $0.stopping || $0.ended }) else { throw SessionError.notRunning }
        return try encoder.subscribe(onSample)
    }

    /// How the shared encoder of `format` is doing.
    public func liveStats(_ format: LiveFormat) -> LiveStats {
        let encoder = live.encoders[format]
        var stats = LiveStats(
            codec: liveCodec(format), encoder: encoder?.encoderElement, subscribers: encoder?.subscriberCount ?? 0,
            framesIn: encoder?.framesIn.value ?? 0, framesEncoded: encoder?.framesEncoded.value ?? 0,
            failure: encoder?.failureReason)
        if let counts = encoder?.keyFrameCounts { (stats.keyFramesForced, stats.keyFrameRequestsMerged) = counts }
        return stats
    }
}
