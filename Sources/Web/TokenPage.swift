import Base
import FoundationEssentials

/// What a browser shows when it opens a token host without the token: a small page saying how to get in, in place of
/// the JSON refusal API clients get. Nothing from the request is echoed into it.
enum TokenPage {
    /// Whether the request asks for a page (a browser's navigation sends `Accept: text/html,…`; `fetch`, curl and
    /// other API clients send `*/*` or `application/json`, and keep the JSON).
    static func isWanted(accept: String?) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { part in
            let fields = part.split(separator: ";").map { $0.trimmed.lowercased() }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return fields.first == "text/html" && quality > 0
        }
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>SwiftCam: this camera needs its token</title>
        <style>
        body { font-family: system-ui, sans-serif; background: #000; color: #fff; max-width: 36em; margin: 3em auto; padding: 0 1em; line-height: 1.5; }
        h1 { font-size: 1.4em; color: #ffd60a; } code { background: #222; padding: 0 0.3em; }
        </style>
        </head>
        <body>
        <h1>This camera needs its token</h1>
        <p>Open the address <code>swiftcam run</code> printed when it started, the one that ends in
        <code>?token=…</code>. This browser then keeps the token, so this address works by itself afterwards.</p>
        <p>Did someone else start the camera? Ask them for that address.</p>
        <p>Programs send the token in an <code>X-SwiftCam-Token</code> or <code>Authorization: Bearer</code> header.</p>
        </body>
        </html>

        """
}
