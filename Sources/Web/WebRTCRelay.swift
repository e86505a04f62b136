/// A WebRTC server the camera page's viewers are handed to (Janus, for `publish.janus`): the host keeps the page's
/// WebSocket, with its token and origin rules, and signals for the page; the server sends the media, with its own ICE,
/// DTLS and SRTP, to any number of browsers. The host joins it to the page (`WebServer.relay`).
public protocol WebRTCRelay: Sendable {
    /// What it is, for the page and the log: `Janus http://127.0.0.1:8088/janus`.
    var label: String { get }
    /// The codec a browser taking `codecs` (RTP encoding names, in its order of preference) gets, or nil when the
    /// relay has none of them (the host then serves the page itself).
    func codec(for codecs: [String]) -> String?
    /// Starts page `id`'s viewer of `codec`: the relay's offer, then its end if it ends other than by `end(id:)`, come
    /// through `onEvent`.
    func watch(id: Int, codec: String, onEvent: @escaping @Sendable (RelayEvent) -> Void)
    /// The page's answer to the relay's offer.
    func answer(id: Int, sdp: String)
    /// One of the page's ICE candidates; nil: its last.
    func candidate(id: Int, mline: UInt32, candidate: String?)
    /// Ends page `id`'s viewer.
    func end(id: Int)
}

/// What a relayed viewer hears.
public enum RelayEvent: Sendable, Equatable {
    /// The relay's SDP offer, for the page.
    case offer(sdp: String)
    /// The viewer ended (the relay refused it, hung up, or went away), in words.
    case ended(reason: String)
}
