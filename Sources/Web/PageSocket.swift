import Foundation
import GStreamer

/// The page's WebSocket, on the loop thread: the state on opening, then WebRTC signalling in both directions.
extension WebServer {
    /// A WebSocket opened (loop thread): it gets the state at once.
    func accept(_ connection: OpaquePointer) {
        let id = sockets.withLock { sockets in
            defer { sockets.next += 1 }
            return sockets.next
        }
        let client = WebSocketClient(id: id, connection: connection, server: self)
        sockets.withLock { $0.open[id] = client }
        if let text = Self.jsonText(stateJSON()) { client.send(text) }
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
        default:
            client.send(Self.jsonText(["type": "error", "error": "unknown message type"]) ?? "{}")
        }
    }

    /// A WebSocket closed (loop thread).
    func closed(_ client: WebSocketClient) {
        _ = sockets.withLock { $0.open.removeValue(forKey: client.id) }
        video.removeWebRTCViewer(id: client.id)
    }
}
