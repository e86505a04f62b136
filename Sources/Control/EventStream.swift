import Analysis
import Capture
import Config
import Glibc

/// `events` on the control socket: the connection becomes a stream of the session's analysis events, one line each,
/// until the client closes it.
enum EventStream {
    static let command = "events"
    /// The answer when nothing in the session makes events: a stream of them would stay silent for ever.
    static let noAnalyzers =
        "this session has no analysers, so no events will come; add one to the config (\"analyze\": [{\"motion\": {}}]) or from a plugin"

    /// Answers `ok`, then sends each event as it comes; a client that does not read loses events rather than holding up
    /// the analyser (each line is sent without waiting). Returns when the client closes its end.
    static func serve(_ client: Int32, session: CaptureSession, reader: inout LineReader) {
        // Nothing running and nothing the config will start (its analysers are made at the first start).
        guard !session.analyzerStats.isEmpty || !(session.config.analyze ?? []).isEmpty else {
            ControlServer.answer(client, .error(noAnalyzers))
            return
        }
        ControlServer.answer(client, .ok("streaming events until the connection closes"))
        let subscription = session.subscribeEvents { event in
            let bytes = Array("event \(event.line)\n".utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        defer { subscription.cancel() }
        // The client sends nothing more: wait for its end (idle spells are expected here, not a reason to close).
        while true {
            switch reader.next() {
            case .idle?, .text?: continue
            case .tooLong?, nil: return
            }
        }
    }
}
