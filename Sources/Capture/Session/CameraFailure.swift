import Analysis
public import Camera
import Config
import GStreamer
import Glibc

/// Why a camera stopped, said in the camera's words: one sentence naming the device, what happened and what SwiftCam
/// does next (`camera /dev/video0 stopped sending frames (unplugged, or a driver error?); waiting for it to come back —
/// recording continues in …-part2.mkv`). It is made from GStreamer's error domain and code (`ErrorReason`), not from
/// GStreamer's text, which goes to the debug log (`DebugLog`: `GST_DEBUG=swiftcam:2`, `swiftcam run --verbose`).
public struct CameraFailure: Sendable, Equatable, CustomStringConvertible {
    /// What happened to the camera.
    public enum Cause: Sendable, Equatable {
        /// The driver stopped delivering (a read or poll error) while the device node is still there.
        case stoppedSending
        /// The device node went away: unplugged, or its driver was unloaded.
        case gone
        /// The camera cannot deliver the format the config asks for; `asked` says it in words.
        case refusedFormat(asked: String)
        /// None of the camera's modes serves the config (found before streaming); the error names what it offers.
        case noMode(ModeChoiceError)
        /// The driver would not start streaming (it refused the buffers or STREAMON).
        case wouldNotStart
        /// Another process holds the camera (`EBUSY`); `holder` is "NAME (pid N)" when `/proc` tells.
        case busy(holder: String?)
        /// This user may not open the camera.
        case permissionDenied
        /// No frame came for `seconds` seconds and no error either (a hung driver).
        case stalled(seconds: Int)
        /// The driver or GStreamer reported another error while streaming.
        case streamingError
        /// The child process running the source ended: `how` says how (`crashed (SIGSEGV)`, `exited with status 1`).
        case childEnded(String)
    }

    /// What the session does about it.
    public enum Next: Sendable, Equatable {
        /// Waits for the camera to come back (or to be free), then rebuilds; a recording continues in `continuesIn`.
        case waiting(continuesIn: String?)
        /// Restarts the camera at once (after a stall); a recording continues in `continuesIn`.
        case restarting(continuesIn: String?)
        /// Nothing more: the session stops (a failure at start, or one a retry would only repeat).
        case stopping
    }

    /// The device path (`/dev/video0`), or the source's name and kind for other sources (`source0 (test pattern)`).
    public var device: String
    /// What happened.
    public var cause: Cause
    /// What SwiftCam does next.
    public var next: Next

    /// The sentence.
    public var description: String { "camera \(device) \(happened); \(nextText)" }

    /// Whether waiting and rebuilding can help: a camera that cannot deliver the format asked will not start to.
    public var isRecoverable: Bool {
        switch cause {
        case .refusedFormat, .noMode: return false
        default: return true
        }
    }

    /// Where a recording that ran when the camera failed continues, once it is back.
    public var continuesIn: String? {
        switch next {
        case let .waiting(path), let .restarting(path): path
        case .stopping: nil
        }
    }

    /// The same failure with another next step.
    func with(next: Next) -> CameraFailure {
        var copy = self
        copy.next = next
        return copy
    }

    private var happened: String {
        switch cause {
        case .stoppedSending: "stopped sending frames (unplugged, or a driver error?)"
        case .gone: "went away (unplugged, or its driver was unloaded)"
        case let .refusedFormat(asked): "cannot deliver the format asked (\(asked))"
        case let .noMode(error): error.problem
        case .wouldNotStart: "would not start streaming (its driver refused the buffers)"
        case let .busy(holder): "is in use by \(holder ?? "another program")"
        case .permissionDenied: "may not be opened by this user (permission denied)"
        case let .stalled(seconds): "sent no frame for \(seconds) s"
        case .streamingError: "failed while streaming (its driver reported an error)"
        case let .childEnded(how): "stopped: its process \(how)"
        }
    }

    private var nextText: String {
        let recording = continuesIn.map { " — recording continues in \($0)" } ?? ""
        switch next {
        case .waiting:
            if case .busy = cause { return "waiting for it to be free" + recording }
            return "waiting for it to come back" + recording
        case .restarting:
            return "restarting it" + recording
        case .stopping:
            switch cause {
            case .busy: return "stop that program and start again"
            case .refusedFormat: return "`swiftcam devices` lists the modes it has"
            case .noMode: return "`swiftcam devices` lists every mode"
            case .permissionDenied: return "join the video group (`sudo usermod -aG video $USER`), log out and in, and start again"
            case .gone: return "reconnect it and start again"
            case .stoppedSending, .wouldNotStart, .stalled, .streamingError, .childEnded: return "SwiftCam stopped"
            }
        }
    }
}

extension CameraFailure.Cause {
    /// What an error a camera's source element posted means, from GStreamer's error domain and code (and the flow
    /// return that stopped the stream). GStreamer's text only refines a code that covers two things (a
    /// `RESOURCE_ERROR_SETTINGS` is a refused format or a buffer pool that would not start).
    /// - Parameters:
    ///   - asked: the format the config asks of the camera, in words.
    ///   - deviceExists: whether the device node is there now (a read error on a node that vanished is an unplug).
    ///   - holder: the process holding the device, from `/proc`.
    static func of(
        message: String, debug: String?, reason: ErrorReason, device: String, asked: String,
        deviceExists: (String) -> Bool, holder: (String) -> String?
    ) -> CameraFailure.Cause {
        let lost: CameraFailure.Cause = deviceExists(device) ? .streamingError : .gone
        let system = (debug ?? "").lowercased()
        if let resource = reason.resource {
            switch resource {
            case .busy:
                return .busy(holder: holder(device))
            case .notAuthorized:
                return .permissionDenied
            case .openRead, .openWrite, .openReadWrite, .notFound:
                // The open's errno is only in GStreamer's debug text ("system error: …").
                if system.contains("permission denied") { return .permissionDenied }
                if system.contains("busy") { return .busy(holder: holder(device)) }
                return lost
            case .read:
                return deviceExists(device) ? .stoppedSending : .gone
            case .settings:
                // "Failed to allocate required memory." (the pool's activation, where a STREAMON failure lands) vs the
                // format ones ("Device '…' cannot capture at WxH", "… has no supported format").
                if message.lowercased().contains("memory") || system.contains("buffer pool") { return .wouldNotStart }
                return .refusedFormat(asked: asked)
            case .failed, .tooLazy, .close, .write, .seek, .sync, .noSpaceLeft:
                return lost
            }
        }
        if let stream = reason.stream {
            switch stream {
            case .format, .wrongType, .typeNotFound, .codecNotFound:
                return .refusedFormat(asked: asked)
            case .failed where reason.flow == .notNegotiated:
                return .refusedFormat(asked: asked)
            default:
                return lost
            }
        }
        return lost
    }
}

/// What a config's sources are called in failures, and what it asks of each camera, by source element name.
struct FailureContext: Sendable {
    struct Source: Sendable {
        /// The device path, or the source's name and kind.
        var device: String
        /// What the config asks of it, in words ("YUY2 1280x720 at 30 fps").
        var asked: String
        var isCamera: Bool
        /// A `file` source's path: its failures name the file, not a camera.
        var file: String?
        /// Whether the source runs in a child process (libcamera, `launch`).
        var isChild = false
    }

    let sources: [String: Source]

    init(config: PipelineConfig) {
        var sources: [String: Source] = [:]
        for (index, source) in (config.sources ?? []).enumerated() {
            let name = PipelineBuilder.Names.source(index)
            let device: String =
                switch source.kind {
                case .v4l2: source.device ?? "/dev/video0"
                case .test: "\(name) (test pattern)"
                case .file: "\(name) (\(source.path ?? "file"))"
                case .libcamera: "\(source.camera ?? "the first") (libcamera)"
                case .launch: "\(name) (launch)"
                }
            sources[name] = Source(
                device: device, asked: Self.asked(source: source, caps: config.caps), isCamera: source.kind == .v4l2,
                file: source.kind == .file ? source.path ?? "file" : nil, isChild: source.kind == .libcamera || source.kind == .launch)
        }
        self.sources = sources
    }

    /// The format in words: the camera format, the size and the rate the config names.
    static func asked(source: SourceConfig, caps: CapsConfig?) -> String {
        var parts: [String] = []
        if let format = source.format ?? caps?.format { parts.append(format) }
        if let width = caps?.width, let height = caps?.height { parts.append("\(width)x\(height)") }
        if let rate = caps?.framerate { parts.append("at \(Self.rate(rate)) fps") }
        return parts.isEmpty ? "the pipeline's format" : parts.joined(separator: " ")
    }

    /// "30/1" → "30", "15/2" → "7.5", "30000/1001" → "29.97"; anything else as written.
    static func rate(_ fraction: String) -> String {
        let parts = fraction.split(separator: "/")
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]), denominator > 0 else { return fraction }
        if numerator % denominator == 0 { return "\(numerator / denominator)" }
        var text = fmt(Double(numerator) / Double(denominator), 2)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// The status an element error puts the session in: a camera's failure for a source element, else the element's
    /// failure in words (GStreamer's short message, never its debug text). `next` is what the session will do.
    func status(
        source: String, message: String, debug: String?, reason: ErrorReason, next: CameraFailure.Next,
        deviceExists: (String) -> Bool = { access($0, F_OK) == 0 },
        holder: (String) -> String? = { ProcessHolder.holder(of: $0) }
    ) -> CameraStatus {
        // An element inside a source's bin (a file's decodebin and typefind) speaks for that source.
        let owner = sources[source] != nil ? source : reason.containers.first { sources[$0] != nil }
        guard let owner, let camera = sources[owner] else {
            return .failed(element: source, message: Self.words(message: message, reason: reason))
        }
        if let file = camera.file {
            return .failed(element: "file \(file)", message: Self.fileWords(message: message, reason: reason))
        }
        let cause = CameraFailure.Cause.of(
            message: message, debug: debug, reason: reason, device: camera.device, asked: camera.asked,
            deviceExists: camera.isCamera ? deviceExists : { _ in true }, holder: holder)
        return CameraStatus(CameraFailure(device: camera.device, cause: cause, next: next))
    }

    /// A file source's failure in words: one that is not a video GStreamer can play says so.
    static func fileWords(message: String, reason: ErrorReason) -> String {
        switch reason.stream {
        case .typeNotFound?, .wrongType?: return "is not a video file GStreamer can play (its type is not one it knows)"
        case .codecNotFound?: return "has a video codec this machine has no decoder for"
        case .demux?, .decode?, .format?: return "could not be read to the end (\(message))"
        default: return words(message: message, reason: reason)
        }
    }

    /// An element's failure in words: GStreamer's short message, except the flow error it posts when a stream
    /// stops ("Internal data stream error."), which says nothing a user can act on, said by its flow return.
    static func words(message: String, reason: ErrorReason) -> String {
        if let flow = reason.flow {
            switch flow {
            case .notNegotiated: return "could not agree on a video format with the elements next to it"
            case .notLinked: return "had nothing to send its data to"
            case .error: return "stopped streaming after an error next to it"
            default: return "stopped streaming (\(flow))"
            }
        }
        if message.hasPrefix("Internal data stream error") { return "stopped streaming after an error" }
        return message
    }
}

extension CaptureSession {
    /// Prints GStreamer's own words behind every failure and warning (its message, debug text and error code) on
    /// stderr, as GStreamer log lines in the `swiftcam` category: `swiftcam run --verbose`. Without it they go only
    /// to GStreamer's debug log (`GST_DEBUG=swiftcam:2`).
    public static func showGStreamerMessages() {
        DebugLog.showOnStandardError()
    }
}
