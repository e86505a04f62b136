import Base
import CSoup
import Capture
import FoundationEssentials
import GStreamer

/// The page's WebSocket, on the loop thread: the state on opening, then WebRTC signalling in both directions.
extension WebServer {
    /// Hands the pages' WebRTC viewers to `relay` (Janus) from their next `watch` on, each in a codec its browser takes
    /// (a browser that takes none, or a viewer the relay refuses, is served by this host).
    public func relayViewers(through relay: any WebRTCRelay) {
        video.relay.withLock { $0 = relay }
    }

    /// A WebSocket opened (loop thread): it gets the state at once, with the idle time it must stay under (the page
    /// sends `ping` well within it). One over `options.limits.maxConnections` is told why and closed.
    func accept(_ connection: OpaquePointer, from address: String) {
        let limits = options.limits
        let (id, admitted) = sockets.withLock { sockets in
            defer { sockets.next += 1 }
            return (sockets.next, sockets.open.count < limits.maxConnections)
        }
        let client: WebSocketClient
        do {
            client = try WebSocketClient(id: id, address: address, connection: connection, server: self, idleSeconds: limits.idleSeconds)
        } catch {
            // libsoup 3's WebSocket has both signals; were one missing, the log says so and this page goes unanswered.
            DebugLog.warning("web: the WebSocket from \(address) could not be watched: \(error)")
            return
        }
        guard admitted else {
            // Held until libsoup's `closed`: dropping the connection now would cut it before the close frame is out.
            sockets.withLock { $0.refused[id] = client }
            client.close(
                code: SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION,
                reason: "this camera has \(limits.maxConnections) pages open, its limit: close one and reload")
            return
        }
        sockets.withLock { $0.open[id] = client }
        var state = stateJSON()
        state["idleSeconds"] = limits.idleSeconds
        client.send(Self.jsonText(state))
    }

    /// A WebSocket text message (loop thread): read and bounded by `PageMessage`, refused with the reason otherwise.
    func received(_ text: String, from client: WebSocketClient) {
        let message: PageMessage
        do {
            message = try PageMessage(parsing: text)
        } catch {
            client.send(Self.jsonText(["type": "error", "error": "\(error)"]))
            return
        }
        switch message {
        case let .watch(codecs):
            video.watch(id: client.id, address: client.address, codecs: codecs) { [weak client] text in client?.send(text) }
        case let .answer(sdp):
            video.setAnswer(id: client.id, sdp: sdp) { [weak client] text in client?.send(text) }
        case let .ice(mline, candidate):
            video.addCandidate(id: client.id, mline: mline, candidate: candidate)
        case .unwatch:
            video.removeWebRTCViewer(id: client.id)
        case .endOfCandidates, .ping:
            break  // the page is there: its idle timeout has started over
        }
    }

    /// A WebSocket closed (loop thread).
    func closed(_ client: WebSocketClient) {
        _ = sockets.withLock { sockets in
            sockets.refused.removeValue(forKey: client.id)
            return sockets.open.removeValue(forKey: client.id)
        }
        video.removeWebRTCViewer(id: client.id)
    }
}
