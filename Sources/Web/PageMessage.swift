import Base
import Filters
import FoundationEssentials

/// One message from the page's WebSocket, read and bounded where it is read: every later step (webrtcbin's action
/// signals included) gets only values that fit it. Anything else is refused with a reason the page can show.
enum PageMessage: Equatable {
    /// Start a WebRTC viewer (a second one starts over); `codecs` are the video codecs the browser takes, in its order of
    /// preference (RTP encoding names, `H264`; empty when the page did not say).
    case watch(codecs: [String])
    /// The page's SDP answer to the camera's offer (not yet checked as SDP: `SDPAnswer` does that).
    case answer(sdp: String)
    /// One of the page's ICE candidates, for the media section `mline` of the offer.
    case ice(mline: UInt32, candidate: String)
    /// The page's last candidate was sent (an empty candidate, as browsers send it): nothing to do.
    case endOfCandidates
    /// Stop the viewer.
    case unwatch
    /// The page is there (its idle timeout starts over).
    case ping

    /// The media sections a camera's offer has: one, the video (bundled). A candidate for any other is refused.
    static let mediaSections: UInt32 = 1

    /// Reads one text message; throws a `PageMessageError` naming what is wrong.
    init(parsing text: String) throws(PageMessageError) {
        guard let object = (try? JSONValue.parse(text))?.object, let type = object["type"]?.string else { throw .notAnObject }
        switch type {
        case "watch": self = .watch(codecs: try Self.codecs(object["codecs"]))
        case "unwatch": self = .unwatch
        case "ping": self = .ping
        case "answer":
            guard let sdp = object["sdp"]?.string else { throw .missing(key: "sdp", type: type) }
            self = .answer(sdp: sdp)
        case "ice":
            guard let candidate = object["candidate"]?.string else { throw .missing(key: "candidate", type: type) }
            guard !candidate.isEmpty else {
                self = .endOfCandidates
                return
            }
            guard !candidate.utf8.contains(0), candidate.utf8.count <= 1024 else { throw .badCandidate }
            self = .ice(mline: try Self.mediaSection(object["sdpMLineIndex"]), candidate: candidate)
        default:
            throw .unknownType(type.count <= 40 ? type.escapingControls : String(type.prefix(40)).escapingControls + "…")
        }
    }

    /// At most this many codec names in a `watch`, each at most `maxCodecName` bytes.
    static let maxCodecs = 32
    static let maxCodecName = 32

    /// `codecs`: absent or null is none; otherwise an array of at most `maxCodecs` names of letters, digits, `-` and `.`.
    private static func codecs(_ value: JSONValue?) throws(PageMessageError) -> [String] {
        guard let value, !value.isNull else { return [] }
        guard let array = value.array, array.count <= maxCodecs else { throw .badCodecs }
        var names: [String] = []
        for entry in array {
            guard let name = entry.string, (1...maxCodecName).contains(name.utf8.count),
                name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789-.".unicodeScalars.contains($0)) })
            else { throw .badCodecs }
            names.append(name)
        }
        return names
    }

    /// `sdpMLineIndex`: absent or null is 0 (browsers send null with an `sdpMid`); otherwise a whole number below
    /// `mediaSections`. Each number is checked as written before any conversion, so 4294967296, -1, 0.5 or 1e300 are
    /// refused, never converted.
    private static func mediaSection(_ value: JSONValue?) throws(PageMessageError) -> UInt32 {
        guard let value, !value.isNull else { return 0 }
        guard case let .number(text) = value, let double = value.double else {
            throw .badMediaSection(value.text.escapingControls.prefix(40).description)
        }
        guard double.isFinite, double.rounded() == double, double >= 0, double < Double(mediaSections) else {
            throw .badMediaSection(text.prefix(40).description)
        }
        return UInt32(double)
    }
}

/// Why a page's message was refused; the text goes back to the page as `{"type":"error","error":…}`.
enum PageMessageError: Error, Equatable, CustomStringConvertible {
    case notAnObject
    case missing(key: String, type: String)
    case badCandidate
    case badMediaSection(String)
    case badCodecs
    case unknownType(String)

    var description: String {
        switch self {
        case .notAnObject: "malformed message: a JSON object with a \"type\" expected"
        case let .missing(key, type): "malformed \(type) message: a string \"\(key)\" expected"
        case .badCandidate: "malformed ice message: the candidate is over 1024 bytes or holds a NUL"
        case let .badMediaSection(value):
            "malformed ice message: sdpMLineIndex \(value) is not a media section of this camera's offer (it has \(PageMessage.mediaSections), numbered from 0)"
        case .badCodecs:
            "malformed watch message: \"codecs\" must be an array of at most \(PageMessage.maxCodecs) codec names (\"H264\", \"VP8\")"
        case let .unknownType(type): "unknown message type \"\(type)\""
        }
    }
}
