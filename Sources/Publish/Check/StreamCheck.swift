import Base
import Capture
import Config
import Dispatch
import FoundationEssentials
import GStreamer
import Synchronization

/// What `swiftcam publish-check` found in a stream.
public struct StreamReport: Sendable, Equatable {
    /// "H.264", "VP8", "JPEG", … (nil before a frame arrived).
    public var codec: String?
    public var width: Int?
    public var height: Int?
    /// Frames decoded, and those missing from the timeline (gaps in the timestamps).
    public var frames = 0
    public var lost = 0
    /// Seconds from the start to the first decoded frame.
    public var firstFrame: Double?
    /// Seconds the frames span: by their own timestamps, when those run forward, else by their arrival from the first.
    public var seconds = 0.0

    /// Frames per second received, over the span of the frames: a reader's first frames come in a burst, out of the
    /// jitter buffer and the decoder's preroll, so counting them against the time since the first arrival would read
    /// a stream faster than it is.
    public var fps: Double { seconds > 0 ? Double(max(0, frames - 1)) / seconds : 0 }

    /// One line for people: `codec H.264 1280x720, 29.9 fps received, 598 frames, 0 lost, first frame after 0.42 s`.
    public var line: String {
        guard frames > 0, let firstFrame else { return "no frames received" }
        let size = width.flatMap { w in height.map { "\(w)x\($0)" } } ?? "size unknown"
        return
            "codec \(codec ?? "unknown") \(size), \(fixed(fps, 1)) fps received, \(frames) frames, \(lost) lost, first frame after \(fixed(firstFrame, 2)) s"
    }
}

/// Reads a published stream (rtsp://, srt://, or anything `uridecodebin` reads) and reports codec, size,
/// frame rate, lost frames and the time to the first frame. With `listen`, it is the server instead: an
/// RTSP server that takes RECORD at the URL's port and path, or an SRT listener, so a push can be checked
/// without a media server.
public final class StreamCheck: Sendable {
    private struct Progress: Sendable {
        var report = StreamReport()
        var firstPTS: UInt64?
        var lastPTS: UInt64?
        var interval: UInt64?
        var firstTime: Double?
        var failure: String?
    }

    /// What is read.
    public let url: String
    private let listen: Bool
    private let progress = Condition(Progress())
    private let started = MonotonicClock.now

    public init(url: String, listen: Bool = false) throws(PublishError) {
        GStreamer.initialize()
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), components.host != nil else {
            throw .badURL(
                "\"\(PublishTarget.redacted(url))\" is not a URL such as rtsp://host:8554/cam or srt://host:8890?streamid=read:cam")
        }
        // A port past 65535 is a typo in the URL (usage), not a server that is down.
        if let port = components.port, !(0...65535).contains(port) {
            throw .badURL("port \(port) in \(PublishTarget.redacted(url)) is outside 0…65535")
        }
        if scheme == "file", !listen, !FileManager.default.fileExists(atPath: components.path) {
            throw .noSuchFile(path: components.path)
        }
        if listen && !["rtsp", "srt"].contains(scheme) {
            throw .badURL("--listen takes an rtsp:// or srt:// URL, not \(scheme)://")
        }
        if listen, let host = components.host, !host.isEmpty, PublishAddress.parse(host) == nil {
            throw .badURL("--listen needs an IP address of this machine to listen on (such as 127.0.0.1), not \"\(host)\"")
        }
        self.url = url
        self.listen = listen
    }

    /// Reads for `seconds` (from the start), calling `tick` about once a second with the report so far;
    /// returns the report. Throws when the stream cannot be opened at all.
    public func run(seconds: Double, tick: (@Sendable (StreamReport) -> Void)? = nil) throws -> StreamReport {
        let deadline = started + seconds
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.publish-check"))
        if let tick {
            let progress = progress
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { tick(Self.finished(progress.withLock { $0 })) }
            timer.resume()
        }
        defer { timer.cancel() }
        let handler: @Sendable (Sample) -> Void = { [progress, started] sample in Self.count(sample, into: progress, started: started) }
        if listen, url.lowercased().hasPrefix("rtsp") {
            let server = try RecordServer(url: url, onSample: handler)
            try wait(until: deadline, pipeline: nil)
            server.stop()
        } else {
            let pipeline = try readingPipeline(onSample: handler)
            try wait(until: deadline, pipeline: pipeline)
        }
        return Self.finished(progress.withLock { $0 })
    }

    private static func finished(_ state: Progress) -> StreamReport {
        var report = state.report
        if let first = state.firstPTS, let last = state.lastPTS, last > first {
            report.seconds = Double(last - first) / 1e9
        } else if let first = state.firstTime {
            report.seconds = MonotonicClock.now - first
        }
        return report
    }

    private func wait(until deadline: Double, pipeline: Pipeline?) throws {
        var watch: BusWatch?
        if let pipeline {
            let progress = progress
            watch = pipeline.bus.watch { message in
                switch message {
                case let .error(source, text, debug, _):
                    let detail = debug.flatMap { $0.split(separator: "\n").last.map(String.init) }
                    progress.withLock { $0.failure = "\(source): \(text)" + (detail.map { " (\($0))" } ?? "") }
                case .eos:
                    progress.withLock { $0.failure = $0.failure ?? "the stream ended" }
                default: break
                }
            }
            guard pipeline.requestState(.playing) else {
                // GStreamer's own words (posted on the bus, which the watch above keeps) say why.
                let reason = progress.wait(until: MonotonicClock.now + 1) { $0.failure }
                throw PublishError.unreadable(url: PublishTarget.redacted(url), reason: reason ?? "the reading pipeline would not start")
            }
        }
        let failure: String? = progress.wait(until: deadline) { state -> String? in state.failure }
        let codec = pipeline.flatMap { Self.codec(in: $0) } ?? RecordServer.lastCodec.withLock { $0 }
        progress.withLock { $0.report.codec = codec }
        watch?.cancel()
        try? pipeline?.setState(.null, timeout: 5)
        if let failure, progress.withLock({ $0.report.frames }) == 0 {
            throw PublishError.unreadable(url: PublishTarget.redacted(url), reason: failure)
        }
    }

    /// `uridecodebin ! appsink` (`rtspsrc latency=200 ! decodebin` for rtsp://), or for `--listen srt://…` an
    /// `srtsrc` listener before `decodebin`.
    private func readingPipeline(onSample: @escaping @Sendable (Sample) -> Void) throws -> Pipeline {
        var graph = GraphDescription()
        let source: GraphDescription.Handle
        if listen {
            var components = URLComponents(string: url)
            var items = (components?.queryItems ?? []).filter { $0.name != "mode" }
            items.append(URLQueryItem(name: "mode", value: "listener"))
            components?.queryItems = items
            let srt = graph.add("srtsrc", ["uri": .string(components?.string ?? url)])
            source = graph.add("decodebin")
            graph.chain(srt, source)
        } else if url.lowercased().hasPrefix("rtsp") {
            // rtspsrc's own jitter buffer holds 2 s by default: a reader would see its first frame late and then
            // a burst. 200 ms is what a live viewer would set.
            let rtsp = graph.add("rtspsrc", ["location": .string(url), "latency": 200])
            source = graph.add("decodebin")
            graph.link(rtsp, to: source)
        } else {
            source = graph.add("uridecodebin", ["uri": .string(url)])
        }
        let sink = graph.add(
            "appsink", name: "sink",
            [
                "sync": false, "max-buffers": 2, "drop": true,
                "caps": .caps(CapsDescription("video/x-raw"))
            ])
        graph.link(source, to: sink)
        let pipeline: Pipeline
        do {
            pipeline = try graph.build()
        } catch {
            throw PublishError.setup("\(error)")
        }
        pipeline.element(named: "sink", as: AppSink.self)?.onSample(onSample)
        return pipeline
    }

    /// On a streaming thread: counts the frame and the gap before it.
    private static func count(_ sample: Sample, into progress: Condition<Progress>, started: Double) {
        let now = MonotonicClock.now
        let info = sample.videoInfo
        let pts = sample.buffer?.pts
        progress.withLock { state in
            state.report.frames += 1
            if state.firstTime == nil {
                state.firstTime = now
                state.report.firstFrame = now - started
                state.report.width = info?.width
                state.report.height = info?.height
            }
            if let pts, let last = state.lastPTS, pts > last {
                let delta = pts - last
                // The frame interval: the caps' rate when given, else the shortest gap seen.
                if let info, info.framerate.0 > 0 {
                    state.interval = UInt64(info.framerate.1) * 1_000_000_000 / UInt64(info.framerate.0)
                } else {
                    state.interval = min(state.interval ?? delta, delta)
                }
                if let interval = state.interval, interval > 0 {
                    let slots = Int((Double(delta) / Double(interval)).rounded())
                    if slots > 1 { state.report.lost += slots - 1 }
                }
            }
            if let pts {
                state.firstPTS = state.firstPTS ?? pts
                state.lastPTS = pts
            }
        }
    }

    /// The codec of the stream in `bin`, from the caps on its decoder's input.
    static func codec(in bin: Bin) -> String? {
        for element in bin.allElements {
            let classes = element.factoryClasses
            guard classes.contains("Decoder"), classes.contains(where: { $0 == "Video" || $0 == "Image" }),
                let caps = try? element.staticPad("sink").currentCaps,
                let name = caps.structure(at: 0)?.name
            else { continue }
            switch name {
            case "video/x-h264": return "H.264"
            case "video/x-h265": return "H.265"
            case "video/x-vp8": return "VP8"
            case "video/x-vp9": return "VP9"
            case "image/jpeg": return "JPEG"
            default: return name
            }
        }
        return nil
    }
}

/// `String(format:)` without Foundation's locale: `fixed(29.94, 1)` is "29.9".
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale), fraction = scaled % Int(scale)
    var digits = String(fraction)
    while digits.count < decimals { digits = "0" + digits }
    return (value < 0 ? "-" : "") + (decimals > 0 ? "\(whole).\(digits)" : "\(whole)")
}
