import FuzzSupport
@_spi(Fuzzing) import Web

// The camera page's WebSocket messages (`PageMessage`, `SDPAnswer`) through to the webrtcbin calls they make
// (add-ice-candidate, set-remote-description) on a real viewer. Any input is either taken or refused with a one-line
// JSON error; nothing traps, and no GLib critical is raised (they are made fatal), in Swift or in GStreamer.

nonisolated(unsafe) private var fuzzer: SignallingFuzzer?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignalling(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    if fuzzer == nil { fuzzer = SignallingFuzzer() }
    let replies: [String]
    do {
        replies = try fuzzer!.receive(text)
    } catch {
        require(false, "no viewer to take \(shown(String(text.prefix(200)))): \(error)")
        return 0
    }
    for reply in replies {
        require(isOneLine(reply), "the reply to \(shown(String(text.prefix(200)))) is not one line: \(shown(reply))")
        require(
            reply.hasPrefix("{\"") && reply.hasSuffix("}"),
            "the reply to \(shown(String(text.prefix(200)))) is not a JSON object: \(shown(reply))")
    }
    return 0
}
