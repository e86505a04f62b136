import Base
public import Config
import GStreamer

/// One video encoder SwiftCam can use: its element and the chain around it that makes it low-latency and
/// gives consumers the stream they take (H.264 byte-stream with SPS/PPS on every key frame for live use).
public struct EncoderCandidate: Sendable, Equatable {
    /// The element factory, e.g. "v4l2h264enc".
    public let element: String
    /// What it produces.
    public let codec: LiveCodec
    /// Whether it runs on the machine's codec hardware (a V4L2 M2M device, a VA-API GPU, NVENC).
    public let isHardware: Bool
    /// Where it comes from, for people: "V4L2 M2M (Raspberry Pi and other SoCs)", "x264 (gstreamer1.0-plugins-ugly)".
    public let origin: String
    /// The raw format it is fed.
    let input: String
    /// Its low-latency settings, set where the installed element has them (a hardware element's properties
    /// vary with its GStreamer version and driver; gst-launch-1.0 likewise only warns about an unknown one).
    let properties: [(String, GraphValue)]
    /// Caps fields right after it (a level the driver needs, a profile browsers decode), for every use; most need none.
    var outputCaps: [(String, CapsDescription.Value)] = []

    public static func == (lhs: EncoderCandidate, rhs: EncoderCandidate) -> Bool { lhs.element == rhs.element }

    /// Adds `videoconvert ! video/x-raw,format=… ! ELEMENT [! caps] [! h264parse …]` after `upstream`; returns
    /// the last element. Live H.264 is constrained-baseline (every WebRTC browser decodes it) and byte-stream
    /// with SPS/PPS before every key frame, so a viewer joining mid-stream decodes from the next one.
    func addChain(after upstream: GraphDescription.Handle, for use: EncoderUse, to graph: inout GraphDescription) -> GraphDescription.Handle
    {
        var chain = [
            upstream,
            graph.add("videoconvert"),
            graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("format", .string(input))]))])
        ]
        let settable = properties.filter { Element.factoryHasProperty(element, $0.0) }
        chain.append(graph.add(element, properties: settable + use.extraProperties(for: element)))
        var caps = outputCaps
        if codec == .h264, use == .live { caps.append(("profile", .string("constrained-baseline"))) }
        if !caps.isEmpty {
            chain.append(graph.add("capsfilter", ["caps": .caps(CapsDescription(codec.mediaType, caps))]))
        }
        if codec == .h264 {
            switch use {
            case .live:
                chain.append(graph.add("h264parse", ["config-interval": -1]))
                chain.append(
                    graph.add(
                        "capsfilter",
                        [
                            "caps": .caps(
                                CapsDescription(
                                    "video/x-h264",
                                    [
                                        ("stream-format", .string("byte-stream")),
                                        ("alignment", .string("au"))
                                    ]))
                        ]))
            case .record:
                chain.append(graph.add("h264parse"))
            }
        }
        for (from, to) in zip(chain, chain.dropFirst()) { graph.link(from, to: to) }
        return chain[chain.count - 1]
    }
}

/// What an encoder serves: the shared live stream (browsers, RTSP, pushes) or a recording.
public enum EncoderUse: String, Sendable {
    case live, record

    /// Settings that differ by use: JPEG recordings keep more quality than anything live would send.
    func extraProperties(for element: String) -> [(String, GraphValue)] {
        element == "jpegenc" && self == .record ? [("quality", 85)] : []
    }
}

/// Every encoder SwiftCam knows, in the order it prefers them, and the choice among them on this machine.
///
/// The order is hardware first (V4L2 M2M, VA-API, the older gstreamer-vaapi, NVENC), then x264, OpenH264, then VP8.
/// A config that names an encoder gets exactly that one. An encoder that fails to start is remembered in `failed`
/// for the rest of the process and skipped from then on, so every later start goes straight to one that works.
public struct EncoderChoice: Sendable {
    /// Bitrate of every encoder, in kbit/s, and the key-frame interval in frames (a second at 30 fps: a joining
    /// viewer waits at most that long for a picture).
    static let bitrate = 2000
    static let keyInterval = 30

    /// The H.264 and VP8 encoders, best first.
    public static let video: [EncoderCandidate] = [
        // extra-controls are V4L2 codec controls by their lower-case names (V4L2_CID_MPEG_VIDEO_BITRATE, …); the
        // Raspberry Pi's encoder refuses a stream without a level in the caps.
        EncoderCandidate(
            element: "v4l2h264enc", codec: .h264, isHardware: true, origin: "V4L2 M2M (Raspberry Pi and other SoCs)",
            input: "NV12",
            properties: [
                (
                    "extra-controls",
                    .string(
                        "controls,video_bitrate=\(bitrate * 1000),h264_i_frame_period=\(keyInterval),"
                            + "repeat_sequence_header=1,video_bitrate_mode=1")
                )
            ],
            outputCaps: [("level", .string("4"))]),
        EncoderCandidate(
            element: "vah264enc", codec: .h264, isHardware: true, origin: "VA-API (gstreamer1.0-plugins-bad va)",
            input: "NV12",
            properties: [
                ("rate-control", "cbr"), ("bitrate", .int(bitrate)), ("key-int-max", .int(keyInterval)),
                ("b-frames", 0), ("target-usage", 7)
            ]),
        EncoderCandidate(
            element: "vaapih264enc", codec: .h264, isHardware: true, origin: "VA-API (gstreamer1.0-vaapi)",
            input: "NV12",
            properties: [
                ("rate-control", "cbr"), ("bitrate", .int(bitrate)), ("keyframe-period", .int(keyInterval)),
                ("max-bframes", 0), ("quality-level", 7)
            ]),
        EncoderCandidate(
            element: "nvh264enc", codec: .h264, isHardware: true, origin: "NVENC (gstreamer1.0-plugins-bad nvcodec)",
            input: "NV12",
            properties: [
                ("preset", "low-latency-hp"), ("zerolatency", true), ("rc-mode", "cbr"), ("bitrate", .int(bitrate)),
                ("gop-size", .int(keyInterval)), ("bframes", 0)
            ]),
        EncoderCandidate(
            element: "x264enc", codec: .h264, isHardware: false, origin: "x264 (gstreamer1.0-plugins-ugly)",
            input: "I420",
            properties: [
                ("tune", "zerolatency"), ("speed-preset", "ultrafast"), ("key-int-max", .int(keyInterval)),
                ("bitrate", .int(bitrate))
            ]),
        EncoderCandidate(
            element: "openh264enc", codec: .h264, isHardware: false, origin: "OpenH264 (gstreamer1.0-plugins-bad)",
            input: "I420",
            properties: [
                ("bitrate", .int(bitrate * 1000)), ("gop-size", .int(keyInterval)), ("rate-control", "bitrate"),
                ("usage-type", "camera"), ("complexity", "low")
            ]),
        EncoderCandidate(
            element: "vp8enc", codec: .vp8, isHardware: false, origin: "libvpx (gstreamer1.0-plugins-good)",
            input: "I420",
            // Real-time (deadline 1, no lag), its fastest speed (cpu-used 16, so a small board keeps up; `make
            // bench-vp8` measures it), error-resilient and in 4 token partitions (a lost packet spoils less, and a decoder
            // can use 4 threads), a 1 s rate buffer (a forced key frame does not burst for seconds).
            properties: [
                ("deadline", 1), ("cpu-used", 16), ("threads", 2), ("lag-in-frames", 0), ("error-resilient", "default"),
                ("token-partitions", "4"), ("buffer-size", 1000), ("buffer-initial-size", 500), ("buffer-optimal-size", 600),
                ("keyframe-max-dist", .int(keyInterval)), ("end-usage", "cbr"), ("target-bitrate", .int(bitrate * 1000))
            ]),
        EncoderCandidate(
            element: "vp9enc", codec: .vp9, isHardware: false, origin: "libvpx (gstreamer1.0-plugins-good)",
            input: "I420",
            // Real-time at libvpx's fastest real-time speed for VP9 (cpu-used 9; `make bench-vp8` measures it), rows
            // encoded in parallel over 2 tile columns, error-resilient, the same rate buffer as VP8.
            properties: [
                ("deadline", 1), ("cpu-used", 9), ("threads", 2), ("row-mt", true), ("tile-columns", 1), ("lag-in-frames", 0),
                ("error-resilient", "default"), ("buffer-size", 1000), ("buffer-initial-size", 500), ("buffer-optimal-size", 600),
                ("keyframe-max-dist", .int(keyInterval)), ("end-usage", "cbr"), ("target-bitrate", .int(bitrate * 1000))
            ])
    ]

    /// Motion JPEG, for recordings that ask for it: cheap to encode, large files.
    public static let jpeg = EncoderCandidate(
        element: "jpegenc", codec: .jpeg, isHardware: false, origin: "libjpeg (gstreamer1.0-plugins-good)",
        input: "I420", properties: [])

    /// Every encoder a config may name.
    public static var all: [EncoderCandidate] { video + [jpeg] }

    /// Encoders that failed to start in this process, by element, with why.
    public static let failed = FailedEncoders()

    /// Whether this machine has an element (its factory is registered).
    public static let installed: @Sendable (String) -> Bool = { Element.factoryExists($0) }

    /// The candidates, best first, before availability and failures.
    public let candidates: [EncoderCandidate]
    /// Whether the config named the encoder (then there is no fallback).
    public let isNamed: Bool
    private let available: @Sendable (String) -> Bool
    private let failures: FailedEncoders

    /// The choice for the live video stream: `name` nil or "auto" for the first of `video` that works.
    public static func live(
        named name: String?, available: @escaping @Sendable (String) -> Bool = EncoderChoice.installed,
        failures: FailedEncoders = failed
    ) -> EncoderChoice {
        EncoderChoice(named: name, family: video, available: available, failures: failures)
    }

    /// The choice for recordings under `record.encoder`, into `container` (nil: Matroska). MP4 holds H.264 only
    /// (mp4mux takes neither VP8 nor JPEG here), so `auto` into MP4 chooses among the H.264 encoders alone; the
    /// validator refuses the other families and elements with MP4 (`problem(withRecordEncoder:container:)`).
    public static func record(
        _ encoder: RecordConfig.Encoder?, container: RecordConfig.Container? = nil,
        available: @escaping @Sendable (String) -> Bool = EncoderChoice.installed,
        failures: FailedEncoders = failed
    ) -> EncoderChoice {
        switch encoder ?? .auto {
        case .auto where container == .mp4:
            EncoderChoice(named: nil, family: video.filter { $0.codec == .h264 }, available: available, failures: failures)
        case .auto: EncoderChoice(named: nil, family: video, available: available, failures: failures)
        case .h264: EncoderChoice(named: nil, family: video.filter { $0.codec == .h264 }, available: available, failures: failures)
        case .vp8: EncoderChoice(named: "vp8enc", family: video, available: available, failures: failures)
        case .mjpeg: EncoderChoice(named: "jpegenc", family: all, available: available, failures: failures)
        case let .element(name): EncoderChoice(named: name, family: all, available: available, failures: failures)
        }
    }

    private init(named name: String?, family: [EncoderCandidate], available: @escaping @Sendable (String) -> Bool, failures: FailedEncoders)
    {
        if let name, name != "auto" {
            candidates = family.filter { $0.element == name }
            isNamed = true
        } else {
            candidates = family
            isNamed = false
        }
        self.available = available
        self.failures = failures
    }

    /// The candidates this machine has that have not failed, in order; a named encoder is there whatever failed before.
    public var usable: [EncoderCandidate] {
        candidates.filter { available($0.element) && (isNamed || failures.reason(for: $0.element) == nil) }
    }

    /// The encoder a start uses now; nil when this machine has none of the candidates.
    public var chosen: EncoderCandidate? { usable.first }

    /// The best usable encoder other than `candidate` (nil for a named encoder, or when none is left).
    public func next(after candidate: EncoderCandidate) -> EncoderCandidate? {
        isNamed ? nil : usable.first { $0 != candidate }
    }

    /// Remembers that `candidate` failed (for every later choice in this process) and returns the warning to give:
    /// one sentence naming it, why, and the encoder used instead (or that none is left).
    public func fail(_ candidate: EncoderCandidate, reason: String) -> (warning: String, next: EncoderCandidate?) {
        if !isNamed { failures.record(candidate.element, reason: reason) }
        let next = next(after: candidate)
        let instead =
            next.map { "using \($0.element) instead" }
            ?? (isNamed ? "the config names it, so there is no other" : "no other encoder is left")
        return ("encoder \(candidate.element) failed to start (\(reason)); \(instead)", next)
    }

    /// Tries `start` with each usable candidate in order until one works. Each failure is remembered and its
    /// warning handed to `warn`; the error of the last failure is thrown when none works.
    public func start<Started>(warn: (String) -> Void, _ start: (EncoderCandidate) throws -> Started) throws -> (Started, EncoderCandidate)
    {
        guard var candidate = chosen else { throw EncoderChoiceError.noneAvailable(names: candidates.map(\.element)) }
        while true {
            do {
                return (try start(candidate), candidate)
            } catch {
                let (warning, next) = fail(candidate, reason: "\(error)")
                warn(warning)
                guard let next else { throw error }
                candidate = next
            }
        }
    }
}

/// Why no encoder could be chosen.
public enum EncoderChoiceError: Error, CustomStringConvertible, Equatable {
    /// None of the candidates is installed.
    case noneAvailable(names: [String])

    public var description: String {
        switch self {
        case let .noneAvailable(names):
            "no video encoder is installed here (looked for \(names.joined(separator: ", "))); see 'swiftcam encoders'"
        }
    }
}

/// The encoders that failed to start in this process, by element, with why. Shared by every session.
public final class FailedEncoders: Sendable {
    private let reasons = Locked<[String: String]>([:])

    public init() {}

    /// Why `element` failed, if it did.
    public func reason(for element: String) -> String? { reasons.withLock { $0[element] } }

    /// Every failed element with its reason.
    public var all: [String: String] { reasons.withLock { $0 } }

    func record(_ element: String, reason: String) {
        reasons.withLock { $0[element] = $0[element] ?? reason }
    }
}

extension EncoderChoice {
    /// Why a config's `record.encoder` cannot be used on this machine, in a sentence naming what it has; nil when it can.
    static func problem(
        withRecordEncoder encoder: RecordConfig.Encoder, container: RecordConfig.Container? = nil,
        available: @escaping @Sendable (String) -> Bool = EncoderChoice.installed
    ) -> String? {
        problem(
            naming: encoder.description, in: all, choice: record(encoder, container: container, available: available), available: available,
            families: RecordConfig.Encoder.families)
    }

    /// Why `record.container` cannot hold what `record.encoder` makes, in one line naming both keys and what
    /// works; nil when it can. MP4 takes H.264 only: `vp8`, `mjpeg` and their elements (and `vp9enc`) go into Matroska.
    static func problem(withContainer container: RecordConfig.Container, encoder: RecordConfig.Encoder) -> String? {
        guard container == .mp4 else { return nil }
        let codec: LiveCodec? =
            switch encoder {
            case .auto, .h264: nil
            case .vp8: .vp8
            case .mjpeg: .jpeg
            case let .element(name): all.first { $0.element == name }.flatMap { $0.codec == .h264 ? nil : $0.codec }
            }
        guard let codec else { return nil }
        return "\"container\": \"mp4\" holds H.264 only, and \"encoder\": \"\(encoder)\" makes \(codec.encodingName): "
            + "use \"encoder\": \"h264\" (or \"auto\") with mp4, or \"container\": \"matroska\" for \(encoder)"
    }

    /// Why a config's `live.encoder` cannot be used on this machine; nil when it can.
    static func problem(withLiveEncoder name: String, available: @escaping @Sendable (String) -> Bool = EncoderChoice.installed) -> String?
    {
        problem(naming: name, in: video, choice: live(named: name, available: available), available: available, families: ["auto"])
    }

    private static func problem(
        naming name: String, in known: [EncoderCandidate], choice: EncoderChoice,
        available: (String) -> Bool, families: [String]
    ) -> String? {
        let here = known.map(\.element).filter(available)
        let has = "this machine has \(here.isEmpty ? "none of them" : here.joined(separator: ", "))"
        guard families.contains(name) || known.contains(where: { $0.element == name }) else {
            return "'\(name)' is not an encoder SwiftCam knows: use \((families + known.map(\.element)).joined(separator: ", ")); \(has)"
        }
        guard choice.candidates.contains(where: { available($0.element) }) else {
            let missing =
                families.contains(name) ? "no \(name == "auto" ? "video" : name) encoder is installed" : "\(name) is not installed"
            return "\(missing) here; \(has) (see 'swiftcam encoders')"
        }
        return nil
    }
}

extension PipelineBuilder {
    /// The encoders recordings of this config may use, best first (`record.encoder`).
    public var recordEncoders: EncoderChoice { .record(config.record?.encoder, container: config.record?.container) }
}
