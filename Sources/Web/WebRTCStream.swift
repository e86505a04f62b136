import Capture
import CGstWebRTC
import CGStreamer
import Foundation
import GStreamer

/// One browser's WebRTC viewer: a small pipeline of its own, `appsrc (leaky) ! rtph264pay|rtpvp8pay ! webrtcbin`,
/// fed by its own subscription to the session's shared live encoder (`subscribeLive(.video)`: one encode for every
/// viewer, RTSP client and publisher). The appsrc holds a few frames and drops the oldest, so a slow or dead viewer
/// only loses its own frames and never holds the encoder or the others. Signalling (the offer, the answer, ICE
/// candidates) goes over the page's WebSocket through `send`.
final class WebRTCViewer: @unchecked Sendable {
    let id: Int
    /// Encoded frames handed to this viewer's pipeline.
    let frames = BufferCounter()
    /// The codec the payloader was made for.
    private let codec: LiveCodec
    private let pipeline: Pipeline
    private let source: AppSrc
    private let webrtc: Element
    private let send: @Sendable (String) -> Void
    private let lastCaps = Locked<Caps?>(nil)
    private let subscription = Locked<LiveSubscription?>(nil)
    private var handlers: [gulong] = []
    private var watch: BusWatch?

    init(id: Int, session: CaptureSession, restrictToLoopback: Bool, send: @escaping @Sendable (String) -> Void) throws {
        self.id = id
        self.send = send
        let codec = session.liveCodec(.video)
        self.codec = codec
        var graph = GraphDescription()
        var payloader: [(String, GraphValue)] = [("pt", 96)]
        if codec == .h264 { payloader += [("config-interval", -1), ("aggregate-mode", "zero-latency")] }
        graph.chain(
            graph.add("appsrc", name: "viewer-src", ["format": "time", "is-live": true, "do-timestamp": false, "max-buffers": 8,
                                                     "max-bytes": 0, "leaky-type": "downstream", "block": false]),
            graph.add(codec.payloader, properties: payloader),
            graph.add("capsfilter", ["caps": .caps(CapsDescription("application/x-rtp", [
                ("media", .string("video")), ("encoding-name", .string(codec.encodingName)), ("payload", .int(96)), ("clock-rate", .int(90000)),
            ]))]),
            graph.add("webrtcbin", name: "viewer", ["bundle-policy": "max-bundle"]))
        pipeline = try graph.build()
        guard let source = pipeline.element(named: "viewer-src", as: AppSrc.self), let webrtc = pipeline.element(named: "viewer") else {
            throw GStreamerError.elementNotFound(factory: "webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        self.source = source
        self.webrtc = webrtc
        if restrictToLoopback { _ = CGstWebRTC_add_local_ip_address(webrtc.pointer, "127.0.0.1") }
        try start(session)
    }

    /// Connects the signals, plays (webrtcbin then asks for negotiation and the offer is sent), then subscribes.
    private func start(_ session: CaptureSession) throws {
        let me = Unmanaged.passUnretained(self).toOpaque()
        typealias OnNegotiation = @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void
        typealias OnCandidate = @convention(c) (UnsafeMutablePointer<GstElement>?, guint, UnsafePointer<CChar>?, gpointer?) -> Void
        let onNegotiation: OnNegotiation = { _, data in
            guard let data else { return }
            Unmanaged<WebRTCViewer>.fromOpaque(data).takeUnretainedValue().negotiate()
        }
        let onCandidate: OnCandidate = { _, mline, candidate, data in
            guard let data, let candidate else { return }
            let viewer = Unmanaged<WebRTCViewer>.fromOpaque(data).takeUnretainedValue()
            let object: [String: Any] = ["type": "ice", "candidate": String(cString: candidate), "sdpMLineIndex": Int(mline)]
            if let text = WebServer.jsonText(object) { viewer.send(text) }
        }
        // The viewer outlives its handlers: `stop` disconnects them before the viewer is dropped.
        let raw = UnsafeMutableRawPointer(webrtc.pointer)
        handlers.append(g_signal_connect_data(raw, "on-negotiation-needed", unsafeBitCast(onNegotiation, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        handlers.append(g_signal_connect_data(raw, "on-ice-candidate", unsafeBitCast(onCandidate, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        watch = pipeline.bus.watch { _ in }
        try pipeline.setState(.playing, timeout: 5)
        let source = source, pipeline = pipeline, lastCaps = lastCaps, frames = frames
        let subscribed = try session.subscribeLive(.video) { sample in
            // The encoder's streaming thread: set caps when they change, restamp, push; never block.
            guard let buffer = sample.buffer else { return }
            if let caps = sample.caps, lastCaps.withLock({ last in
                defer { last = caps }
                return last.map { !$0.isEqual(to: caps) } ?? true
            }) {
                source.caps = caps
            }
            // webrtcbin paces by running time: frames are stamped with this pipeline's own.
            var copy = WritableBuffer(buffer)
            copy.pts = pipeline.runningTime
            copy.dts = nil
            if (try? source.push(copy)) != nil { frames.record() }
        }
        // The payloader was made for the codec read before subscribing; an encoder that fell back to another codec
        // as this viewer joined delivers none of its frames here: the viewer is refused and its next try fits.
        guard subscribed.codec == codec else {
            subscribed.cancel()
            throw SessionError.liveFailed(reason: "the live encoder changed from \(codec.encodingName) to \(subscribed.codec.encodingName) as this viewer joined; join again")
        }
        subscription.withLock { $0 = subscribed }
    }

    /// On webrtcbin's thread: create the offer; its promise continues in `offerCreated`.
    private func negotiate() {
        let me = Unmanaged.passRetained(self).toOpaque()
        let promise = gst_promise_new_with_change_func({ promise, data in
            guard let promise, let data else { return }
            Unmanaged<WebRTCViewer>.fromOpaque(data).takeUnretainedValue().offerCreated(promise)
        }, me, { data in
            guard let data else { return }
            Unmanaged<WebRTCViewer>.fromOpaque(data).release()
        })
        CGstWebRTC_create_offer(webrtc.pointer, promise)
    }

    private func offerCreated(_ promise: UnsafeMutablePointer<GstPromise>) {
        defer { gst_promise_unref(promise) }
        guard gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED,
              let offer = CGstWebRTC_offer_from_reply(gst_promise_get_reply(promise)) else {
            send(WebServer.jsonText(["type": "error", "error": "the camera could not make a WebRTC offer"]) ?? "{}")
            return
        }
        defer { gst_webrtc_session_description_free(offer) }
        CGstWebRTC_set_local_description(webrtc.pointer, offer)
        guard let text = gst_sdp_message_as_text(offer.pointee.sdp) else { return }
        defer { g_free(text) }
        send(WebServer.jsonText(["type": "offer", "sdp": String(cString: text)]) ?? "{}")
    }

    /// The browser's answer. Returns a reason when it is not an SDP answer.
    @discardableResult
    func setAnswer(_ text: String) -> String? {
        var sdp: UnsafeMutablePointer<GstSDPMessage>?
        guard gst_sdp_message_new_from_text(text, &sdp) == GST_SDP_OK, let sdp else { return "the answer is not SDP" }
        guard let answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, sdp) else {
            gst_sdp_message_free(sdp)
            return "the answer is not SDP"
        }
        CGstWebRTC_set_remote_description(webrtc.pointer, answer)
        gst_webrtc_session_description_free(answer)
        return nil
    }

    func addCandidate(mline: Int, candidate: String) {
        CGstWebRTC_add_ice_candidate(webrtc.pointer, guint(max(0, mline)), candidate)
    }

    /// Cancels the subscription, disconnects the signals and stops the pipeline.
    func stop() {
        subscription.withLock { subscription in
            defer { subscription = nil }
            return subscription
        }?.cancel()
        let raw = UnsafeMutableRawPointer(webrtc.pointer)
        for handler in handlers { g_signal_handler_disconnect(raw, handler) }
        handlers = []
        try? pipeline.setState(.null)
        watch?.cancel()
    }
}
