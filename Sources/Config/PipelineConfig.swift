public import Filters
import FoundationEssentials

/// A named pipeline from `pipelines/NAME.json`: either structured (sources, caps, filter, branches)
/// or a raw gst-launch string. Unknown keys are errors, so a typo never passes silently.
public struct PipelineConfig: Codable, Sendable, Equatable {
    /// One line saying what the pipeline is for.
    public var description: String?
    /// A raw gst-launch description (may use `swiftfilter`); when set, no structured key may be.
    public var launch: String?
    /// One or two camera sources; with two, `switch` toggles between them.
    public var sources: [SourceConfig]?
    /// The raw video format every source is brought to.
    public var caps: CapsConfig?
    /// A filter chain in the text grammar, e.g. "sepia | vignette".
    public var filter: String?
    /// Mirror the picture horizontally (after the sources, before the filter).
    public var mirror: Bool?
    /// Rotate clockwise by 0, 90, 180 or 270 degrees.
    public var rotate: Int?
    /// Where the live picture goes.
    public var preview: PreviewMode?
    /// Still capture; `every` takes one periodically.
    public var still: StillConfig?
    /// Recording, started and stopped while running.
    public var record: RecordConfig?
    /// An appsink tap on the filtered frames for Swift code.
    public var tap: Bool?
    /// Stop after this many seconds (nil: run until stopped).
    public var duration: Double?
    /// Stop after this many frames (nil: run until stopped).
    public var frames: Int?
    /// Serve the browser camera screen on `[SCHEME://][ADDR:]PORT` (a bare port number is accepted too), like
    /// `run --http`: HTTPS beyond loopback unless `http://` asks for plain HTTP by name.
    public var http: String?
    /// The certificate and key the camera screen's HTTPS serves, like `run --tls-cert/--tls-key`; without it the host
    /// makes a self-signed one once and keeps it.
    public var https: HTTPSConfig?
    /// Serving the filtered stream over RTSP and pushing it to a media server.
    public var publish: PublishConfig?
    /// The shared live video encoder (browsers, RTSP, pushes).
    public var live: LiveConfig?
    /// The disk budget of the recording and still folders.
    public var storage: StorageConfig?
    /// Analysers on the filtered frames, by name with their options: `[{"motion": {"minArea": 0.02}}]`.
    public var analyze: [AnalyzerEntry]?
    /// What analysis events set off: stills, recordings with pre-roll, a command.
    public var triggers: TriggersConfig?
    /// Filter plugins (libgstNAME.so built with SwiftCam's FilterPlugin) to load before the filter is read; a relative
    /// path is relative to the config's folder.
    public var plugins: [String]?
    /// `filter` parsed, by `ConfigLoader` as it validates the config: the host hands this value on and never parses the
    /// text again. Nil for a config without `filter`, or one decoded without the loader.
    public var filterChain: FilterChain?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case description, launch, sources, caps, filter, mirror, rotate, preview, still, record, tap, duration, frames, http, publish, live,
            storage
        case https, analyze, triggers, plugins
    }

    public init(from decoder: Decoder) throws {
        // Strict from here down: every object in the config is held to the keys its type lists.
        let container = try StrictDecoder(base: decoder).container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        launch = try container.decodeIfPresent(String.self, forKey: .launch)
        sources = try container.decodeIfPresent([SourceConfig].self, forKey: .sources)
        caps = try container.decodeIfPresent(CapsConfig.self, forKey: .caps)
        filter = try container.decodeIfPresent(String.self, forKey: .filter)
        mirror = try container.decodeIfPresent(Bool.self, forKey: .mirror)
        rotate = try container.decodeIfPresent(Int.self, forKey: .rotate)
        preview = try container.decodeIfPresent(PreviewMode.self, forKey: .preview)
        still = try container.decodeIfPresent(StillConfig.self, forKey: .still)
        record = try container.decodeIfPresent(RecordConfig.self, forKey: .record)
        tap = try container.decodeIfPresent(Bool.self, forKey: .tap)
        duration = try container.decodeIfPresent(Double.self, forKey: .duration)
        frames = try container.decodeIfPresent(Int.self, forKey: .frames)
        if let port = try? container.decodeIfPresent(Int.self, forKey: .http) {
            http = String(port)
        } else {
            http = try container.decodeIfPresent(String.self, forKey: .http)
        }
        https = try container.decodeIfPresent(HTTPSConfig.self, forKey: .https)
        publish = try container.decodeIfPresent(PublishConfig.self, forKey: .publish)
        live = try container.decodeIfPresent(LiveConfig.self, forKey: .live)
        storage = try container.decodeIfPresent(StorageConfig.self, forKey: .storage)
        analyze = try container.decodeIfPresent([AnalyzerEntry].self, forKey: .analyze)
        triggers = try container.decodeIfPresent(TriggersConfig.self, forKey: .triggers)
        plugins = try container.decodeIfPresent([String].self, forKey: .plugins)
    }

    /// Whether this is a raw gst-launch config.
    public var isLaunch: Bool { launch != nil }
}

/// One camera source.
public struct SourceConfig: Codable, Sendable, Equatable {
    /// What produces the frames.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A V4L2 camera (`v4l2src`).
        case v4l2
        /// A test pattern (`videotestsrc`): runs on any machine.
        case test
        /// A video file or URI (`uridecodebin`).
        case file
        /// A libcamera camera (`libcamerasrc`: a Raspberry Pi camera module, an ISP-based board, the kernel's vimc),
        /// run in a child process so a crash in libcamera restarts the source, never the host.
        case libcamera
        /// Any GStreamer source the user writes in gst-launch syntax (`"launch"`), run in a child process like a libcamera
        /// source: a crash in its plugins restarts it, never the host.
        case launch
    }

    /// The source kind.
    public var kind: Kind
    /// V4L2 device node, e.g. "/dev/video0".
    public var device: String?
    /// A libcamera camera's id as `cam -l` prints it (`platform/vimc.0 Sensor B`); nil: the first camera libcamera lists.
    public var camera: String?
    /// A `launch` source's gst-launch text, ending in raw video (`rtspsrc location=… ! decodebin`); run in a child process.
    public var launch: String?
    /// The camera format to use, as V4L2 names it (`YUYV`, `NV12`, `MJPG`, …) or GStreamer does (`YUY2`);
    /// nil lets the mode choice decide (raw when a raw mode serves the config, else MJPEG).
    public var format: String?
    /// V4L2 I/O mode (`io-mode` of v4l2src: auto, rw, mmap, userptr, dmabuf, dmabuf-import).
    public var ioMode: String?
    /// Test pattern name of videotestsrc, e.g. "smpte", "ball".
    public var pattern: String?
    /// File path or URI for `file` sources.
    public var path: String?
    /// Mirror this source (the seeds' front camera).
    public var mirror: Bool?
    /// A label for the source ("back", "front").
    public var label: String?
    /// Stamps the host's wall clock into every frame's top band (a latency probe, see `Timecode`).
    public var timecode: Bool?
    /// `file` sources: play at the file's own frame rate, like a camera (the default, true), or as fast as it
    /// decodes (false: for processing a file, where the preview and still queues then drop what they cannot take).
    public var realtime: Bool?
    /// Camera control values written when the camera opens, by `v4l2-ctl` name (`brightness`, `power_line_frequency`).
    public var controls: [String: Int]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, device, camera, launch, format
        case ioMode = "io-mode"
        case pattern, path, mirror, label, timecode, realtime, controls
    }

    /// A source of `kind`; the other keys as a config would give them (nil: not given).
    public init(
        kind: Kind, device: String? = nil, camera: String? = nil, launch: String? = nil, format: String? = nil,
        ioMode: String? = nil, pattern: String? = nil, path: String? = nil, mirror: Bool? = nil, label: String? = nil,
        timecode: Bool? = nil, realtime: Bool? = nil, controls: [String: Int]? = nil
    ) {
        self.kind = kind
        self.device = device
        self.camera = camera
        self.launch = launch
        self.format = format
        self.ioMode = ioMode
        self.pattern = pattern
        self.path = path
        self.mirror = mirror
        self.label = label
        self.timecode = timecode
        self.realtime = realtime
        self.controls = controls
    }
}

/// The raw format sources are brought to.
public struct CapsConfig: Codable, Sendable, Equatable {
    /// Width in pixels.
    public var width: Int?
    /// Height in pixels.
    public var height: Int?
    /// Frames per second as "N/D" or a whole number.
    public var framerate: String?
    /// GStreamer format name, e.g. "NV12", "RGBA".
    public var format: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case width, height, framerate, format }

    public init(width: Int? = nil, height: Int? = nil, framerate: String? = nil, format: String? = nil) {
        self.width = width
        self.height = height
        self.framerate = framerate
        self.format = format
    }
}

extension CapsConfig {
    /// Reads a whole-number `framerate` as `N/1`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        format = try container.decodeIfPresent(String.self, forKey: .format)
        if let number = try? container.decodeIfPresent(Int.self, forKey: .framerate) {
            framerate = "\(number)/1"
        } else {
            framerate = try container.decodeIfPresent(String.self, forKey: .framerate)
        }
    }
}

/// Where the preview goes.
public enum PreviewMode: String, Codable, Sendable, CaseIterable {
    /// A window when a display exists, else nowhere (a fake sink).
    case auto
    /// Always a window (fails without a display).
    case window
    /// No preview branch.
    case none
}

/// Still capture settings.
public struct StillConfig: Codable, Sendable, Equatable {
    /// Image encoding.
    public enum Format: String, Codable, Sendable, CaseIterable { case jpeg, png }

    /// JPEG or PNG.
    public var format: Format?
    /// JPEG quality 1–100.
    public var quality: Int?
    /// Where stills are written (relative paths are from the current directory).
    public var directory: String?
    /// File name pattern: `{name}`, `{date}` (YYYYMMDD-HHMMSS), `{n}` (sequence); the extension is added.
    public var pattern: String?
    /// Take a still every this many seconds.
    public var every: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case format, quality, directory, pattern, every }
}

/// Recording settings.
public struct RecordConfig: Codable, Sendable, Equatable {
    /// File container; both stay playable after a crash up to their last fragment.
    public enum Container: String, Codable, Sendable, CaseIterable {
        /// Matroska (.mkv), clusters of about a second.
        case matroska
        /// Fragmented MP4 (.mp4), one-second fragments.
        case mp4
    }

    /// Video encoder: `auto` (the default: the first of `swiftcam encoders` that works, hardware first), a family
    /// (`h264`: hardware or software H.264; `vp8`; `mjpeg`), or one encoder element by name (`x264enc`, `vah264enc`, …).
    public enum Encoder: Codable, Sendable, Equatable, CustomStringConvertible {
        /// The best encoder this machine has: hardware H.264, then x264, OpenH264, then VP8.
        case auto
        /// VP8 (libvpx), real-time settings.
        case vp8
        /// Motion JPEG: cheap, large files.
        case mjpeg
        /// H.264: hardware where present, else x264 or OpenH264.
        case h264
        /// Exactly this encoder element; no other is tried.
        case element(String)

        /// The families, as written in a config.
        public static let families = familyCases.map(\.description)
        private static let familyCases: [Encoder] = [.auto, .h264, .vp8, .mjpeg]

        /// The family called `name`, else the element of that name.
        public init(name: String) {
            self = Self.familyCases.first { $0.description == name } ?? .element(name)
        }

        public init(from decoder: Decoder) throws {
            self.init(name: try decoder.singleValueContainer().decode(String.self))
        }

        public func encode(to encoder: Swift.Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }

        /// As written in a config.
        public var description: String {
            switch self {
            case .auto: "auto"
            case .vp8: "vp8"
            case .mjpeg: "mjpeg"
            case .h264: "h264"
            case let .element(name): name
            }
        }
    }

    /// The container.
    public var container: Container?
    /// The encoder.
    public var encoder: Encoder?
    /// Where recordings are written.
    public var directory: String?
    /// Start recording as soon as the pipeline plays.
    public var autostart: Bool?
    /// Cut the recording into files of about this many seconds each (at the first key frame after it), each
    /// playable on its own; nil: one file per recording.
    public var segment: Double?

    enum CodingKeys: String, CodingKey, CaseIterable { case container, encoder, directory, autostart, segment }
}

/// The camera screen's own certificate (PEM files, read when `run` starts).
public struct HTTPSConfig: Codable, Sendable, Equatable {
    /// The server's certificate, then any intermediates.
    public var certificate: String
    /// Its private key, without a passphrase.
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case certificate, key }
}

/// The shared live video encoder's settings.
public struct LiveConfig: Codable, Sendable, Equatable {
    /// "auto" (the default: hardware H.264 where present, then x264, OpenH264, VP8, falling back when one fails to
    /// start) or one encoder element by name, e.g. "x264enc", used without fallback.
    public var encoder: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case encoder }
}
