import Foundation
import Glibc
import TestSupport
import Testing

/// With `publish.janus`, the page's viewers go through Janus; a page Janus cannot take is served by the host itself,
/// so a Janus that is down costs the page nothing but the fan-out. (Through a running Janus: scripts/janus_page_test.py,
/// in both browsers, as Janus's ICE needs an interface other than lo.)
@Suite(.serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"))
struct RelayFallbackTests {
    @Test func aPageJanusCannotTakeIsServedByTheHost() throws {
        let janusPort = try freePort()  // nothing listens there
        let json = """
            {"sources": [{"kind": "test", "pattern": "smpte"}], "caps": {"width": 320, "height": 240, "framerate": "30/1"},
             "preview": "none", "publish": {"janus": {"api": "http://127.0.0.1:\(janusPort)/janus"}}}
            """
        let host = try WebHost(config: "relay", json: json)
        defer { host.stop() }
        let socket = try PageSocket(port: host.port)
        _ = try socket.readJSON { $0["type"] as? String == "state" }
        try socket.sendText(#"{"type":"watch","codecs":["VP8","H264"]}"#)
        let offer = try socket.readJSON { $0["type"] as? String == "offer" }
        #expect(offer["via"] == nil, "an offer through a Janus that is down: \(offer)")
        #expect((offer["sdp"] as? String)?.contains("m=video") == true)
        let warning = host.child.line(.errors, containing: "did not take the viewer", timeout: 30)
        #expect(warning?.contains("Janus http://127.0.0.1:\(janusPort)/janus did not take the viewer of page") == true, "\(host.errorText)")
        #expect(warning?.contains("this host serves it") == true, "\(warning ?? "")")
        // A browser that takes no codec of the mountpoint is the host's at once, with no word of Janus.
        try socket.sendText(#"{"type":"watch","codecs":["AV1"]}"#)
        let own = try socket.readJSON { $0["type"] as? String == "offer" }
        #expect(own["via"] == nil)
        socket.closeNow()
    }
}
