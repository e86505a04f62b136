import Base
import CGstWebRTC
import Capture
import FoundationEssentials
import GStreamer

/// The page's signalling as the host takes it, without a socket or a camera, for the libFuzzer target (Tests/Fuzz):
/// a message is read by `PageMessage`, an answer checked by `SDPAnswer`, and what passes goes to a real viewer's
/// webrtcbin (`add-ice-candidate`, `set-remote-description`), the calls `LiveVideo` makes. Without a camera no frame
/// reaches the viewer, so webrtcbin has made no offer: it refuses every answer (told through the viewer's failure) and
/// holds the candidates. A fresh viewer every `inputsPerViewer` messages keeps that state from growing without end.
/// Unchecked Sendable: `viewer` and `served` have no lock and rely on `receive` being called from one thread at a
/// time (libFuzzer's input loop); the replies webrtcbin sends from its threads are behind `Locked`.
@_spi(Fuzzing) public final class SignallingFuzzer: @unchecked Sendable {
    private var viewer: WebRTCViewer?
    private var served = 0
    private let replies = Locked<[String]>([])
    public static let inputsPerViewer = 200

    /// Makes GLib's criticals fatal (a GStreamer assertion such as an empty SDP's is then a crash the fuzzer keeps).
    public init() {
        CGstWebRTC_make_criticals_fatal()
    }

    /// Handles one message as the page's socket would; returns the replies sent to the page (or to its log) so far
    /// for this input: the refusal at once, webrtcbin's later ones as they came.
    public func receive(_ text: String) throws -> [String] {
        let viewer = try currentViewer()
        let message: PageMessage
        do {
            message = try PageMessage(parsing: text)
        } catch {
            record("\(error)")
            return drained()
        }
        switch message {
        case let .answer(sdp):
            do {
                let answer = try SDPAnswer(sdp, payloads: [WebRTCViewer.firstPayload, WebRTCViewer.firstPayload + 1])
                viewer.setAnswer(answer)
            } catch {
                record("\(error)")
            }
        case let .ice(mline, candidate):
            viewer.addCandidate(mline: mline, candidate: candidate)
        case .watch, .unwatch, .ping, .endOfCandidates:
            break
        }
        return drained()
    }

    private func drained() -> [String] {
        replies.withLock { replies in
            defer { replies = [] }
            return replies
        }
    }

    private func record(_ reply: String) {
        replies.withLock { $0.append(WebServer.jsonText(["type": "error", "error": reply])) }
    }

    private func currentViewer() throws -> WebRTCViewer {
        if let viewer, served < Self.inputsPerViewer {
            served += 1
            return viewer
        }
        viewer?.stop()
        served = 0
        let replies = replies
        let fresh = try WebRTCViewer(
            id: 1, address: "the fuzzer", codecs: [(.vp8, .vp8)], profileLevelID: nil, certificate: nil, restrictToLoopback: true,
            send: { text in
                replies.withLock { $0.append(text) }
            }, onAnswered: { _, _ in },
            onFailure: { _, reason in
                replies.withLock { $0.append(WebServer.jsonText(["type": "error", "error": reason])) }
            })
        viewer = fresh
        return fresh
    }
}
