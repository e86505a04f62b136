import CGstWebRTC
import Capture
import FoundationEssentials
import GStreamer

/// One browser's WebRTC viewer: a small pipeline of its own, `appsrc (leaky) ! rtph264pay|rtpvp8pay ! webrtcbin`,
/// fed by its own subscription to the session's shared live encoder (`subscribeLive(.video)`: one encode for every
/// viewer, RTSP client and publisher). The appsrc holds a few frames and drops the oldest, so a slow or dead viewer
/// only loses its own frames and never holds the encoder or the others. Signalling (the offer, the answer, ICE
/// candidates) goes over the page's WebSocket through `send`.
///
/// An H.264 offer waits for the encoder's first sequence parameter set, so its `a=fmtp` names the profile and level
/// the viewer will get. No packet goes into webrtcbin until the peer's DTLS certificate matched the answer's
/// `a=fingerprint` (webrtcbin completes the handshake with any certificate); a mismatch, a refused answer or a failed
/// handshake ends the viewer through `onFailure` with the reason.
///
/// The camera's side of DTLS serves the host's ECDSA certificate (`DTLSCertificate`) when it has one: the DTLS decoder
/// gets it as webrtcbin builds the transport, before the offer reads its fingerprint.
final class WebRTCViewer: @unchecked Sendable {
    let id: Int
    /// Where its page's WebSocket comes from ("127.0.0.1:53124"), to name it in the host's log.
    let address: String
    /// Encoded frames handed to this viewer's pipeline.
    let frames = BufferCounter()
    /// The codec the payloader was made for.
    let codec: LiveCodec
    /// The payload type of the offered video.
    static let payload = 96
    private let pipeline: Pipeline
    private let source: AppSrc
    private let webrtc: Element
    private let send: @Sendable (String) -> Void
    /// Told the viewer (by identity: its page may have started another) and the reason, once.
    private let onFailure: @Sendable (ObjectIdentifier, String) -> Void
    private let lastCaps = Locked<Caps?>(nil)
    private let subscription = Locked<LiveSubscription?>(nil)
    /// Key frames the browser asked for (PLI, FIR).
    let keyFrameRequests = BufferCounter()
    /// The host's certificate, and whether the DTLS decoder took it (then the offer says its fingerprint).
    private let certificate: DTLSCertificate?
    private let servesCertificate = Locked(false)
    private let negotiation = Locked(Negotiation())
    private let peer = Locked(Peer())
    private var signals: [SignalConnection] = []
    private var watch: BusWatch?
    /// The pad whose probe drops RTP packets until the peer is verified, and the probe (removed once it is).
    private var gate: (pad: Pad, probe: UInt)?

    private struct Negotiation {
        /// webrtcbin asked for an offer.
        var wanted = false
        var offered = false
        /// H.264: the encoder's, from its first sequence parameter set.
        var profileLevelID: String?
    }

    private struct Peer: Sendable {
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

    /// Builds the viewer's pipeline for `codec` and plays it; `subscribe` then feeds it.
    init(
        id: Int, address: String, codec: LiveCodec, certificate: DTLSCertificate?, restrictToLoopback: Bool,
        send: @escaping @Sendable (String) -> Void, onFailure: @escaping @Sendable (ObjectIdentifier, String) -> Void
    ) throws {
        (self.id, self.address, self.certificate) = (id, address, certificate)
        (self.send, self.onFailure, self.codec) = (send, onFailure, codec)
        var graph = GraphDescription()
        var payloader: [(String, GraphValue)] = [("pt", .int(Self.payload))]
        if codec == .h264 { payloader += [("config-interval", -1), ("aggregate-mode", "zero-latency")] }
        graph.chain(
            graph.add(
                "appsrc", name: "viewer-src",
                [
                    "format": "time", "is-live": true, "do-timestamp": false, "max-buffers": 8,
                    "max-bytes": 0, "leaky-type": "downstream", "block": false
                ]),
            graph.add(codec.payloader, properties: payloader),
            graph.add(
                "capsfilter", name: "viewer-rtp",
                [
                    "caps": .caps(
                        CapsDescription(
                            "application/x-rtp",
                            [
                                ("media", .string("video")), ("encoding-name", .string(codec.encodingName)),
                                ("payload", .int(Self.payload)),
                                ("clock-rate", .int(90000))
                            ]))
                ]),
            graph.add("webrtcbin", name: "viewer", ["bundle-policy": "max-bundle"]))
        pipeline = try graph.build()
        guard let source = pipeline.element(named: "viewer-src", as: AppSrc.self), let webrtc = pipeline.element(named: "viewer") else {
            throw GStreamerError.elementNotFound(factory: "webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        self.source = source
        self.webrtc = webrtc
        // The browser's PLI or FIR (it lost a packet and cannot decode on) reaches the appsrc as an upstream request for
        // a key frame: handed to the shared encoder, which serves every subscriber with one (rate-limited there).
        let subscription = subscription, keyFrameRequests = keyFrameRequests
        try source.staticPad("src").onKeyFrameRequest {
            keyFrameRequests.record()
            subscription.withLock { $0 }?.requestKeyFrame()
        }
        try gateUntilVerified()
        if restrictToLoopback { _ = CGstWebRTC_add_local_ip_address(webrtc.pointer, "127.0.0.1") }
        try play()
    }

    /// Drops every RTP packet on its way into webrtcbin until the peer's certificate matched the answer. Events pass:
    /// webrtcbin offers once caps reached it, and they come with the first frames. The gate sits in front of webrtcbin,
    /// not in front of the payloader, because webrtcbin holds what reaches it before DTLS connects and sends it right
    /// after the handshake, before any check could run. The match removes the probe (`checkCertificate`), so a verified
    /// viewer's packets cross no code of ours.
    private func gateUntilVerified() throws {
        guard let rtp = pipeline.element(named: "viewer-rtp") else {
            throw GStreamerError.elementNotFound(factory: "capsfilter", package: "gstreamer1.0-plugins-base")
        }
        let pad = try rtp.staticPad("src")
        // The probe holds the peer state until it is removed or the pad drops it with the pipeline.
        let peer = peer
        gate = (pad, pad.dropBuffers { peer.withLock { $0.verified && !$0.ended } })
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
    }

    /// On webrtcbin's thread, inside `create-offer`: an element went into webrtcbin. The DTLS decoder of the transport
    /// it builds for the offer (`dtlssrtpdec`, still in NULL) gets the host's certificate, and keeps it only if it reads
    /// back: the encoder of the pair takes the same connection when both go to READY, right after.
    private func elementAdded(_ pointer: UnsafeMutablePointer<GstElement>) {
        guard let certificate else { return }
        let element = Element(retaining: pointer)
        guard element.factoryName == "dtlssrtpdec" else { return }
        do {
            try element.set("pem", certificate.pem)
            let taken = try element.get("pem", as: String.self) == certificate.pem
            servesCertificate.withLock { $0 = taken }
            if !taken { DebugLog.warning("WebRTC viewer \(id): the DTLS decoder did not take the ECDSA certificate; it serves its own") }
        } catch {
            DebugLog.warning("WebRTC viewer \(id): the ECDSA certificate could not be set: \(error)")
        }
    }

    /// Subscribes to the session's live video (the encoder's streaming thread calls back: set caps when they change,
    /// restamp, push; never block).
    func subscribe(_ session: CaptureSession) throws {
        let source = source, pipeline = pipeline, lastCaps = lastCaps, frames = frames, codec = codec
        let subscribed = try session.subscribeLive(.video) { [weak self] sample in
            guard let buffer = sample.buffer else { return }
            if codec == .h264, self?.negotiation.withLock({ $0.profileLevelID == nil }) == true,
                let profile = try? buffer.withMappedBytes({ H264Parameters.profileLevelID(in: $0) })
            {
                self?.offerWhenReady { $0.profileLevelID = profile }
            }
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
        // The payloader was made for the codec read before subscribing; an encoder that fell back to another codec
        // as this viewer joined delivers none of its frames here: the viewer is refused and its next try fits.
        guard subscribed.codec == codec else {
            subscribed.cancel()
            throw SessionError.liveFailed(
                reason:
                    "the live encoder changed from \(codec.encodingName) to \(subscribed.codec.encodingName) as this viewer joined; join again"
            )
        }
        subscription.withLock { $0 = subscribed }
    }

    /// Applies `change`, then creates the offer once webrtcbin wants one and (H.264) the profile is known, at most once.
    private func offerWhenReady(_ change: (inout Negotiation) -> Void) {
        let codec = codec
        let ready = negotiation.withLock { negotiation in
            change(&negotiation)
            guard negotiation.wanted, !negotiation.offered, codec != .h264 || negotiation.profileLevelID != nil else { return false }
            negotiation.offered = true
            return true
        }
        guard ready else { return }
        CGstWebRTC_create_offer(webrtc.pointer, promise(replyingTo: WebRTCViewer.offerCreated))
    }

    /// A promise whose reply goes to `reply` on this viewer; the promise keeps the viewer alive until it is freed.
    private func promise(
        replyingTo reply: @escaping (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void
    )
        -> UnsafeMutablePointer<GstPromise>?
    {
        let box = Unmanaged.passRetained(PromiseReply(viewer: self, reply: reply)).toOpaque()
        return gst_promise_new_with_change_func(
            { promise, data in
                guard let promise, let data else { return }
                let box = Unmanaged<PromiseReply>.fromOpaque(data).takeUnretainedValue()
                box.reply(box.viewer)(promise)
            }, box,
            { data in
                guard let data else { return }
                Unmanaged<PromiseReply>.fromOpaque(data).release()
            })
    }

    private func offerCreated(_ promise: UnsafeMutablePointer<GstPromise>) {
        defer { gst_promise_unref(promise) }
        guard gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED,
            let offer = CGstWebRTC_offer_from_reply(gst_promise_get_reply(promise))
        else {
            send(WebServer.jsonText(["type": "error", "error": "the camera could not make a WebRTC offer"]))
            return
        }
        defer { gst_webrtc_session_description_free(offer) }
        if codec == .h264, let profile = negotiation.withLock({ $0.profileLevelID }) {
            Self.addFormatParameters(to: offer.pointee.sdp, profileLevelID: profile)
        }
        if let certificate, servesCertificate.withLock({ $0 }) {
            Self.replaceFingerprint(in: offer.pointee.sdp, with: certificate.fingerprint)
        }
        CGstWebRTC_set_local_description(webrtc.pointer, offer)
        guard let text = gst_sdp_message_as_text(offer.pointee.sdp) else { return }
        defer { g_free(text) }
        send(WebServer.jsonText(["type": "offer", "sdp": String(cString: text)]))
    }

    /// Every H.264 section gets `a=fmtp:96 packetization-mode=1;profile-level-id=…` (webrtcbin writes one only when the
    /// payloader had caps from a frame by the time it offered); one webrtcbin wrote is replaced unless it says both.
    static func addFormatParameters(to sdp: UnsafeMutablePointer<GstSDPMessage>, profileLevelID: String) {
        let value = "\(payload) " + H264Parameters.formatParameters(profileLevelID: profileLevelID)
        for index in 0..<gst_sdp_message_medias_len(sdp) {
            guard let media = gst_sdp_message_get_media(sdp, index).map({ UnsafeMutablePointer(mutating: $0) }) else { continue }
            let existing = attribute(in: media) { key, text in key == "fmtp" && text.hasPrefix("\(payload) ") }
            if let text = existing?.value, text.contains("packetization-mode=1"), text.contains("profile-level-id=") { continue }
            setAttribute(in: media, "fmtp", value, at: existing?.index)
        }
    }

    /// Every media section's `a=fingerprint` becomes `fingerprint`. webrtcbin hashes the whole text of the DTLS
    /// decoder's `pem` (every line not starting with "-----", webrtcsdp.c `_generate_fingerprint_from_certificate`),
    /// and a PEM the decoder can use holds the private key after the certificate: its own digest would be of both.
    static func replaceFingerprint(in sdp: UnsafeMutablePointer<GstSDPMessage>, with fingerprint: Fingerprint) {
        for index in 0..<gst_sdp_message_medias_len(sdp) {
            guard let media = gst_sdp_message_get_media(sdp, index).map({ UnsafeMutablePointer(mutating: $0) }) else { continue }
            setAttribute(in: media, "fingerprint", fingerprint.text, at: attribute(in: media) { key, _ in key == "fingerprint" }?.index)
        }
    }

    /// The last attribute of `media` for which `matches(key, value)` holds: its index and value.
    private static func attribute(
        in media: UnsafeMutablePointer<GstSDPMedia>,
        where matches: (String, String) -> Bool
    ) -> (index: guint, value: String)? {
        var found: (index: guint, value: String)?
        for index in 0..<gst_sdp_media_attributes_len(media) {
            guard let entry = gst_sdp_media_get_attribute(media, index), let key = entry.pointee.key else { continue }
            let value = entry.pointee.value.map { String(cString: $0) } ?? ""
            if matches(String(cString: key), value) { found = (index, value) }
        }
        return found
    }

    /// Replaces the attribute at `index` with `key:value`, or adds it when there is none.
    private static func setAttribute(in media: UnsafeMutablePointer<GstSDPMedia>, _ key: String, _ value: String, at index: guint?) {
        guard let index else {
            gst_sdp_media_add_attribute(media, key, value)
            return
        }
        var replacement = GstSDPAttribute()
        gst_sdp_attribute_set(&replacement, key, value)
        gst_sdp_media_replace_attribute(media, index, &replacement)
    }

    /// The page's answer, checked: webrtcbin takes it or says why not (then the viewer fails with the reason).
    func setAnswer(_ answer: SDPAnswer) {
        let fingerprint = answer.fingerprint
        guard let description = answer.takeDescription() else { return }
        let promise = self.promise(replyingTo: WebRTCViewer.answerSet)
        peer.withLock { $0.fingerprint = fingerprint }
        CGstWebRTC_set_remote_description(webrtc.pointer, description, promise)
        gst_webrtc_session_description_free(description)
    }

    /// On webrtcbin's thread: the answer was taken (the DTLS transport is then watched) or refused.
    private func answerSet(_ promise: UnsafeMutablePointer<GstPromise>) {
        defer { gst_promise_unref(promise) }
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
    }

    /// Watches the DTLS transport's state: connected → the peer's certificate is checked; failed → the viewer fails.
    private func watchTransport() {
        guard let transport = CGstWebRTC_dtls_transport(webrtc.pointer).map({ ObjectReference(adopting: $0) }) else {
            fail("its DTLS transport is missing")
            return
        }
        typealias OnNotify = @convention(c) (gpointer?, gpointer?, gpointer?) -> Void
        let onNotify: OnNotify = { _, _, data in
            SignalConnection.handler(data, as: WeakReference<WebRTCViewer>.self)?.object?.transportChanged()
        }
        let watch: SignalConnection
        do {
            watch = try SignalConnection(to: transport.raw, signal: "notify::state", handler: WeakReference(self), trampoline: onNotify)
        } catch {
            fail("its DTLS transport cannot be watched: \(error)")
            return
        }
        let fresh = peer.withLock { peer -> Bool in
            guard peer.transport == nil, !peer.ended else { return false }
            peer.transport = transport
            peer.watch = watch
            return true
        }
        guard fresh else { return }  // the transport and its watch go with `watch` and `transport` here
        transportChanged()  // it may have connected before the handler was there
    }

    /// On the DTLS thread (or webrtcbin's): the transport's state changed.
    private func transportChanged() {
        // Held here: `stop` may drop the viewer's reference on another thread meanwhile.
        guard let transport = peer.withLock({ $0.ended ? nil : $0.transport }) else { return }
        defer { withExtendedLifetime(transport) {} }
        switch CGstWebRTC_dtls_state(transport.pointer(to: GObject.self)) {
        case GST_WEBRTC_DTLS_TRANSPORT_STATE_CONNECTED:
            checkCertificate(transport)
        case GST_WEBRTC_DTLS_TRANSPORT_STATE_FAILED:
            DebugLog.warning("WebRTC viewer \(id): its DTLS transport failed; GST_DEBUG=dtlsconnection:1 shows OpenSSL's reason")
            fail(handshakeFailure)
        default:
            break
        }
    }

    /// Compares the peer's certificate with the answer's fingerprint; frames flow only on a match.
    private func checkCertificate(_ transport: ObjectReference) {
        guard let expected = peer.withLock({ $0.verified ? nil : $0.fingerprint }) else { return }
        let pem = CGstWebRTC_remote_certificate(transport.pointer(to: GObject.self)).map { text in
            defer { g_free(text) }
            return String(cString: text)
        }
        guard let pem, let actual = Fingerprint.of(pem: pem, hash: expected.hash) else {
            fail("the peer's DTLS certificate could not be read")
            return
        }
        guard actual == expected else {
            DebugLog.warning("WebRTC viewer \(id): the answer says \(expected.text), the certificate is \(actual.text)")
            fail("the peer's DTLS certificate does not match the answer's a=fingerprint")
            return
        }
        let opened = peer.withLock { peer -> Bool in
            guard !peer.ended, !peer.verified else { return false }
            peer.verified = true
            return true
        }
        // From here every packet passes: the gate's probe goes, and with it a lock and a look-up per packet.
        if opened, let gate { gate.pad.removeProbe(gate.probe) }
    }

    /// A failed handshake in the user's words. GStreamer's DTLS says only "Fatal SSL error" on the bus (OpenSSL's reason
    /// goes to its own debug category), so this names what a viewer can get wrong.
    private var handshakeFailure: String {
        let kind = servesCertificate.withLock { $0 } ? "ECDSA" : "RSA"
        return "the DTLS handshake failed: it offered no cipher suite for the camera's \(kind) certificate, or its DTLS was not valid"
    }

    /// The viewer cannot go on: told once, with the reason, to its owner (which ends it off this thread).
    private func fail(_ reason: String) {
        let first = peer.withLock { peer in
            defer { peer.ended = true }
            return !peer.ended
        }
        if first { onFailure(ObjectIdentifier(self), reason) }
    }

    func addCandidate(mline: UInt32, candidate: String) {
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

/// A viewer and the method a promise's reply goes to: the user data of `gst_promise_new_with_change_func`.
private final class PromiseReply {
    let viewer: WebRTCViewer
    let reply: (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void

    init(viewer: WebRTCViewer, reply: @escaping (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void) {
        self.viewer = viewer
        self.reply = reply
    }
}
