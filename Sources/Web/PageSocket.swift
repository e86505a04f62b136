import Capture
import CSoup
import Foundation
import GStreamer

/// The page's WebSocket, on the loop thread: the state on opening, then WebRTC signalling in both directions.
extension WebServer {
    /// A WebSocket opened (loop thread): it gets the state at once, with the idle time it must stay under (the page
    /// sends `ping` well within it). One over `options.limits.maxConnections` is told why and closed.
    func accept(_ connection: OpaquePointer) {
        let limits = options.limits
        let (id, admitted) = sockets.withLock { sockets in
            defer { sockets.next += 1 }
            return (sockets.next, sockets.open.count < limits.maxConnections)
        }
        let client = WebSocketClient(id: id, connection: connection, server: self, idleSeconds: limits.idleSeconds)
        guard admitted else {
            // Held until libsoup's `closed`: dropping the connection now would cut it before the close frame is out.
            sockets.withLock { $0.refused[id] = client }
            client.close(code: SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION,
                         reason: "this camera has \(limits.maxConnections) pages open, its limit: close one and reload")
            return
        }
        sockets.withLock { $0.open[id] = client }
        var state = stateJSON()
        state["idleSeconds"] = limits.idleSeconds
        if let text = Self.jsonText(state) { client.send(text) }
    }

    /// A WebSocket text message (loop thread).
    func received(_ text: String, from client: WebSocketClient) {
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let type = object["type"] as? String else {
            client.send(Self.jsonText(["type": "error", "error": "malformed message: a JSON object with a \"type\" expected"]) ?? "{}")
            return
        }
        switch type {
        case "watch":
            video.addWebRTCViewer(id: client.id) { [weak client] text in client?.send(text) }
        case "answer":
            if let sdp = object["sdp"] as? String { video.setAnswer(id: client.id, sdp: sdp) }
        case "ice":
            if let candidate = object["candidate"] as? String, !candidate.isEmpty {
                video.addCandidate(id: client.id, mline: (object["sdpMLineIndex"] as? Int) ?? 0, candidate: candidate)
            }
        case "unwatch":
            video.removeWebRTCViewer(id: client.id)
        case "ping":
            break   // the page is there: its idle timeout has started over
        default:
            client.send(Self.jsonText(["type": "error", "error": "unknown message type"]) ?? "{}")
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
