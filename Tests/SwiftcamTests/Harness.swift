import Capture
import Control
import Foundation
import GStreamer
import TestSupport
import Testing

/// Runs the built `swiftcam` binary in a scratch folder with its own control-socket directory (a `ChildProcess`
/// with the folder, environment and socket this suite's runs share).
final class SwiftcamRun: @unchecked Sendable {
    static let repository = Built.repository

    let directory: URL
    let runtime: URL
    /// The running program, once `start` or `run` has started it.
    private(set) var child: ChildProcess!
    private let ownsDirectory: Bool

    /// A scratch folder (removed on deinit) with `captures/`, `recordings/` and a private socket folder.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-test-\(UUID().uuidString)")
        runtime = directory.appendingPathComponent("run")
        ownsDirectory = true
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
    }

    /// A second process in another run's folder (and socket folder), e.g. a `ctl` beside a `run`.
    init(directory: URL) {
        self.directory = directory
        runtime = directory.appendingPathComponent("run")
        ownsDirectory = false
    }

    deinit {
        // Stopped (killed and reaped) before its folder goes.
        child = nil
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Variables added to the process's environment (over the ones below).
    var extraEnvironment: [String: String] = [:]
    /// Variables taken out of it (after `extraEnvironment`): a service that inherits no `HOME`, say.
    var removedEnvironment: Set<String> = []
    /// A command that runs `swiftcam` (its path and arguments appended), e.g. one that first makes the folder read-only.
    var launcher: [String] = []
    /// The stream whose pipe `JOURNAL_STREAM` names (device:inode), as systemd sets it for the journal's stream.
    var journalStream: ChildProcess.Stream?

    var environment: [String: String] {
        // No display and no journal from the machine running the tests; a test may set its own (a stale one).
        var environment = ProcessInfo.processInfo.environment
        for inherited in ["DISPLAY", "WAYLAND_DISPLAY", "JOURNAL_STREAM"] { environment.removeValue(forKey: inherited) }
        environment["XDG_RUNTIME_DIR"] = runtime.path
        // Kept tokens in the scratch folder, never in the machine's own state.
        environment["XDG_STATE_HOME"] = runtime.appendingPathComponent("state").path
        environment.removeValue(forKey: "STATE_DIRECTORY")
        environment["SWIFTCAM_PIPELINES"] = Built.pipelines
        return environment.merging(extraEnvironment) { $1 }.filter { !removedEnvironment.contains($0.key) }
    }

    /// Starts `swiftcam ARGS` in the background.
    func start(_ arguments: [String]) throws {
        let journal = journalStream
        child = try ChildProcess(
            launcher + [Built.swiftcam] + arguments, environment: environment, directory: directory.path,
            streamEnvironment: journal.map { stream in
                { output, errors in
                    let pipe = stream == .output ? output : errors
                    return ["JOURNAL_STREAM": "\(pipe.device):\(pipe.inode)"]
                }
            })
    }

    /// Runs `swiftcam ARGS` to completion (a safety net of `timeout` seconds fails the test and kills it); returns
    /// status and both outputs.
    func run(
        _ arguments: [String], timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> (status: Int32, out: String, err: String)
    {
        try start(arguments)
        child.closeInput()
        let status = child.waitForExit(timeout: timeout, sourceLocation: sourceLocation).status
        return (status, child.text(.output), child.text(.errors))
    }

    /// The first stderr line that contains `text`, waiting for it; nil when stderr ends first.
    func waitForErrorLine(containing text: String, timeout: Double) -> String? {
        child.line(.errors, containing: text, timeout: timeout)
    }

    /// All of stdout, once the process has closed it.
    func collectOutput() -> String { child.allText(.output) }
    /// All of stderr, once the process has closed it.
    func collectErrors() -> String { child.allText(.errors) }

    /// The session's socket, once `run` says it listens ("control socket PATH" on stdout, printed after
    /// `listen`); throws when the run ends first.
    func socket(for name: String, timeout: Double = 20) throws -> String {
        let path = runtime.appendingPathComponent("swiftcam/\(name).sock").path
        guard child.line(timeout: timeout, where: { $0 == "control socket \(path)" }) != nil else {
            throw HarnessError("no control socket for \(name): \(child.text(.errors))")
        }
        return path
    }

    /// Sends a command over the socket and returns the reply.
    func ctl(_ command: String, socket: String) throws -> Reply {
        try ControlSocket.send(command, socket: socket)
    }

    /// Stops the process with SIGTERM and waits for it to exit (killed, and the test failed, after `timeout`
    /// seconds). Returns its exit status.
    func terminate(timeout: Double = 20) -> Int32 {
        child.stop(timeout: timeout)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A decoded image: RGBA pixels.
struct DecodedImage {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let index = (y * width + x) * 4
        return (Int(pixels[index]), Int(pixels[index + 1]), Int(pixels[index + 2]))
    }

    /// Decodes a JPEG or PNG file with GStreamer; throws when it does not decode completely.
    init(file: String) throws {
        let decoder = file.hasSuffix(".png") ? "pngdec" : "jpegdec"
        let pipeline = try Pipeline.parse(
            "filesrc location=\"\(file)\" ! \(decoder) ! videoconvert ! video/x-raw,format=RGBA ! appsink name=out sync=false")
        guard let sink = pipeline.element(named: "out", as: AppSink.self) else { throw HarnessError("no appsink") }
        let bus = pipeline.bus
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }
        guard let sample = sink.pullSample(timeout: 10), let info = sample.videoInfo, let buffer = sample.buffer else {
            throw HarnessError("\(file) does not decode: \(bus.pop(timeout: 0, types: .error)?.description ?? "no frame")")
        }
        if case let .error(_, message, _, _)? = bus.pop(timeout: 0, types: .error) { throw HarnessError("\(file): \(message)") }
        var pixels: [UInt8] = []
        try buffer.withMappedVideoFrame(info) { frame in
            let plane = frame.planes[0]
            frame.withPlane(0) { bytes in
                bytes.withUnsafeBufferPointer { all in
                    for y in 0..<plane.height {
                        pixels.append(contentsOf: all[y * plane.stride..<y * plane.stride + plane.rowBytes])
                    }
                }
            }
        }
        width = info.width
        height = info.height
        self.pixels = pixels
    }
}

/// Counts the frames a recording decodes in its first `seconds`, how many seconds the decoded frames span,
/// and whether decoding hit an error.
func decodedFrames(of file: String, within seconds: Double) throws -> (frames: Int, span: Double, error: String?) {
    let demuxer = file.hasSuffix(".mp4") ? "qtdemux" : "matroskademux"
    let pipeline = try Pipeline.parse("filesrc location=\"\(file)\" ! \(demuxer) ! decodebin ! appsink name=out sync=false")
    guard let sink = pipeline.element(named: "out", as: AppSink.self) else { throw HarnessError("no appsink") }
    let bus = pipeline.bus
    pipeline.requestState(.playing)
    var frames = 0
    var first: UInt64?
    var span = 0.0
    while let sample = sink.pullSample(timeout: 5), let pts = sample.buffer?.pts {
        first = first ?? pts
        let offset = Double(pts - min(pts, first ?? pts)) / 1e9
        span = max(span, offset)
        if offset < seconds { frames += 1 }
    }
    let error = bus.pop(timeout: 0, types: .error).map(\.description)
    try pipeline.setState(.null)
    return (frames, span, error)
}

/// The duration gst-discoverer-1.0 reports, in seconds.
func discoveredDuration(of file: String) throws -> Double? {
    let text = try ChildProcess.run(["/usr/bin/gst-discoverer-1.0", file]).out
    guard let line = text.split(separator: "\n").first(where: { $0.contains("Duration:") }) else { return nil }
    let parts = line.split(separator: " ").last?.split(separator: ":") ?? []
    guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
    return h * 3600 + m * 60 + s
}
