import CGstWebRTC
import GStreamer

/// The changes the camera makes to webrtcbin's offer before it sends it: the H.264 format parameters browsers need, and
/// the fingerprint of the host's own certificate.
enum OfferSDP {
    /// Every section gets `a=fmtp:PAYLOAD packetization-mode=1;profile-level-id=…` for its H.264 payload type (webrtcbin writes one only when the
    /// payloader had caps from a frame by the time it offered); one webrtcbin wrote is replaced unless it says both.
    static func addFormatParameters(to sdp: UnsafeMutablePointer<GstSDPMessage>, payload: Int, profileLevelID: String) {
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
}
