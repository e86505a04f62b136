import Capture
import Dispatch
import Foundation
import GStreamer
import Testing

/// Runs the built `swiftcam` binary in a scratch folder with its own control-socket directory.
final class SwiftcamRun: @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The swiftcam built next to this test bundle.
    static var binary: String {
        let products = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let beside = products.appendingPathComponent("swiftcam").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return repository.appendingPathComponent(".build/debug/swiftcam").path
    }

    let directory: URL
    let runtime: URL
    let process = Process()
    let output = Pipe()
    let errors = Pipe()
    let input = Pipe()
    private let ownsDirectory: Bool
    /// Stdout read while waiting for the control socket's line.
    private var outputRead = ""

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
        if process.isRunning { process.terminate() }
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Variables added to the process's environment (over the ones below).
    var extraEnvironment: [String: String] = [:]

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["SWIFTCAM_PIPELINES"] = Self.repository.appendingPathComponent("pipelines").path
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        if extraEnvironment["JOURNAL_STREAM"] == nil { environment.removeValue(forKey: "JOURNAL_STREAM") }
        return environment
    }

    /// Starts `swiftcam ARGS` in the background.
    func start(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
    }

    /// Runs `swiftcam ARGS` to completion (at most `timeout` seconds); returns status and both outputs.
    func run(_ arguments: [String], timeout: Double = 60) throws -> (status: Int32, out: String, err: String) {
        try start(arguments)
        try? input.fileHandleForWriting.close()
        // A watchdog, not a polling loop: the wait below ends when the process exits or is stopped.
        let process = process
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            process.terminate()
            Issue.record("swiftcam \(arguments.joined(separator: " ")) still ran after \(timeout) s")
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, collectOutput(), collectErrors())
    }

    /// Reads stderr line by line until one contains `text` (or the stream ends, or `timeout` passes and a
    /// watchdog stops the process); returns that line.
    func waitForErrorLine(containing text: String, timeout: Double) -> String? {
        let process = process
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let handle = errors.fileHandleForReading
        var pending = ""
        while true {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return nil }
            pending += String(decoding: chunk, as: UTF8.self)
            if let line = pending.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
        }
    }

    /// All of stdout: what `socket(for:)` already read, then the rest to the end.
    func collectOutput() -> String { outputRead + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    func collectErrors() -> String { String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }

    /// The session's socket, once `run` says it listens ("control socket PATH" on stdout, printed after
    /// `listen`). Reads stdout up to that line (kept for `collectOutput`); a run that ends first, or a
    /// watchdog that stops it after `timeout` seconds, ends the read.
    func socket(for name: String, timeout: Double = 20) throws -> String {
        let path = runtime.appendingPathComponent("swiftcam/\(name).sock").path
        let process = process
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let handle = output.fileHandleForReading
        while true {
            if outputRead.split(separator: "\n").contains(where: { $0 == "control socket \(path)" }) { return path }
            let chunk = handle.availableData
            guard !chunk.isEmpty else { break }
            outputRead += String(decoding: chunk, as: UTF8.self)
        }
        throw HarnessError("no control socket for \(name): \(collectErrors())")
    }

    /// Sends a command over the socket and returns the reply.
    func ctl(_ command: String, socket: String) throws -> Reply {
        try ControlSocket.send(command, socket: socket)
    }

    /// Stops the process with SIGTERM and waits for it to exit; a watchdog sends SIGKILL after `timeout`
    /// seconds. Returns its exit status.
    func terminate(timeout: Double = 20) -> Int32 {
        if process.isRunning { process.terminate() }
        let process = process
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        return process.terminationStatus
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
        let pipeline = try Pipeline.parse("filesrc location=\"\(file)\" ! \(decoder) ! videoconvert ! video/x-raw,format=RGBA ! appsink name=out sync=false")
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
                        pixels.append(contentsOf: all[y * plane.stride ..< y * plane.stride + plane.rowBytes])
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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-discoverer-1.0")
    process.arguments = [file]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = Pipe()
    try process.run()
    process.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.contains("Duration:") }) else { return nil }
    let parts = line.split(separator: " ").last?.split(separator: ":") ?? []
    guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
    return h * 3600 + m * 60 + s
}
