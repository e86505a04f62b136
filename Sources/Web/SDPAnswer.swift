import CGstWebRTC
import Filters
import FoundationEssentials

/// A page's SDP answer, checked before webrtcbin sees it: text GStreamer parses without complaint, one media section
/// (the camera's offer has one), the video with the payload type offered, ICE credentials and a DTLS fingerprint whose
/// digest is kept to check the peer's certificate against once the handshake is done.
/// Unchecked Sendable: `message` is written only by `takeDescription`, called once on the thread that made the answer
/// (`LiveVideo`'s `queue`, or the fuzzer's), and the other fields are immutable.
final class SDPAnswer: @unchecked Sendable {
    /// The parsed answer; owned, freed in `deinit` unless handed on by `takeDescription` (called once, on the viewers' queue).
    private var message: UnsafeMutablePointer<GstSDPMessage>?
    /// The `a=fingerprint` the peer's DTLS certificate must match.
    let fingerprint: Fingerprint
    /// The payload type the answer prefers among the offered ones: the first of them its video section lists.
    let payload: Int

    /// Checks `text` against an offer with one video section of payload type `payload`.
    convenience init(_ text: String, payload: Int) throws(SDPAnswerError) {
        try self.init(text, payloads: [payload])
    }

    /// Checks `text` against an offer with one video section whose payload types are `payloads`.
    init(_ text: String, payloads: [Int]) throws(SDPAnswerError) {
        // gst_sdp_message_parse_buffer asserts (a CRITICAL) on an empty buffer; SDP starts with its version line.
        guard !text.isEmpty else { throw .empty }
        guard text.hasPrefix("v=0") else { throw .notSDP }
        guard !text.utf8.contains(0) else { throw .notSDP }
        var parsed: UnsafeMutablePointer<GstSDPMessage>?
        guard gst_sdp_message_new_from_text(text, &parsed) == GST_SDP_OK, let parsed else { throw .notSDP }
        do {
            (fingerprint, payload) = try Self.check(parsed, payloads: payloads)
        } catch {
            gst_sdp_message_free(parsed)
            throw error
        }
        message = parsed
    }

    deinit {
        if let message { gst_sdp_message_free(message) }
    }

    /// The answer as webrtcbin takes it (transfer full: the caller frees it with `gst_webrtc_session_description_free`).
    func takeDescription() -> UnsafeMutablePointer<GstWebRTCSessionDescription>? {
        guard let sdp = message else { return nil }
        message = nil
        return gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, sdp)
    }

    private static func check(
        _ sdp: UnsafeMutablePointer<GstSDPMessage>, payloads: [Int]
    ) throws(SDPAnswerError) -> (Fingerprint, payload: Int) {
        let sections = gst_sdp_message_medias_len(sdp)
        guard sections == 1 else { throw .mediaSections(Int(sections)) }
        guard let media = gst_sdp_message_get_media(sdp, 0) else { throw .mediaSections(0) }
        let kind = gst_sdp_media_get_media(media).map { String(cString: $0) } ?? ""
        guard kind == "video" else { throw .notVideo(kind.escapingControls.prefix(20).description) }
        guard gst_sdp_media_get_port(media) != 0 else { throw .rejected }
        let proto = gst_sdp_media_get_proto(media).map { String(cString: $0) } ?? ""
        guard proto.hasSuffix("SAVPF") else { throw .notSecure(proto.escapingControls.prefix(30).description) }
        let formats = (0..<gst_sdp_media_formats_len(media)).compactMap { gst_sdp_media_get_format(media, $0).map { String(cString: $0) } }
        guard let payload = formats.lazy.compactMap({ Int($0) }).first(where: payloads.contains) else { throw .noPayload(payloads) }
        func attribute(_ key: String) -> String? {
            (gst_sdp_media_get_attribute_val(media, key) ?? gst_sdp_message_get_attribute_val(sdp, key)).map { String(cString: $0) }
        }
        guard attribute("ice-ufrag").map({ !$0.isEmpty }) == true, attribute("ice-pwd").map({ !$0.isEmpty }) == true else {
            throw .noICECredentials
        }
        if let setup = attribute("setup"), !["active", "passive", "actpass"].contains(setup) {
            throw .badSetup(setup.escapingControls.prefix(20).description)
        }
        guard let line = attribute("fingerprint") else { throw .noFingerprint }
        guard let fingerprint = Fingerprint(line) else { throw .badFingerprint }
        return (fingerprint, payload)
    }
}

/// An SDP `a=fingerprint` (RFC 8122): a hash function and the certificate's digest under it.
struct Fingerprint: Equatable, Sendable {
    let hash: Hash
    let digest: [UInt8]

    /// The hash functions GLib computes (GChecksum), by their SDP names.
    enum Hash: String, Sendable {
        case sha1 = "sha-1"
        case sha256 = "sha-256"
        case sha384 = "sha-384"
        case sha512 = "sha-512"

        var length: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        var checksum: GChecksumType {
            switch self {
            case .sha1: G_CHECKSUM_SHA1
            case .sha256: G_CHECKSUM_SHA256
            case .sha384: G_CHECKSUM_SHA384
            case .sha512: G_CHECKSUM_SHA512
            }
        }
    }

    /// Reads "sha-256 AB:CD:…"; nil unless the hash is known and the digest is its length in colon-separated hex pairs.
    init?(_ line: String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let hash = Hash(rawValue: parts[0].lowercased()) else { return nil }
        let pairs = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == hash.length else { return nil }
        var digest: [UInt8] = []
        for pair in pairs {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            digest.append(byte)
        }
        self.hash = hash
        self.digest = digest
    }

    init(hash: Hash, digest: [UInt8]) {
        self.hash = hash
        self.digest = digest
    }

    /// The fingerprint of a certificate given as PEM (webrtcbin's `remote-certificate`): `hash` over its DER bytes.
    /// Nil when the text holds no certificate.
    static func of(pem: String, hash: Hash) -> Fingerprint? {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        guard let start = pem.firstRange(of: begin), let stop = pem[start.upperBound...].firstRange(of: end) else { return nil }
        let base64 = pem[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        var length: gsize = 0
        guard let der = g_base64_decode(String(base64), &length) else { return nil }
        defer { g_free(der) }
        guard length > 0, let checksum = g_checksum_new(hash.checksum) else { return nil }
        defer { g_checksum_free(checksum) }
        g_checksum_update(checksum, der, gssize(length))
        var digest = [UInt8](repeating: 0, count: hash.length)
        var size = gsize(digest.count)
        g_checksum_get_digest(checksum, &digest, &size)
        return Fingerprint(hash: hash, digest: Array(digest.prefix(Int(size))))
    }

    /// "sha-256 AB:CD:…", as SDP writes it.
    var text: String {
        hash.rawValue + " " + digest.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: ":")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

/// Why an answer was refused before webrtcbin saw it; the text goes back to the page.
enum SDPAnswerError: Error, Equatable, CustomStringConvertible {
    case empty
    case notSDP
    case mediaSections(Int)
    case notVideo(String)
    case rejected
    case notSecure(String)
    case noPayload([Int])
    case noICECredentials
    case badSetup(String)
    case noFingerprint
    case badFingerprint

    var description: String {
        let reason: String =
            switch self {
            case .empty: "it is empty"
            case .notSDP: "it is not SDP (RFC 8866: it starts with v=0)"
            case let .mediaSections(count): "it has \(count) media sections; the offer has 1 (video)"
            case let .notVideo(kind): "its media section is \"\(kind)\", not video"
            case .rejected: "it rejects the video (port 0)"
            case let .notSecure(proto): "its transport is \"\(proto)\", not DTLS-SRTP (UDP/TLS/RTP/SAVPF)"
            case let .noPayload(payloads):
                "it accepts none of the offered payload types (\(payloads.map(String.init).joined(separator: ", ")))"
            case .noICECredentials: "it has no a=ice-ufrag and a=ice-pwd"
            case let .badSetup(value): "its a=setup is \"\(value)\" (active, passive or actpass expected)"
            case .noFingerprint: "it has no a=fingerprint, so the peer's DTLS certificate cannot be checked"
            case .badFingerprint: "its a=fingerprint is not sha-1, sha-256, sha-384 or sha-512 with a digest of that length in hex pairs"
            }
        return "the answer was refused: " + reason
    }
}
