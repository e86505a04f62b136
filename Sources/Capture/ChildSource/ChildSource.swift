import Base
import Config
import FoundationEssentials
import GStreamer
import Glibc

/// A source that runs in a child process (`SourceProcess`): what the child runs, and how the host receives its frames —
/// `shmsink` at the end of the child's graph, `shmsrc` at the head of the host's. Made for a libcamera source (its
/// camera's mode, `LibcameraPlan`) and for a `launch` source (the user's own source text).
public struct ChildSource: Sendable, Equatable {
    /// Who sends the frames, as failures name it: `Sensor B (libcamera)`, `source0 (launch)`.
    public let label: String
    /// The libcamera camera's id, for a libcamera source (what is missing when the child finds no camera).
    public let libcameraCamera: String?
    /// The child's graph up to (not including) its caps filter and `shmsink`, as launch words.
    public let head: [String]
    /// The raw format, size and rate the host receives (the rate is the source's own unless the config names one).
    public let format: String
    public let width: Int
    public let height: Int
    public let rate: Rate?
    /// The shared-memory control socket between the child and the host.
    public let socketPath: String

    /// A frame rate as GStreamer's fraction.
    public struct Rate: Sendable, Equatable {
        public let numerator: Int
        public let denominator: Int
    }

    /// Shared memory for eight frames as the host receives them: the host's queues hold a few while the child writes on.
    var sharedMemoryBytes: Int { max(8 * width * height * 4, 4 << 20) }

    /// The child's whole command line after `gst-launch-1.0 -f`: the head, the host's caps, then `shmsink`.
    public var arguments: [String] {
        var graph = GraphDescription()
        // Never waits for the host: frames written while nobody reads are dropped, and a host that restarts reconnects.
        graph.chain(
            graph.add("capsfilter", name: "host-caps", ["caps": .caps(hostCaps(rate: false))]),
            graph.add(
                "shmsink", name: "to-host",
                [
                    "socket-path": .string(socketPath), "shm-size": .int(sharedMemoryBytes), "wait-for-connection": false,
                    "sync": false, "async": false
                ]))
        return head + ["!"] + graph.launchLines.flatMap { $0 }
    }

    /// The child's command line as a shell reads it (`swiftcam show`).
    public var command: String {
        "gst-launch-1.0 -f "
            + arguments.map {
                $0.unicodeScalars.contains(where: { " \"'\\$`!".unicodeScalars.contains($0) }) && $0 != "!" ? shellQuoted($0) : $0
            }
            .joined(separator: " ")
    }

    private func shellQuoted(_ word: String) -> String { "'" + word.replacing(scalar: "'", with: "'\\''") + "'" }

    /// The frames as they cross: the host's format and size; the rate is the source's, unknown to the caps (0/1).
    private func hostCaps(rate: Bool) -> CapsDescription {
        var fields: [(String, CapsDescription.Value)] = [("format", .string(format)), ("width", .int(width)), ("height", .int(height))]
        if rate { fields.append(("framerate", .fraction(0, 1))) }
        return CapsDescription("video/x-raw", fields)
    }

    /// The host's side into `graph`: `shmsrc` (live, stamped on arrival) → the frames' caps → `videorate` when the config
    /// names a rate; the caller links the config's caps filter after it.
    func addHostElements(named name: String, to graph: inout GraphDescription) -> [GraphDescription.Handle] {
        var chain = [
            graph.add(
                "shmsrc", name: name, properties: [("socket-path", .string(socketPath)), ("is-live", true), ("do-timestamp", true)]),
            graph.add("capsfilter", name: "\(name)-mode", ["caps": .caps(hostCaps(rate: true))])
        ]
        if rate != nil { chain.append(graph.add("videorate")) }
        return chain
    }

    /// A fresh shared-memory socket for source `index`: a restarted child never meets its crashed predecessor's.
    static func socketPath(_ index: Int) -> String {
        let folder = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { access($0, W_OK) == 0 ? $0 : nil } ?? "/tmp"
        let serial = socketSerial.withLock { value -> Int in
            value += 1
            return value
        }
        return "\(folder)/swiftcam-source-\(getpid())-\(serial)-\(index).sock"
    }
    private static let socketSerial = Locked(0)

    /// gst-launch text as the words gst-launch-1.0 takes: split at spaces outside double quotes, as a shell would pass
    /// the unquoted line. (gst-launch escapes the spaces inside each word, so the whole text as one word is one name.)
    static func words(_ text: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, escaped = false
        for character in text {
            if escaped {
                word.append(character)
                escaped = false
            } else if character == "\\" {
                word.append(character)
                escaped = true
            } else if character == "\"" {
                word.append(character)
                quoted.toggle()
            } else if character.isWhitespace && !quoted {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// A `launch` source: the user's text (a source that ends in raw video, e.g. `rtspsrc location=… ! decodebin`) and
    /// every conversion to the config's caps, which must name the size (the frames cross at it).
    static func launch(_ text: String, index: Int, caps: CapsConfig?, socketPath: String) -> ChildSource {
        let rate = caps?.framerate.flatMap(CapsConfig.parseFramerate).map { Rate(numerator: $0.0, denominator: $0.1) }
        return ChildSource(
            label: "\(PipelineBuilder.Names.source(index)) (launch)", libcameraCamera: nil,
            head: words(text) + ["!", "videoconvert", "!", "videoscale"], format: caps?.format ?? "I420", width: caps?.width ?? 640,
            height: caps?.height ?? 480, rate: rate, socketPath: socketPath)
    }
}
