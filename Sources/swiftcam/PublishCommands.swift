import Capture
import Config
import Publish

/// `swiftcam publish-check URL`: reads a published stream and says what arrives.
enum PublishCommands {
    static let checkUsage = """
        usage: swiftcam publish-check URL [--seconds N] [--listen]

        Reads URL (rtsp://…, srt://…, or any URI GStreamer reads) for N seconds (default 10) and prints the
        codec, size, frames per second received, frames lost and the time to the first frame; a line a second
        while it reads. --listen is the server instead: an RTSP server taking RECORD at the URL's address, port
        and path, or an SRT listener, to check what a camera pushes without a media server.
        Exits 0 when frames arrived, 69 when none did, 64 for a URL it cannot read or listen at (a port past 65535
        too), 66 for a file:// URL whose file does not exist.
        """

    static func check(_ arguments: [String]) -> Int32 {
        Options.run(
            arguments, usage: checkUsage, valued: ["--seconds"], switches: ["--listen"],
            arity: .one("publish-check takes one URL")
        ) { options in
            let url = options.argument
            let seconds = options.value("--seconds").map { Double($0) } ?? 10
            guard let seconds, Limits.isDuration(seconds) else {
                return usageFailure(UsageError("--seconds takes \(Limits.durationRule)"), checkUsage)
            }
            let listen = options.flags.contains("--listen")
            let check = try StreamCheck(url: url, listen: listen)
            Output.line("\(listen ? "listening at" : "reading") \(PublishTarget.redacted(url)) for \(seconds) s")
            let report = try check.run(seconds: seconds) { report in
                Output.line(
                    "frames \(report.frames) lost \(report.lost)" + (report.firstFrame == nil ? " (waiting for the first frame)" : ""))
            }
            Output.line(report.line)
            if report.frames == 0 {
                printError("no frames received from \(PublishTarget.redacted(url)) in \(seconds) s")
                return ExitCode.unavailable
            }
            return ExitCode.ok
        }
    }
}

extension RunCommand {
    /// `--rtsp [ADDR:]PORT` split into the address (without the brackets of `[V6]`) and the port's text.
    private static func splitRTSP(_ value: String) -> (address: String?, port: Substring) {
        guard let colon = value.lastIndex(of: ":") else { return (nil, Substring(value)) }
        var address = String(value[..<colon])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        return (address, value[value.index(after: colon)...])
    }

    /// Whether `--rtsp`'s value is `PORT` or `ADDR:PORT` (`[V6]:PORT`), a port in 0…65535 and an IP address.
    static func validRTSPAddress(_ value: String) -> Bool {
        let (address, portText) = splitRTSP(value)
        guard let port = Int(portText), (0...65535).contains(port) else { return false }
        return address.map { PublishAddress.parse($0) != nil } ?? true
    }

    /// `--rtsp [ADDR:]PORT` as the config keys it stands for: `publish.rtsp.port` (and `publish.rtsp.address`).
    static func rtspOverrides(_ value: String) -> [String] {
        let (address, port) = splitRTSP(value)
        return (address.map { ["publish.rtsp.address=\"\($0)\""] } ?? []) + ["publish.rtsp.port=\(port)"]
    }
}
