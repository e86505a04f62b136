import CGstWebRTC
import CGStreamer
import Foundation
import GStreamer

/// Live video at a video call's latency: one encoder for every viewer, started with the first and stopped
/// after the last, and one `webrtcbin` per viewer behind a leaky queue on the RTP tee, so a slow or dead
/// viewer never stalls the camera or the others.
///
/// `appsrc ! videoconvert ! I420 ! x264enc tune=zerolatency ! constrained-baseline ! rtph264pay ! tee`
/// (VP8 with `rtpvp8pay` where x264enc is not installed); per viewer `queue leaky=downstream ! webrtcbin`.
/// Signalling (the offer, the answer, ICE candidates) goes over the page's WebSocket.
final class WebRTCEncoder: @unchecked Sendable {
    let pipeline: Pipeline
    private let source: AppSrc
    private let tee: Element
    private let viewers = Locked<[Int: WebRTCViewer]>([:])
    private let lastCaps = Locked<Caps?>(nil)
    private let restrictToLoopback: Bool
    private var watch: BusWatch?
    /// The codec the offer carries.
    let codec: String

    init(restrictToLoopback: Bool) throws {
        self.restrictToLoopback = restrictToLoopback
        var graph = GraphDescription()
        var chain = [
            graph.add("appsrc", name: "rtc-src", ["format": "time", "is-live": true, "do-timestamp": false, "max-buffers": 2,
                                                  "leaky-type": "downstream", "block": false]),
            graph.add("queue", ["max-size-buffers": 2, "max-size-bytes": 0, "max-size-time": 0, "leaky": "downstream"]),
            graph.add("videoconvert"),
            graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string("I420"))]))]),
        ]
        if Element.factoryExists("x264enc") {
            codec = "H264"
            chain += [
                graph.add("x264enc", ["tune": "zerolatency", "speed-preset": "ultrafast", "key-int-max": 60, "bitrate": 2500,
                                      "threads": 2, "b-adapt": false, "bframes": 0]),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-h264", [("profile", .string("constrained-baseline"))]))]),
                graph.add("rtph264pay", ["config-interval": -1, "pt": 96, "aggregate-mode": "zero-latency"]),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("application/x-rtp", [
                    ("media", .string("video")), ("encoding-name", .string("H264")), ("payload", .int(96)), ("clock-rate", .int(90000)),
                ]))]),
            ]
        } else {
            codec = "VP8"
            chain += [
                graph.add("vp8enc", ["deadline": 1, "cpu-used": 8, "threads": 2, "lag-in-frames": 0, "keyframe-max-dist": 60,
                                     "end-usage": "cbr", "target-bitrate": 2_000_000, "error-resilient": "default"]),
                graph.add("rtpvp8pay", ["pt": 96]),
                graph.add("capsfilter", ["caps": .caps(CapsDescription("application/x-rtp", [
                    ("media", .string("video")), ("encoding-name", .string("VP8")), ("payload", .int(96)), ("clock-rate", .int(90000)),
                ]))]),
            ]
        }
        chain.append(graph.add("tee", name: "rtp", ["allow-not-linked": true]))
        for (upstream, downstream) in zip(chain, chain.dropFirst()) { graph.link(upstream, to: downstream) }
        pipeline = try graph.build()
        guard let source = pipeline.element(named: "rtc-src", as: AppSrc.self), let tee = pipeline.element(named: "rtp") else {
            throw GStreamerError.elementNotFound(factory: "appsrc", package: nil)
        }
        self.source = source
        self.tee = tee
        watch = pipeline.bus.watch { _ in }
        try pipeline.setState(.playing, timeout: 5)
    }

    /// Hands a camera frame on (feed thread; never blocks).
    func push(_ sample: Sample) {
        guard let buffer = sample.buffer else { return }
        if let caps = sample.caps, lastCaps.withLock({ last in
            defer { last = caps }
            return last.map { !$0.isEqual(to: caps) } ?? true
        }) {
            source.caps = caps
        }
        // The camera pipeline's timestamps count from its own start: restamped with this pipeline's running time.
        var copy = WritableBuffer(buffer)
        copy.pts = pipeline.runningTime
        copy.dts = nil
        try? source.push(copy)
    }

    /// Adds a viewer: its queue and webrtcbin join the playing pipeline and the offer goes out through `send`.
    func addViewer(id: Int, send: @escaping @Sendable (String) -> Void) throws {
        let viewer = try WebRTCViewer(id: id, pipeline: pipeline, tee: tee, restrictToLoopback: restrictToLoopback, send: send)
        viewers.withLock { $0[id] = viewer }
        try viewer.attach()
    }

    func viewer(_ id: Int) -> WebRTCViewer? { viewers.withLock { $0[id] } }

    /// Removes a viewer; returns how many remain (nil when it was not one).
    func removeViewer(id: Int) -> Int? {
        guard let viewer = viewers.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        viewer.detach()
        return viewers.withLock { $0.count }
    }

    var viewerCount: Int { viewers.withLock { $0.count } }

    /// RTP packets each viewer's queue passed on, by id.
    var packetsSent: [Int: Int] { viewers.withLock { $0.mapValues { $0.packets.value } } }

    func stop() {
        for viewer in viewers.withLock({ viewers in
            defer { viewers = [:] }
            return Array(viewers.values)
        }) { viewer.detach() }
        try? pipeline.setState(.null)
        watch?.cancel()
    }
}

/// One browser's `webrtcbin` and the leaky queue in front of it.
final class WebRTCViewer: @unchecked Sendable {
    let id: Int
    let packets: BufferCounter
    private let pipeline: Pipeline
    private let tee: Element
    private let queue: Element
    private let webrtc: Element
    private let send: @Sendable (String) -> Void
    private let teePad = Locked<Pad?>(nil)
    private var handlers: [gulong] = []

    init(id: Int, pipeline: Pipeline, tee: Element, restrictToLoopback: Bool, send: @escaping @Sendable (String) -> Void) throws {
        self.id = id
        self.pipeline = pipeline
        self.tee = tee
        self.send = send
        queue = try Element.make("queue", name: "viewer-queue-\(id)")
        try queue.set("leaky", "downstream")
        // Counted in packets: about 10 frames of 640x480 H.264; a viewer further behind loses the oldest.
        try queue.set("max-size-buffers", 100)
        try queue.set("max-size-bytes", 0)
        try queue.set("max-size-time", UInt64(0))
        webrtc = try Element.make("webrtcbin", name: "viewer-\(id)")
        try webrtc.set("bundle-policy", "max-bundle")
        packets = try queue.staticPad("src").countBuffers().counter
        if restrictToLoopback { _ = CGstWebRTC_add_local_ip_address(webrtc.pointer, "127.0.0.1") }
    }

    /// Links into the running pipeline; webrtcbin then asks for negotiation and the offer is sent.
    func attach() throws {
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
        // The viewer outlives its handlers: `detach` disconnects them before the viewer is dropped.
        let raw = UnsafeMutableRawPointer(webrtc.pointer)
        handlers.append(g_signal_connect_data(raw, "on-negotiation-needed", unsafeBitCast(onNegotiation, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        handlers.append(g_signal_connect_data(raw, "on-ice-candidate", unsafeBitCast(onCandidate, to: GCallback.self), me, nil, GConnectFlags(rawValue: 0)))
        try pipeline.add(queue, webrtc)
        _ = try queue.link(to: webrtc)
        _ = webrtc.syncStateWithParent()
        _ = queue.syncStateWithParent()
        let pad = try tee.requestPad("src_%u")
        teePad.withLock { $0 = pad }
        try pad.link(to: queue.staticPad("sink"))
        // A new viewer needs a key frame now, not at the encoder's next interval.
        if let event = gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0) {
            _ = try? queue.staticPad("src").sendEvent(event)
        }
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

    /// Unlinks from the tee and stops and removes its elements.
    func detach() {
        let raw = UnsafeMutableRawPointer(webrtc.pointer)
        for handler in handlers { g_signal_handler_disconnect(raw, handler) }
        handlers = []
        if let pad = teePad.withLock({ pad -> Pad? in
            defer { pad = nil }
            return pad
        }) {
            if let sink = try? queue.staticPad("sink") { _ = pad.unlink(from: sink) }
            tee.releaseRequestPad(pad)
        }
        try? webrtc.setState(.null)
        try? queue.setState(.null)
        _ = pipeline.remove(webrtc)
        _ = pipeline.remove(queue)
    }
}
