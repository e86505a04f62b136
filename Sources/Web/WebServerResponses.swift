// The web server's answers: the metrics, the page's assets, the gallery's captures, and the JSON or bytes of any
// response, with the headers every answer carries.

import Base
import CSoup
import Capture
import Dispatch
import FoundationEssentials
import GStreamer

extension WebServer {
    /// `/metrics`: the host's figures in Prometheus's text format, made on `scrapes` and answered through the loop.
    func serveMetrics(_ message: OpaquePointer) {
        soup_server_message_pause(message)
        let held = ObjectReference(retaining: message)  // touched again only on the loop thread
        scrapes.async { [self] in
            let snapshot =
                metrics?()
                ?? {
                    var own = HostMetrics(session: session.metrics, viewers: video.viewerCounts)
                    own.webrtcCodecs = video.webrtcCodecs
                    return own
                }()
            let body = Data(snapshot.text.utf8)
            loop.invoke { [self] in
                respond(held.opaque, status: 200, type: MetricsText.contentType, body: body)
                soup_server_message_unpause(held.opaque)
            }
        }
    }

    /// A file of the page (Assets/), by name, with its type; 404 when there is none.
    func serveAsset(_ name: String, _ message: OpaquePointer) {
        guard let folder = WebAssets.folder, let data = FileManager.default.contents(atPath: folder + "/" + name) else {
            respond(message, status: 404, json: ["ok": false, "error": "no such asset"])
            return
        }
        let type =
            switch name.fileExtension {
            case "html": "text/html; charset=utf-8"
            case "js": "text/javascript; charset=utf-8"
            case "css": "text/css; charset=utf-8"
            case "svg": "image/svg+xml"
            default: "application/octet-stream"
            }
        respond(message, status: 200, type: type, body: data)
    }

    /// A capture by its name in the gallery: never a path joined from the request.
    func serveCapture(named encoded: String, _ message: OpaquePointer) {
        let name = encoded.percentDecoded ?? ""
        guard !name.isEmpty, !name.contains("/"),
            let item = Gallery.items(in: galleryDirectories).first(where: { $0.path.fileName == name }),
            let data = try? Data(contentsOf: URL(fileURLWithPath: item.path), options: .alwaysMapped)
        else {
            respond(message, status: 404, json: ["ok": false, "error": "no capture of that name"])
            return
        }
        let type =
            switch name.fileExtension.lowercased() {
            case "jpg", "jpeg": "image/jpeg"
            case "png": "image/png"
            case "mkv": "video/x-matroska"
            case "mp4": "video/mp4"
            case "webm": "video/webm"
            default: "application/octet-stream"
            }
        respond(message, status: 200, type: type, body: data)
    }

    /// A JSON object as the answer.
    func respond(_ message: OpaquePointer, status: Int, json: [String: Any]) {
        respond(message, status: status, type: "application/json", body: Data(JSONValue(any: json).utf8))
    }

    /// `body` of `type` as the answer, never cached, its type never sniffed.
    func respond(_ message: OpaquePointer, status: Int, type: String, body: Data) {
        soup_server_message_set_status(message, guint(status), nil)
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_append(headers, "Cache-Control", "no-store")
        soup_message_headers_append(headers, "X-Content-Type-Options", "nosniff")
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(
                message, type, SOUP_MEMORY_COPY, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(bytes.count))
        }
    }
}
