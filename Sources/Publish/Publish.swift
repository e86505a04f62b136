// Publish: the filtered stream beyond this machine. An RTSP server of our own (gst-rtsp-server, one shared
// media however many clients read it), pushing to a media server (rtspclientsink, srtsink) with retries, and
// a reader that checks a published stream. Everything here consumes the stream encoded once elsewhere
// (`LiveStream`); nothing here encodes video.

public import Capture
public import GStreamer

/// An encoded live stream several consumers share: each subscription gets every encoded frame on the
/// encoder's streaming thread, starting at a key frame. The encoder runs while anyone subscribes.
public protocol LiveStream: Sendable {
    /// The RTP encoding name of the frames: "H264", "VP8", "VP9" or "JPEG".
    var encodingName: String { get }
    /// Subscribes; `onSample` must not block (it runs on the encoder's thread). A new subscription forces a key frame.
    func subscribe(_ onSample: @escaping @Sendable (Sample) -> Void) throws -> any LiveStreamSubscription
}

/// One consumer's hold on a `LiveStream`.
public protocol LiveStreamSubscription: Sendable {
    /// Stops the frames; idempotent. The last cancel stops the encoder.
    func cancel()
}

extension LiveStream {
    /// The RTP payloader for the frames.
    var payloader: String {
        switch encodingName {
        case "VP8": "rtpvp8pay"
        case "VP9": "rtpvp9pay"
        case "JPEG": "rtpjpegpay"
        default: "rtph264pay"
        }
    }

    /// The parser a muxer or RTSP sink needs in front of the frames, if any.
    var parser: String? { encodingName == "H264" ? "h264parse" : nil }
}

/// One of the session's shared live encoders (`subscribeLive(format)`, `.video` by default) as the stream publishing reads.
public struct SessionVideoStream: LiveStream {
    /// The session whose filtered stream is published.
    public let session: CaptureSession
    /// Which of its encoders.
    public let format: LiveFormat

    public init(session: CaptureSession, format: LiveFormat = .video) {
        self.session = session
        self.format = format
    }

    public var encodingName: String { session.liveCodec(format).encodingName }

    public func subscribe(_ onSample: @escaping @Sendable (Sample) -> Void) throws -> any LiveStreamSubscription {
        try session.subscribeLive(format, onSample: onSample)
    }
}

extension LiveSubscription: LiveStreamSubscription {}
