import Base
import CGstWebRTC
import GStreamer

/// The DTLS side of a viewer: the host's certificate given to the decoder webrtcbin builds for the offer, its transport
/// watched once webrtcbin took the answer, and the peer's certificate checked against the answer's fingerprint before
/// any packet passes the gate.
extension WebRTCViewer {
    /// On webrtcbin's thread, inside `create-offer`: an element went into webrtcbin. The DTLS decoder of the transport
    /// it builds for the offer (`dtlssrtpdec`, still in NULL: offers wait for PLAYING, see `Negotiation.playing`) gets the
    /// host's certificate, and keeps it only if it reads back: the encoder of the pair takes the same connection when
    /// both go to READY, right after. Set in READY, it would replace a connection whose handlers are already connected.
    func elementAdded(_ pointer: UnsafeMutablePointer<GstElement>) {
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

    /// Watches the DTLS transport's state: connected → the peer's certificate is checked; failed → the viewer fails.
    func watchTransport() {
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
        if opened, let gate = gate.withLock({ $0 }) { gate.pad.removeProbe(gate.probe) }
    }

    /// A failed handshake in the user's words. GStreamer's DTLS says only "Fatal SSL error" on the bus (OpenSSL's reason
    /// goes to its own debug category), so this names what a viewer can get wrong.
    var handshakeFailure: String {
        let kind = servesCertificate.withLock { $0 } ? "ECDSA" : "RSA"
        return "the DTLS handshake failed: it offered no cipher suite for the camera's \(kind) certificate, or its DTLS was not valid"
    }
}
