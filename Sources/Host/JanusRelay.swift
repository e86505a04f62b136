import Publish
import Web

/// The camera page's viewers played through Janus (`publish.janus`): the page's signalling, relayed by the host to
/// Janus's streaming plugin.
struct JanusRelay: WebRTCRelay {
    let viewers: JanusViewers

    var label: String { "Janus \(viewers.feed.api.url)" }

    func codec(for codecs: [String]) -> String? { viewers.codec(for: codecs) }

    func watch(id: Int, codec: String, onEvent: @escaping @Sendable (RelayEvent) -> Void) {
        viewers.watch(id: id, codec: codec) { event in
            switch event {
            case let .offer(sdp): onEvent(.offer(sdp: sdp))
            case let .ended(reason): onEvent(.ended(reason: reason))
            }
        }
    }

    func answer(id: Int, sdp: String) { viewers.answer(id: id, sdp: sdp) }

    func candidate(id: Int, mline: UInt32, candidate: String?) { viewers.candidate(id: id, mline: mline, candidate: candidate) }

    func end(id: Int) { viewers.end(id: id) }
}
