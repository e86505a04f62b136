import Foundation
import Testing

@testable import Web

/// The page's signalling read where it arrives: every number bounded, every answer checked before webrtcbin sees it,
/// the fingerprint and the H.264 parameters as RFC 8122 and RFC 6184 write them. No sockets: these run anywhere.
@Suite struct SignallingTests {
    @Test(arguments: [
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":4294967296}"#, "4294967296"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":-1}"#, "-1"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":1}"#, "1"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":0.5}"#, "0.5"),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":1e300}"#, "1e300"),
        (
            #"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":18446744073709551616}"#,
            "18446744073709551616"
        ),
        (#"{"type":"ice","candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMLineIndex":"0"}"#, "\"0\"")
    ])
    func aMediaSectionOutsideTheOfferIsRefusedWithItsValue(text: String, shown: String) {
        #expect(throws: PageMessageError.self) { try PageMessage(parsing: text) }
        do {
            _ = try PageMessage(parsing: text)
        } catch {
            #expect(error.description.contains("sdpMLineIndex"), "\(error)")
            #expect(error.description.contains("not a media section"), "\(error)")
            #expect(error.description.contains("sdpMLineIndex \(shown) "), "\(error)")
        }
    }

    @Test func candidatesWithinTheOfferAndTheOtherMessagesRead() throws {
        let candidate = "candidate:1 1 udp 1 127.0.0.1 9 typ host"
        #expect(
            try PageMessage(parsing: #"{"type":"ice","candidate":"\#(candidate)","sdpMLineIndex":0}"#)
                == .ice(mline: 0, candidate: candidate))
        #expect(
            try PageMessage(parsing: #"{"type":"ice","candidate":"\#(candidate)","sdpMLineIndex":null}"#)
                == .ice(mline: 0, candidate: candidate))
        #expect(try PageMessage(parsing: #"{"type":"ice","candidate":"\#(candidate)"}"#) == .ice(mline: 0, candidate: candidate))
        #expect(try PageMessage(parsing: #"{"type":"ice","candidate":"","sdpMLineIndex":7}"#) == .endOfCandidates)
        #expect(try PageMessage(parsing: #"{"type":"watch"}"#) == .watch(codecs: []))
        #expect(try PageMessage(parsing: #"{"type":"watch","codecs":["VP8","H264"]}"#) == .watch(codecs: ["VP8", "H264"]))
        #expect(throws: PageMessageError.badCodecs) { try PageMessage(parsing: #"{"type":"watch","codecs":"VP8"}"#) }
        #expect(throws: PageMessageError.badCodecs) { try PageMessage(parsing: #"{"type":"watch","codecs":["VP8\n"]}"#) }
        #expect(try PageMessage(parsing: #"{"type":"answer","sdp":""}"#) == .answer(sdp: ""))
        #expect(throws: PageMessageError.missing(key: "sdp", type: "answer")) { try PageMessage(parsing: #"{"type":"answer","sdp":5}"#) }
        #expect(throws: PageMessageError.notAnObject) { try PageMessage(parsing: "[1]") }
        #expect(throws: PageMessageError.notAnObject) { try PageMessage(parsing: "") }
        #expect(throws: PageMessageError.badCandidate) {
            try PageMessage(parsing: #"{"type":"ice","candidate":"\#(String(repeating: "a", count: 2000))"}"#)
        }
    }

    /// A browser's answer, as Chromium writes it for the camera's offer (trimmed to what is checked).
    static func answer(
        fingerprint: String = "sha-256 C6:A8:79:4D:88:01:98:19:75:97:B5:AF:C0:72:B3:9A:5F:BE:2F:2A:D3:44:54:8E:86:3E:6F:2B:1A:B8:21:2F",
        media: String = "m=video 9 UDP/TLS/RTP/SAVPF 96"
    ) -> String {
        [
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE video0",
            media, "c=IN IP4 0.0.0.0", "a=ice-ufrag:abcd", "a=ice-pwd:0123456789abcdef012345",
            "a=fingerprint:\(fingerprint)", "a=setup:active", "a=mid:video0", "a=recvonly", "a=rtcp-mux", "a=rtpmap:96 H264/90000", ""
        ].joined(separator: "\r\n")
    }

    @Test func aWellFormedAnswerIsTakenWithItsFingerprint() throws {
        let answer = try SDPAnswer(Self.answer(), payload: 96)
        #expect(answer.fingerprint.hash == .sha256)
        #expect(answer.fingerprint.digest.count == 32)
        #expect(
            answer.fingerprint.text
                == "sha-256 C6:A8:79:4D:88:01:98:19:75:97:B5:AF:C0:72:B3:9A:5F:BE:2F:2A:D3:44:54:8E:86:3E:6F:2B:1A:B8:21:2F")
        #expect(answer.takeDescription() != nil)
    }

    /// Offered H.264 (96) and VP8 (97), the viewer gets the first the answer lists: the browser's order.
    @Test func theAnswerChoosesAmongTheOfferedCodecsInItsOrder() throws {
        for (formats, chosen) in [("97 96", 97), ("96 97", 96), ("98 96", 96), ("97", 97)] {
            let answer = try SDPAnswer(Self.answer(media: "m=video 9 UDP/TLS/RTP/SAVPF \(formats)"), payloads: [96, 97])
            #expect(answer.payload == chosen, "\(formats)")
        }
        #expect(throws: SDPAnswerError.noPayload([96, 97])) {
            try SDPAnswer(Self.answer(media: "m=video 9 UDP/TLS/RTP/SAVPF 98"), payloads: [96, 97])
        }
    }

    @Test func malformedAnswersAreRefusedWithTheReason() {
        let cases: [(String, SDPAnswerError)] = [
            ("", .empty),
            ("hello", .notSDP),
            ("v=0\r\n", .mediaSections(0)),
            (Self.answer(media: "m=audio 9 UDP/TLS/RTP/SAVPF 96"), .notVideo("audio")),
            (Self.answer(media: "m=video 0 UDP/TLS/RTP/SAVPF 96"), .rejected),
            (Self.answer(media: "m=video 9 RTP/AVP 96"), .notSecure("RTP/AVP")),
            (Self.answer(media: "m=video 9 UDP/TLS/RTP/SAVPF 98"), .noPayload([96])),
            (Self.answer(fingerprint: "md5 00:11"), .badFingerprint),
            (Self.answer(fingerprint: "sha-256 00:11"), .badFingerprint),
            (Self.answer().replacingOccurrences(of: "a=ice-pwd:0123456789abcdef012345\r\n", with: ""), .noICECredentials),
            (Self.answer().replacingOccurrences(of: "a=setup:active", with: "a=setup:sideways"), .badSetup("sideways")),
            (
                Self.answer().components(separatedBy: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }.joined(separator: "\r\n"),
                .noFingerprint
            ),
            (Self.answer() + Self.answer().components(separatedBy: "\r\n").dropFirst(5).joined(separator: "\r\n"), .mediaSections(2))
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text.debugDescription)") { try SDPAnswer(text, payload: 96) }
            #expect(expected.description.hasPrefix("the answer was refused: "))
        }
    }

    @Test func aCertificatesFingerprintIsItsDERDigest() throws {
        // An ECDSA P-256 certificate and its digests, as `openssl x509 -fingerprint -sha256/-sha1` prints them.
        let pem = """
            -----BEGIN CERTIFICATE-----
            MIIBhjCCASugAwIBAgIUblXZMTw8O1KSwtcvE/HyCV99U+EwCgYIKoZIzj0EAwIw
            GDEWMBQGA1UEAwwNc3dpZnRjYW0tdGVzdDAeFw0yNjEyMDMwOTE4NDBaFw0zNjEx
            MzAwOTE4NDBaMBgxFjAUBgNVBAMMDXN3aWZ0Y2FtLXRlc3QwWTATBgcqhkjOPQIB
            BggqhkjOPQMBBwNCAARo8AqVtK5fkU5McnRbu4wfqiOy2cS5LvJ3cjZigdx4AoBe
            8DOlVkpzn+dXZlroy0XPhJzo1+TR9ibgg278B8Dno1MwUTAdBgNVHQ4EFgQUrUbU
            HWcTDTCXNkpH8zzkGw3XMPYwHwYDVR0jBBgwFoAUrUbUHWcTDTCXNkpH8zzkGw3X
            MPYwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEA9QBfFUltlB6L
            Ht8h3SreDON7TKeCxW4pk5xfufHCmy0CIQD9r+qk9eUprriQKgZpS18MOOFhM3I/
            pHSPpb8EnigR/g==
            -----END CERTIFICATE-----
            """
        let sha256 = try #require(
            Fingerprint("sha-256 C6:A8:79:4D:88:01:98:19:75:97:B5:AF:C0:72:B3:9A:5F:BE:2F:2A:D3:44:54:8E:86:3E:6F:2B:1A:B8:21:2F"))
        let sha1 = try #require(Fingerprint("SHA-1 88:8c:dd:55:95:4d:41:0d:56:aa:77:44:a7:17:41:6e:8c:15:6e:0a"))
        #expect(Fingerprint.of(pem: pem, hash: .sha256) == sha256)
        #expect(Fingerprint.of(pem: pem, hash: .sha1) == sha1)
        let zeros = try #require(Fingerprint("sha-256 " + Array(repeating: "00", count: 32).joined(separator: ":")))
        #expect(Fingerprint.of(pem: pem, hash: .sha256) != zeros)
        #expect(Fingerprint.of(pem: "no certificate", hash: .sha256) == nil)
    }

    @Test func theProfileLevelIDIsTheSequenceParameterSetsOwn() {
        // An access unit as x264 writes it: an access unit delimiter, then the SPS (profile 66, constraints c0, level 30).
        let unit: [UInt8] = [0, 0, 0, 1, 0x09, 0xf0, 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e, 0xda, 0x02, 0, 0, 1, 0x68, 0xce]
        #expect(unit.withUnsafeBytes { H264Parameters.profileLevelID(in: $0) } == "42c01e")
        let noSPS: [UInt8] = [0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00]
        #expect(noSPS.withUnsafeBytes { H264Parameters.profileLevelID(in: $0) } == nil)
        let cut: [UInt8] = [0, 0, 1, 0x67, 0x42]
        #expect(cut.withUnsafeBytes { H264Parameters.profileLevelID(in: $0) } == nil)
        #expect(H264Parameters.formatParameters(profileLevelID: "42c01e").hasPrefix("packetization-mode=1;profile-level-id=42c01e"))
    }
}
