import Base
import CGstWebRTC
import Capture
import FoundationEssentials
import GStreamer

/// One browser's WebRTC viewer: a small pipeline of its own, `appsrc (leaky) ! rtph264pay|rtpvp8pay ! webrtcbin`,
/// fed by its own subscription to one of the session's shared live encoders (one encode per codec for every viewer,
/// RTSP client and publisher). The appsrc holds a few frames and drops the oldest, so a slow or dead viewer only loses
/// its own frames and never holds the encoder or the others. Signalling (the offer, the answer, ICE candidates) goes
/// over the page's WebSocket through `send`.
///
/// The offer lists every codec the host can encode (`CaptureSession.liveVideoCodecs`: H.264, then VP8), each with a
/// payload type of its own; the viewer gets the first the answer accepts, the browser's order of preference, and only
/// then is the chain in front of webrtcbin built and subscribed to that codec's encoder. An H.264 offer names the
/// encoder's profile and level, read from its first sequence parameter set (`profileLevelID`, known from an earlier
/// viewer or read from a subscription made for it). No packet goes into webrtcbin until the peer's DTLS certificate
/// matched the answer's `a=fingerprint` (webrtcbin completes the handshake with any certificate); a mismatch, a refused
/// answer or a failed handshake ends the viewer through `onFailure` with the reason.
///
/// The camera's side of DTLS serves the host's ECDSA certificate (`SelfSignedCertificate`) when it has one: the DTLS decoder
/// gets it as webrtcbin builds the transport, before the offer reads its fingerprint.
/// Unchecked Sendable: `signals` and `watch` are written in `init` (through `play`) and again only in `stop`, which
/// its owner calls once; everything else the signal handlers and streaming threads touch is immutable, a
/// `BufferCounter`, or behind `Locked`.
final class WebRTCViewer: @unchecked Sendable {
    let id: Int
    /// Where its page's WebSocket comes from ("127.0.0.1:53124"), to name it in the host's log.
    let address: String
    /// Encoded frames handed to this viewer's pipeline.
    let frames = BufferCounter()
    /// Key frames the browser asked for (PLI, FIR).
    let keyFrameRequests = BufferCounter()
    /// The codecs offered, best first, each with its payload type and the live format that encodes it.
    let offered: [Offered]
    /// The codec the answer chose; nil until then.
    var codec: LiveCodec? { sending.withLock { $0?.codec } }
    private let pipeline: Pipeline
    let webrtc: Element
    /// webrtcbin's sink pad, which the chain for the chosen codec feeds.
    private let sinkPad: Pad
    private let send: @Sendable (String) -> Void
    /// Told the viewer (by identity: its page may have started another) and the reason, once.
    private let onFailure: @Sendable (ObjectIdentifier, String) -> Void
    /// Told, once webrtcbin took the answer, the codec it chose (its owner then calls `startSending`).
    private let onAnswered: @Sendable (WebRTCViewer, Offered) -> Void
    private let lastCaps = Locked<Caps?>(nil)
    private let subscription = Locked<LiveSubscription?>(nil)
    /// The chain feeding webrtcbin, once the answer chose its codec.
    private let sending = Locked<Sending?>(nil)
    /// The answer's choice, from `setAnswer` until webrtcbin took it.
    private let chosen = Locked<Offered?>(nil)
    /// The host's certificate, and whether the DTLS decoder took it (then the offer says its fingerprint).
    let certificate: SelfSignedCertificate?
    let servesCertificate = Locked(false)
    private let negotiation = Locked(Negotiation())
    let peer = Locked(Peer())
    private var signals: [SignalConnection] = []
    private var watch: BusWatch?
    /// The pad whose probe drops RTP packets until the peer is verified, and the probe (removed once it is).
    let gate = Locked<(pad: Pad, probe: UInt)?>(nil)

    /// A codec in the offer.
    struct Offered: Sendable, Equatable {
        let codec: LiveCodec
        let payload: Int
        let format: LiveFormat
    }

    private struct Sending {
        let codec: LiveCodec
        let source: AppSrc
    }

    private struct Negotiation {
        /// The pipeline reached PLAYING: webrtcbin asks for negotiation while it goes there, and an offer made then builds
        /// its DTLS transport while the pipeline's state change runs through webrtcbin's children, which could take the
        /// DTLS decoder to READY before `elementAdded` gave it the certificate (its new connection then had no handler
        /// to accept the peer's certificate: "certificate verify failed", a few page loads in a hundred).
        var playing = false
        /// webrtcbin asked for an offer.
        var wanted = false
        var offered = false
        /// The offer went to the page (webrtcbin has it as its local description): an answer may come.
        var sent = false
        /// H.264: the encoder's, from its first sequence parameter set.
        var profileLevelID: String?
    }

    struct Peer: Sendable {
        /// The answer's fingerprint, once webrtcbin took the answer.
        var fingerprint: Fingerprint?
        /// The DTLS transport watched and its state's connection.
        var transport: ObjectReference?
        var watch: SignalConnection?
        /// The peer's certificate matched: frames flow.
        var verified = false
        /// Ended (a failure told, or stopped): nothing more is done.
        var ended = false
    }

    /// The payload type of the first codec offered; the others follow it.
    static let firstPayload = 96

    /// Builds the viewer's pipeline (webrtcbin, offering `codecs`) and plays it; the offer goes out once webrtcbin asks
    /// for negotiation and, with H.264 offered, `profileLevelID` is known (given, or read by `learnProfile`).
    init(
        id: Int, address: String, codecs: [(codec: LiveCodec, format: LiveFormat)], profileLevelID: String?,
        certificate: SelfSignedCertificate?, restrictToLoopback: Bool, send: @escaping @Sendable (String) -> Void,
        onAnswered: @escaping @Sendable (WebRTCViewer, Offered) -> Void,
        onFailure: @escaping @Sendable (ObjectIdentifier, String) -> Void
    ) throws {
        (self.id, self.address, self.certificate) = (id, address, certificate)
        (self.send, self.onFailure, self.onAnswered) = (send, onFailure, onAnswered)
        offered = codecs.enumerated().map { Offered(codec: $1.codec, payload: Self.firstPayload + $0, format: $1.format) }
        var graph = GraphDescription()
        _ = graph.add("webrtcbin", name: "viewer", ["bundle-policy": "max-bundle"])
        pipeline = try graph.build()
        guard let webrtc = pipeline.element(named: "viewer") else {
            throw GStreamerError.elementNotFound(factory: "webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        self.webrtc = webrtc
        sinkPad = try webrtc.requestPad("sink_%u")
        let preferences = try Caps(parsing: offered.map(Self.capsText).joined(separator: "; "))
        guard CGstWebRTC_offer_codecs(sinkPad.pointer, preferences.pointer) != 0 else {
            throw GStreamerError.elementNotFound(factory: "webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        negotiation.withLock { $0.profileLevelID = profileLevelID }
        if restrictToLoopback { _ = CGstWebRTC_add_local_ip_address(webrtc.pointer, "127.0.0.1") }
        try play()
    }

    /// The caps an offered codec is described by (the transceiver's codec preferences).
    private static func capsText(_ offered: Offered) -> String {
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=\(offered.codec.encodingName),payload=\(offered.payload)"
    }

    /// Whether the offer waits for the H.264 profile (nothing has read it yet): then `learnProfile` reads it.
    var needsProfile: Bool {
        offered.contains { $0.codec == .h264 } && negotiation.withLock { $0.profileLevelID == nil }
    }

    /// The H.264 profile and level of the offer, once known.
    var profileLevelID: String? { negotiation.withLock { $0.profileLevelID } }

    /// Subscribes to `format` (the H.264 encoder's) to read its profile and level from the first frame; the frames
    /// feed the viewer once the answer chooses H.264, and the subscription ends if it chooses another codec.
    func learnProfile(_ session: CaptureSession, format: LiveFormat) throws {
        try subscribe(session, format: format, codec: .h264)
    }

    /// After the answer: builds `appsrc ! payloader ! capsfilter` in front of webrtcbin for `chosen` and subscribes to
    /// its encoder (keeping the subscription made to read the profile when the answer chose H.264).
    func startSending(_ chosen: Offered, session: CaptureSession) throws {
        var payloader: [(String, GraphValue)] = [("pt", .int(chosen.payload))]
        if chosen.codec == .h264 { payloader += [("config-interval", -1), ("aggregate-mode", "zero-latency")] }
        var graph = GraphDescription()
        let rtp = CapsDescription(
            "application/x-rtp",
            [
                ("media", .string("video")), ("encoding-name", .string(chosen.codec.encodingName)), ("payload", .int(chosen.payload)),
                ("clock-rate", .int(90000))
            ])
        let tail = graph.add("capsfilter", name: "viewer-rtp", ["caps": .caps(rtp)])
        graph.chain(
            graph.add(
                "appsrc", name: "viewer-src",
                [
                    "format": "time", "is-live": true, "do-timestamp": false, "max-buffers": 8,
                    "max-bytes": 0, "leaky-type": "downstream", "block": false
                ]),
            graph.add(chosen.codec.payloader, properties: payloader),
            tail)
        graph.ghost("src", tail, pad: "src")
        let chain = try graph.buildBin(name: "viewer-send")
        guard let source = chain.element(named: "viewer-src", as: AppSrc.self), let filter = chain.element(named: "viewer-rtp") else {
            throw GStreamerError.elementNotFound(factory: "appsrc", package: "gstreamer1.0-plugins-base")
        }
        try pipeline.add(chain)
        try chain.staticPad("src").link(to: sinkPad)
        // The browser's PLI or FIR (it lost a packet and cannot decode on) reaches the appsrc as an upstream request for
        // a key frame: handed to the shared encoder, which serves every subscriber with one (rate-limited there).
        let subscription = subscription, keyFrameRequests = keyFrameRequests
        try source.staticPad("src").onKeyFrameRequest {
            keyFrameRequests.record()
            subscription.withLock { $0 }?.requestKeyFrame()
        }
        try gateUntilVerified(filter)
        _ = chain.syncStateWithParent()
        sending.withLock { $0 = Sending(codec: chosen.codec, source: source) }
        if subscription.withLock({ $0?.codec }) != chosen.codec {
            subscription.withLock { current in
                defer { current = nil }
                return current
            }?.cancel()
            try subscribe(session, format: chosen.format, codec: chosen.codec)
        }
    }

    /// Drops every RTP packet on its way into webrtcbin until the peer's certificate matched the answer. Events pass. The
    /// gate sits in front of webrtcbin, not in front of the payloader, because webrtcbin holds what reaches it before
    /// DTLS connects and sends it right after the handshake, before any check could run. The match removes the probe
    /// (`checkCertificate`), so a verified viewer's packets cross no code of ours.
    private func gateUntilVerified(_ filter: Element) throws {
        let pad = try filter.staticPad("src")
        // The probe holds the peer state until it is removed or the pad drops it with the pipeline.
        let peer = peer
        let probe = pad.dropBuffers { peer.withLock { $0.verified && !$0.ended } }
        let verified = peer.withLock { $0.verified }
        if verified { pad.removeProbe(probe) } else { gate.withLock { $0 = (pad, probe) } }
    }

    /// Connects the signals and plays: webrtcbin then asks for negotiation.
    private func play() throws {
        typealias OnNegotiation = @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void
        typealias OnCandidate = @convention(c) (UnsafeMutablePointer<GstElement>?, guint, UnsafePointer<CChar>?, gpointer?) -> Void
        let onNegotiation: OnNegotiation = { _, data in
            SignalConnection.handler(data, as: WeakReference<WebRTCViewer>.self)?.object?.offerWhenReady { $0.wanted = true }
        }
        let onCandidate: OnCandidate = { _, mline, candidate, data in
            guard let candidate, let viewer = SignalConnection.handler(data, as: WeakReference<WebRTCViewer>.self)?.object else { return }
            let object: [String: Any] = ["type": "ice", "candidate": String(cString: candidate), "sdpMLineIndex": Int(mline)]
            viewer.send(WebServer.jsonText(object))
        }
        // The handlers hold the viewer weakly; `stop` disconnects them, and one that comes later finds nothing.
        let raw = UnsafeMutableRawPointer(webrtc.pointer), me = WeakReference(self)
        signals.append(try SignalConnection(to: raw, signal: "on-negotiation-needed", handler: me, trampoline: onNegotiation))
        signals.append(try SignalConnection(to: raw, signal: "on-ice-candidate", handler: me, trampoline: onCandidate))
        if certificate != nil {
            typealias OnElement = @convention(c) (gpointer?, gpointer?, UnsafeMutablePointer<GstElement>?, gpointer?) -> Void
            let onElement: OnElement = { _, _, element, data in
                guard let element else { return }
                SignalConnection.handler(data, as: WeakReference<WebRTCViewer>.self)?.object?.elementAdded(element)
            }
            signals.append(try SignalConnection(to: raw, signal: "deep-element-added", handler: me, trampoline: onElement))
        }
        let id = id
        watch = pipeline.bus.watch { [weak self] message in
            // A failed DTLS handshake is an error from the DTLS elements inside webrtcbin: GStreamer's words go to the
            // debug log, the reason to the viewer's owner.
            guard case let .error(source, text, debug, _) = message else { return }
            DebugLog.warning("WebRTC viewer \(id): \(source): \(text) (\(debug ?? "")); GST_DEBUG=dtlsconnection:1 shows OpenSSL's reason")
            guard let self else { return }
            self.fail(source.lowercased().contains("dtls") ? self.handshakeFailure : "its pipeline failed in \(source)")
        }
        try pipeline.setState(.playing, timeout: 5)
        offerWhenReady { $0.playing = true }
    }

    /// Subscribes to the shared encoder of `format` (the encoder's streaming thread calls back: read the H.264 profile
    /// if the offer waits for it; once a chain is there, set caps when they change, restamp, push; never block).
    private func subscribe(_ session: CaptureSession, format: LiveFormat, codec: LiveCodec) throws {
        let pipeline = pipeline, lastCaps = lastCaps, frames = frames, sending = sending
        let subscribed = try session.subscribeLive(format) { [weak self] sample in
            guard let buffer = sample.buffer else { return }
            if codec == .h264, self?.negotiation.withLock({ $0.profileLevelID == nil }) == true,
                let profile = try? buffer.withMappedBytes({ H264Parameters.profileLevelID(in: $0) })
            {
                self?.offerWhenReady { $0.profileLevelID = profile }
            }
            guard let source = sending.withLock({ $0?.codec == codec ? $0?.source : nil }) else { return }
            if let caps = sample.caps,
                lastCaps.withLock({ last in
                    defer { last = caps }
                    return last.map { !$0.isEqual(to: caps) } ?? true
                })
            {
                source.caps = caps
            }
            // webrtcbin paces by running time: frames are stamped with this pipeline's own.
            var copy = WritableBuffer(buffer)
            copy.pts = pipeline.runningTime
            copy.dts = nil
            if (try? source.push(copy)) != nil { frames.record() }
        }
        // An encoder that fell back to another codec as this viewer joined delivers none of its frames here: the viewer is
        // refused and its next try fits.
        guard subscribed.codec == codec else {
            subscribed.cancel()
            throw SessionError.liveFailed(
                reason:
                    "the live encoder changed from \(codec.encodingName) to \(subscribed.codec.encodingName) as this viewer joined; join again"
            )
        }
        subscription.withLock { $0 = subscribed }
    }

    /// Applies `change`, then creates the offer once webrtcbin wants one and (H.264 offered) the profile is known, at most
    /// once.
    private func offerWhenReady(_ change: (inout Negotiation) -> Void) {
        let waitsForProfile = offered.contains { $0.codec == .h264 }
        let ready = negotiation.withLock { negotiation in
            change(&negotiation)
            guard negotiation.playing, negotiation.wanted, !negotiation.offered, !waitsForProfile || negotiation.profileLevelID != nil
            else { return false }
            negotiation.offered = true
            return true
        }
        guard ready else { return }
        guard let offered = promise(replyingTo: WebRTCViewer.offerCreated) else { return }
        CGstWebRTC_create_offer(webrtc.pointer, offered)
        gst_promise_unref(offered)  // webrtcbin holds it while the task waits (see `promise(replyingTo:)`)
    }

    private func offerCreated(_ promise: UnsafeMutablePointer<GstPromise>) {
        guard gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED,
            let offer = CGstWebRTC_offer_from_reply(gst_promise_get_reply(promise))
        else {
            send(WebServer.jsonText(["type": "error", "error": "the camera could not make a WebRTC offer"]))
            return
        }
        defer { gst_webrtc_session_description_free(offer) }
        if let h264 = offered.first(where: { $0.codec == .h264 }), let profile = negotiation.withLock({ $0.profileLevelID }) {
            OfferSDP.addFormatParameters(to: offer.pointee.sdp, payload: h264.payload, profileLevelID: profile)
        }
        if let certificate, servesCertificate.withLock({ $0 }) {
            OfferSDP.replaceFingerprint(in: offer.pointee.sdp, with: certificate.fingerprint)
        }
        CGstWebRTC_set_local_description(webrtc.pointer, offer)
        guard let text = gst_sdp_message_as_text(offer.pointee.sdp) else { return }
        defer { g_free(text) }
        negotiation.withLock { $0.sent = true }
        send(WebServer.jsonText(["type": "offer", "sdp": String(cString: text)]))
    }

    /// The page's answer, checked: webrtcbin takes it or says why not (then the viewer fails with the reason).
    func setAnswer(_ answer: SDPAnswer) {
        // A page answers the offer it was sent; an answer before it is not one webrtcbin could match to anything.
        guard negotiation.withLock({ $0.sent }) else {
            fail("the answer came before the camera's offer")
            return
        }
        let fingerprint = answer.fingerprint
        guard let choice = offered.first(where: { $0.payload == answer.payload }),
            let promise = self.promise(replyingTo: WebRTCViewer.answerSet)
        else { return }
        guard let description = answer.takeDescription() else {
            gst_promise_unref(promise)
            return
        }
        chosen.withLock { $0 = choice }
        peer.withLock { $0.fingerprint = fingerprint }
        CGstWebRTC_set_remote_description(webrtc.pointer, description, promise)
        gst_promise_unref(promise)
        gst_webrtc_session_description_free(description)
    }

    /// On webrtcbin's thread: the answer was taken (the DTLS transport is then watched) or refused.
    private func answerSet(_ promise: UnsafeMutablePointer<GstPromise>) {
        let replied = gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED
        var error = CGstWebRTC_reply_error(gst_promise_get_reply(promise))
        if error != nil {
            let text = GLibError(consuming: &error).message
            DebugLog.warning("WebRTC viewer \(id): webrtcbin refused the answer: \(text)")
            fail("the answer was refused: it does not fit the camera's offer")
            return
        }
        guard replied else { return }
        watchTransport()
        if let choice = chosen.withLock({ $0 }) { onAnswered(self, choice) }
    }

    /// The viewer cannot go on: told once, with the reason, to its owner (which ends it off this thread).
    func fail(_ reason: String) {
        let first = peer.withLock { peer in
            defer { peer.ended = true }
            return !peer.ended
        }
        if first { onFailure(ObjectIdentifier(self), reason) }
    }

    /// A candidate of the page's, once its answer was given: a browser gathers them only after answering, and
    /// webrtcbin, given one before, hands libnice a component it does not have (a GLib critical).
    func addCandidate(mline: UInt32, candidate: String) {
        guard chosen.withLock({ $0 != nil }) else {
            DebugLog.info("WebRTC viewer \(id): a candidate before the answer, dropped")
            return
        }
        CGstWebRTC_add_ice_candidate(webrtc.pointer, guint(mline), candidate)
    }

    /// Cancels the subscription, disconnects the signals and stops the pipeline.
    func stop() {
        subscription.withLock { subscription in
            defer { subscription = nil }
            return subscription
        }?.cancel()
        for signal in signals { signal.disconnect() }
        signals = []
        let watched = peer.withLock { peer in
            defer { peer.ended = true; peer.transport = nil; peer.watch = nil }
            return (peer.transport, peer.watch)
        }
        watched.1?.disconnect()
        try? pipeline.setState(.null)
        watch?.cancel()
    }
}
