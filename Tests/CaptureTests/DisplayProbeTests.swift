import Testing

@testable import Capture

/// How a `DISPLAY` value names where its X server listens.
@Suite struct DisplayProbeTests {
    @Test(
        arguments: [
            (":0", DisplayProbe.X11Address.local(display: 0)), (":1.0", .local(display: 1)), ("unix:2", .local(display: 2)),
            ("unix/:3", .local(display: 3)), ("localhost:10.0", .tcp(host: "localhost", port: 6010)),
            ("tcp/localhost:11", .tcp(host: "localhost", port: 6011)), ("[::1]:4", .tcp(host: "::1", port: 6004)),
            ("tcp/:5", .tcp(host: "localhost", port: 6005)), ("example.org:0", .tcp(host: "example.org", port: 6000))
        ] as [(String, DisplayProbe.X11Address)])
    func displayNames(text: String, address: DisplayProbe.X11Address) {
        #expect(DisplayProbe.x11Address(text) == address)
    }

    @Test(arguments: ["nowhere", ":", ":x", ":-1", ":99999", ""])
    func notDisplayNames(text: String) {
        #expect(DisplayProbe.x11Address(text) == nil)
    }
}
