import Base
import Camera
import Filters
import FoundationEssentials

/// Checks what JSON types cannot: ranges, filter text, caps, launch strings, consistency. What only the machine can
/// answer (elements, encoders, plugins) it asks `checks`.
enum ConfigValidator {
    /// Returns the config's filter chain, parsed (the one parse of its text).
    static func validate(_ config: PipelineConfig, file: String, checks: some ConfigChecks) throws(ConfigError) -> FilterChain? {
        func fail(_ path: String, _ reason: String) -> ConfigError { ConfigError(file: file, path: path, reason: reason) }

        // Plugins first: the filter text (or a launch line's swiftfilter) may name their filters.
        checks.loadInstalledPlugins()
        for (index, plugin) in (config.plugins ?? []).enumerated() {
            let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
            let path = plugin.hasPrefix("/") ? plugin : folder.appendingPathComponent(plugin).path
            if let reason = checks.loadPlugin(at: path) { throw fail("plugins[\(index)]", reason) }
        }
        if let launch = config.launch {
            let structured: [(String, Bool)] = [
                ("sources", config.sources != nil), ("caps", config.caps != nil), ("filter", config.filter != nil),
                ("mirror", config.mirror != nil), ("rotate", config.rotate != nil), ("preview", config.preview != nil),
                ("still", config.still != nil), ("record", config.record != nil), ("tap", config.tap != nil),
                ("publish", config.publish != nil), ("storage", config.storage != nil),
                ("analyze", config.analyze != nil), ("triggers", config.triggers != nil)
            ]
            if let (key, _) = structured.first(where: { $0.1 }) {
                throw fail(key, "a \"launch\" config describes the whole graph; remove \"\(key)\" or the \"launch\" string")
            }
            guard !launch.trimmed.isEmpty else { throw fail("launch", "empty launch string") }
            if let reason = checks.launchProblem(launch) { throw fail("launch", reason) }
        } else {
            guard let sources = config.sources, !sources.isEmpty else {
                throw fail("sources", "missing source: give one or two sources, e.g. [{\"kind\": \"test\"}], or a \"launch\" string")
            }
            guard sources.count <= 2 else { throw fail("sources", "at most two sources (a back and a front camera)") }
            for (index, source) in sources.enumerated() {
                try validate(source, path: "sources[\(index)]", checks: checks, fail: fail)
            }
            if sources.contains(where: { $0.kind == .launch }), config.caps?.width == nil || config.caps?.height == nil {
                throw fail("caps", "a launch source's frames cross to the host at the config's size: give caps.width and caps.height")
            }
        }
        if let caps = config.caps { try validate(caps, fail: fail) }
        var chain: FilterChain?
        if let filter = config.filter {
            do {
                chain = try FilterChain(parsing: filter)
            } catch {
                throw fail("filter", "\(error)")
            }
        }
        if let rotate = config.rotate, ![0, 90, 180, 270].contains(rotate) {
            throw fail("rotate", "\(rotate) is not one of 0, 90, 180, 270")
        }
        if let still = config.still {
            if let quality = still.quality, !(1...100).contains(quality) { throw fail("still.quality", "\(quality) is outside 1…100") }
            if let every = still.every, !Limits.isInterval(every) { throw fail("still.every", "must be \(Limits.intervalRule)") }
            if let pattern = still.pattern, pattern.isEmpty || pattern.contains("/") {
                throw fail("still.pattern", "a file name without '/' (use \"directory\" for the folder)")
            }
        }
        if let publish = config.publish { try validate(publish, fail: fail) }
        if let container = config.record?.container,
            let reason = checks.containerProblem(container, encoder: config.record?.encoder ?? .auto)
        {
            throw fail("record", reason)
        }
        if let encoder = config.record?.encoder,
            let reason = checks.recordEncoderProblem(encoder, container: config.record?.container)
        {
            throw fail("record.encoder", reason)
        }
        if let segment = config.record?.segment, !(segment >= Limits.minSegment && segment <= Limits.maxSeconds) {
            throw fail("record.segment", "must be a number of seconds from \(Int(Limits.minSegment)) to \(Int(Limits.maxSeconds))")
        }
        if let storage = config.storage { try validate(storage, config: config, fail: fail) }
        try validateAnalysis(config, fail: fail)
        if let encoder = config.live?.encoder, let reason = checks.liveEncoderProblem(encoder) {
            throw fail("live.encoder", reason)
        }
        if let duration = config.duration, !Limits.isDuration(duration) { throw fail("duration", "must be \(Limits.durationRule)") }
        if let frames = config.frames, frames <= 0 { throw fail("frames", "must be at least 1") }
        if let http = config.http {
            let port = http.split(separator: ":", omittingEmptySubsequences: false).last.flatMap { Int($0) }
            guard let port, (0...65535).contains(port) else {
                throw fail("http", "[http://|https://][ADDR:]PORT with a port from 0 to 65535, e.g. \"127.0.0.1:8080\" or 8080")
            }
        }
        if let https = config.https {
            guard config.http != nil else { throw fail("https", "names the camera screen's certificate, so it needs \"http\"") }
            if https.certificate.isEmpty { throw fail("https.certificate", "must name a PEM certificate file") }
            if https.key.isEmpty { throw fail("https.key", "must name its PEM key file") }
            if config.http?.lowercased().hasPrefix("http://") == true {
                throw fail("https", "goes with an HTTPS camera screen, but \"http\" asks for plain http://")
            }
        }
        return chain
    }

    private static func validate(
        _ source: SourceConfig, path: String, checks: some ConfigChecks, fail: (String, String) -> ConfigError
    ) throws(ConfigError) {
        switch source.kind {
        case .v4l2:
            guard let device = source.device, device.hasPrefix("/") else {
                throw fail("\(path).device", "a v4l2 source needs \"device\", an absolute path such as /dev/video0")
            }
        case .test:
            if let pattern = source.pattern, let reason = checks.testPatternProblem(pattern) { throw fail("\(path).pattern", reason) }
        case .file:
            guard let location = source.path, !location.isEmpty else {
                throw fail("\(path).path", "a file source needs \"path\" (a file path or URI)")
            }
        case .libcamera:
            if let camera = source.camera,
                camera.isEmpty || camera.count > 256 || camera.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                throw fail(
                    "\(path).camera", "a libcamera camera id as `cam -l` or `swiftcam devices` prints it, e.g. \"platform/vimc.0 Sensor B\""
                )
            }
            if let format = source.format, LibcameraFormats.gstreamer[format] == nil,
                !LibcameraFormats.gstreamer.values.contains(format)
            {
                let known = LibcameraFormats.gstreamer.keys.sorted().joined(separator: ", ")
                throw fail(
                    "\(path).format",
                    "unknown libcamera format \"\(format)\"; use libcamera's name (\(known)) or GStreamer's (RGB for BGR888)")
            }
        case .launch:
            guard let text = source.launch, !text.trimmed.isEmpty else {
                throw fail(
                    "\(path).launch",
                    "a launch source needs \"launch\": a source in gst-launch syntax ending in raw video, e.g. \"videotestsrc\"")
            }
            if let reason = checks.sourceLaunchProblem(text) { throw fail("\(path).launch", reason) }
        }
        if source.kind != .launch, source.launch != nil {
            throw fail(
                "\(path).launch", "only launch sources take \"launch\" (a whole graph in gst-launch syntax is the config's own \"launch\")")
        }
        if source.kind != .libcamera, source.camera != nil {
            throw fail("\(path).camera", "only libcamera sources take \"camera\" (v4l2 sources take \"device\")")
        }
        if source.kind != .v4l2 {
            let keys = [("device", source.device), ("format", source.kind == .libcamera ? nil : source.format), ("io-mode", source.ioMode)]
            for (key, value) in keys where value != nil {
                throw fail(
                    "\(path).\(key)",
                    "only v4l2 sources take \"\(key)\""
                        + (source.kind == .libcamera && key == "device"
                            ? "; a libcamera source names its camera with \"camera\", as `swiftcam devices` lists it" : ""))
            }
        }
        if source.kind != .test, source.pattern != nil { throw fail("\(path).pattern", "only test sources take \"pattern\"") }
        if source.kind != .file, source.realtime != nil {
            throw fail("\(path).realtime", "only file sources take \"realtime\" (test and v4l2 sources are live)")
        }
        if source.kind == .libcamera, source.controls != nil {
            throw fail(
                "\(path).controls",
                "libcamerasrc 0.0.3 sets no camera controls; use `swiftcam ctl NAME brightness|contrast|saturation V` (done in software)")
        }
        if source.kind != .v4l2, source.controls != nil { throw fail("\(path).controls", "only v4l2 sources take \"controls\"") }
        for name in (source.controls ?? [:]).keys.sorted()
        where name.isEmpty || !name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) {
            throw fail(
                "\(path).controls.\(name)",
                "a control is named as `swiftcam controls DEVICE` lists it, e.g. brightness or white_balance_automatic")
        }
        if source.kind == .v4l2, let format = source.format, ModeChooser.fourcc(named: format) == nil {
            let known = (ModeChooser.rawFormats.keys.sorted() + ModeChooser.jpegFormats.sorted()).joined(separator: ", ")
            throw fail(
                "\(path).format", "unknown camera format \"\(format)\"; use a V4L2 format (\(known)) or its GStreamer name (YUY2 for YUYV)")
        }
        if let mode = source.ioMode, !["auto", "rw", "mmap", "userptr", "dmabuf", "dmabuf-import"].contains(mode) {
            throw fail("\(path).io-mode", "unknown io-mode \"\(mode)\"; allowed: auto, rw, mmap, userptr, dmabuf, dmabuf-import")
        }
    }

    private static func validate(_ caps: CapsConfig, fail: (String, String) -> ConfigError) throws(ConfigError) {
        if let width = caps.width, !(1...16384).contains(width) { throw fail("caps.width", "\(width) is outside 1…16384") }
        if let height = caps.height, !(1...16384).contains(height) { throw fail("caps.height", "\(height) is outside 1…16384") }
        if let framerate = caps.framerate, CapsConfig.parseFramerate(framerate) == nil {
            throw fail("caps.framerate", "\"\(framerate)\" is not a frame rate such as 30 or 30/1 or 25/2")
        }
        if let format = caps.format, PixelFormat(gstName: format) == nil {
            let allowed = PixelFormat.allCases.map(\.gstName).joined(separator: ", ")
            throw fail("caps.format", "\"\(format)\" is not a format swiftfilter works on; allowed: \(allowed)")
        }
    }

    private static func validate(
        _ storage: StorageConfig, config: PipelineConfig, fail: (String, String) -> ConfigError
    ) throws(ConfigError) {
        guard storage.maxBytes != nil || storage.maxAge != nil || storage.minFree != nil else {
            throw fail("storage", "give \"maxBytes\", \"maxAge\" or \"minFree\", e.g. {\"maxBytes\": \"2G\", \"maxAge\": \"7d\"}")
        }
        guard config.record != nil || config.still != nil else {
            throw fail("storage", "a budget needs \"record\" or \"still\": it covers their directories")
        }
        if let bytes = storage.maxBytes, !(StorageConfig.minBudget...StorageConfig.maxByteCount).contains(bytes) {
            throw fail("storage.maxBytes", "\(bytes) is outside 1M (\(StorageConfig.minBudget) bytes) to 1024P")
        }
        if let bytes = storage.minFree, !(0...StorageConfig.maxByteCount).contains(bytes) {
            throw fail("storage.minFree", "\(bytes) is outside 0 to 1024P")
        }
        if let age = storage.maxAge, !Limits.isDuration(age) { throw fail("storage.maxAge", "must be \(Limits.durationRule)") }
    }

    private static func validate(_ publish: PublishConfig, fail: (String, String) -> ConfigError) throws(ConfigError) {
        guard publish.rtsp != nil || publish.to != nil || publish.rtmp != nil || publish.janus != nil else {
            throw fail(
                "publish",
                "give \"rtsp\" (serve, e.g. {\"port\": 8554}), \"to\" (push, e.g. \"rtsp://server:8554/cam\"), \"rtmp\" (e.g. {\"url\": \"rtmp://server/live/KEY\"}) or \"janus\" (e.g. {\"api\": \"http://server:8088/janus\"}), or several"
            )
        }
        if let janus = publish.janus {
            if let reason = JanusAddress.problem(with: janus.api) { throw fail("publish.janus.api", reason) }
            if let id = janus.mountpoint, !(1...Int(Int32.max)).contains(id) {
                throw fail("publish.janus.mountpoint", "\(id) is outside 1…\(Int32.max)")
            }
        }
        if let rtmp = publish.rtmp {
            if rtmp.isEmpty { throw fail("publish.rtmp", "give one ingest, e.g. {\"url\": \"rtmp://server/live/KEY\"}, or leave it out") }
            for (index, push) in rtmp.enumerated() {
                let path = rtmp.count == 1 ? "publish.rtmp" : "publish.rtmp[\(index)]"
                if push.keyFile != nil, push.keyEnvironment != nil {
                    throw fail(path, "give the stream key once: \"keyFile\" or \"keyEnvironment\", not both")
                }
                if let file = push.keyFile, file.isEmpty { throw fail("\(path).keyFile", "must name a file") }
                if let variable = push.keyEnvironment, variable.isEmpty || variable.contains("=") {
                    throw fail("\(path).keyEnvironment", "must name an environment variable, e.g. \"YOUTUBE_STREAM_KEY\"")
                }
                let keyGiven = push.keyFile != nil || push.keyEnvironment != nil
                if let reason = PublishTarget.rtmpProblem(with: push.url, keyGiven: keyGiven) { throw fail("\(path).url", reason) }
            }
        }
        if let rtsp = publish.rtsp {
            if let port = rtsp.port, !(0...65535).contains(port) {
                throw fail("publish.rtsp.port", "\(port) is outside 0…65535 (0: any free port)")
            }
            if let path = rtsp.path {
                let allowed = path.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/-_.~".unicodeScalars.contains($0))
                }
                let dotSegment = path.split(separator: "/").contains { $0 == "." || $0 == ".." }
                guard path.hasPrefix("/"), path.count > 1, allowed, !path.contains("//"), !dotSegment else {
                    throw fail(
                        "publish.rtsp.path",
                        "\"\(path)\" is not a mount path such as /cam (letters, digits, - _ . ~ and /, starting with /, no . or .. segments)"
                    )
                }
            }
            if let address = rtsp.address, PublishAddress.parse(address) == nil {
                throw fail("publish.rtsp.address", "\"\(address)\" is not an IP address such as 127.0.0.1, 0.0.0.0 or ::1")
            }
            if (rtsp.user == nil) != (rtsp.password == nil) {
                throw fail(
                    rtsp.user == nil ? "publish.rtsp.user" : "publish.rtsp.password", "give both \"user\" and \"password\", or neither")
            }
            if let problem = rtsp.user.flatMap(RTSPCredentials.userProblem) { throw fail("publish.rtsp.user", problem) }
            if let problem = rtsp.password.flatMap(RTSPCredentials.passwordProblem) { throw fail("publish.rtsp.password", problem) }
        }
        if let to = publish.to {
            if let reason = PublishTarget.problem(with: to) { throw fail("publish.to", reason) }
        }
    }
}

extension CapsConfig {
    /// "30", "30/1", "25/2" → (numerator, denominator).
    public static func parseFramerate(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard let numerator = parts.first.flatMap({ Int($0) }), numerator > 0 else { return nil }
        guard parts.count <= 2 else { return nil }
        let denominator = parts.count == 2 ? Int(parts[1]) : 1
        guard let denominator, denominator > 0 else { return nil }
        return (numerator, denominator)
    }
}
