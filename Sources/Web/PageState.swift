import Analysis
import Base
public import Capture
import Config
import FoundationEssentials
import GStreamer

/// What the page is told about the session, as JSON: the state answers `GET /api/status` and goes to every open
/// WebSocket when something changes; the gallery and the live encoders answer `/api/gallery` and `/api/stats`.
extension WebServer {
    /// The page's view of the session: status and its message, sources, torch, recording, last capture, viewers.
    func stateJSON() -> [String: Any] {
        let status = session.status
        let stats = session.stats
        let sources = session.config.sources ?? []
        var json: [String: Any] = [
            "type": "state",
            "status": status.name,
            "message": status.description,
            "sources": max(1, sources.count),
            "torch": session.hasTorch,
            "filter": session.userChain,
            "maxZoom": session.maxZoom,
            "viewers": video.viewerCounts,
            "webrtcCodecs": video.webrtcCodecs,
            "name": session.name
        ]
        json["recording"] = stats.recording.map { $0.fileName }
        json["lastCapture"] = Gallery.items(in: galleryDirectories).first.map { $0.path.fileName }
        let (events, active) = session.recentEvents
        if !events.isEmpty {
            json["events"] = events.reversed().map { "event " + $0.line }
            json["activeEvents"] = active.sorted()
        }
        return json
    }

    /// The shared live encoders: codec, encoder element, subscribers (browsers, RTSP, publishers), frames in and
    /// encoded, failure (or the fallback that replaced a failed encoder).
    func liveJSON() -> [String: Any] {
        var json: [String: Any] = [:]
        for format in LiveFormat.allCases {
            let stats = session.liveStats(format)
            var entry: [String: Any] = [
                "codec": stats.codec.rawValue, "subscribers": stats.subscribers,
                "framesIn": stats.framesIn, "framesEncoded": stats.framesEncoded
            ]
            entry["encoder"] = stats.encoder
            entry["failure"] = stats.failure
            if format != .mjpeg {
                entry["keyFramesForced"] = stats.keyFramesForced
                entry["keyFrameRequestsMerged"] = stats.keyFrameRequestsMerged
            }
            json[format.rawValue] = entry
        }
        return json
    }

    func galleryJSON() -> [[String: Any]] {
        Gallery.items(in: galleryDirectories).map { item in
            let name = item.path.fileName
            var entry: [String: Any] = [
                "name": name, "kind": item.kind.rawValue, "bytes": item.bytes, "modified": item.modified,
                "url": "/captures/" + name.percentEncodedPath
            ]
            if let event = item.event { entry["event"] = event }
            return entry
        }
    }

    /// Something happened in the session (a still, a failure): every open page hears at once.
    public func notify(_ event: SessionEvent) {
        broadcastState()
    }

    /// Sends the state to every open WebSocket.
    func broadcastState() {
        let text = Self.jsonText(stateJSON())
        let open = sockets.withLock { Array($0.open.values) }
        for client in open { client.send(text) }
    }

    static func jsonText(_ object: [String: Any]) -> String { JSONValue(any: object).text }
}
