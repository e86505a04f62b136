import Capture
import Config
import Foundation
import GStreamer
import TestSupport
import Testing

/// `swiftcam show NAME` prints a gst-launch line; pasted into a shell it must run the same graph.
/// These run the printed line through `/bin/sh` and the real `gst-launch-1.0`, with the plugin the build made.
@Suite("show's gst-launch line", .serialized)
struct ShowLineTests {
    static let store = ConfigStore(directory: Built.repository.appendingPathComponent("pipelines").path)

    /// The folder holding the built `swiftcam` and `libgstswiftfilter.so`.
    static var products: String { URL(fileURLWithPath: Built.swiftcam).deletingLastPathComponent().path }

    /// The command `show` printed, from `gst-launch-1.0` to the blank line after it.
    static func command(in output: String) throws -> String {
        let lines = output.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("gst-launch-1.0") }, "no gst-launch line in: \(output)")
        let end = lines[start...].firstIndex { $0.isEmpty } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// The printed command with `-e` and a frame limit on every source, so it ends by itself.
    /// Only whole words are touched: the sources' factory names, which the printer writes bare.
    static func limited(_ command: String, frames: Int) -> String {
        var text = command.replacingOccurrences(of: "gst-launch-1.0 ", with: "gst-launch-1.0 -e ", options: .anchored)
        for factory in ["videotestsrc", "v4l2src"] {
            text = text.replacingOccurrences(of: " \(factory) ", with: " \(factory) num-buffers=\(frames) ")
        }
        return text
    }

    /// The shipped configs whose sources include a V4L2 camera.
    static let cameraConfigs = store.names().filter { name in
        ((try? store.load(name))?.sources ?? []).contains { $0.kind == .v4l2 }
    }

    @Test(arguments: store.names())
    func printedLineRunsInAShell(name: String) throws {
        try playPrintedLine(of: name)
    }

    @Test func someShippedConfigsUseACamera() {
        // HardwareTwoCameraTests.showLinePlaysOnTheCameras plays these three in the vivid VM.
        #expect(Self.cameraConfigs.sorted() == ["preview", "snapshot", "switch-cameras"], "\(Self.cameraConfigs)")
    }

    /// Runs `show NAME`'s line with a frame limit: it plays to EOS, or, when a camera it names is missing here, fails
    /// only on opening that device.
    func playPrintedLine(of name: String) throws {
        let config = try Self.store.load(name)
        let show = try SwiftcamRun().run(["show", name])
        #expect(show.status == 0, "\(show.err)")
        let command = try Self.command(in: show.out)
        let limited = Self.limited(command, frames: 10)
        #expect(limited != command, "a frame limit went onto the sources")
        let result = try shell(limited)
        let devices = (config.sources ?? []).filter { $0.kind == .v4l2 }.compactMap(\.device)
        if devices.isEmpty || devices.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) {
            #expect(result.status == 0 && result.out.contains("Got EOS from element"), "\(limited)\n\(result.out)\n\(result.err)")
        } else {
            // No camera here: the line parsed, built, and failed only on opening the device it names.
            #expect(result.status != 0)
            #expect(devices.contains { (result.out + result.err).contains("Cannot identify device '\($0)'") }, "\(limited)\n\(result.err)")
            #expect(!(result.out + result.err).contains("erroneous pipeline"), "\(result.err)")
        }
    }

    /// An awkward device path reaches v4l2src whole through show's line: the error quotes it exactly.
    @Test func awkwardDeviceReachesTheSourceWhole() throws {
        let device = "/dev/v 0\"'!=x ! fakesink"
        let run = try SwiftcamRun()
        let file = try write(["sources": [["kind": "v4l2", "device": device]]], in: run.directory)
        let show = try run.run(["show", file])
        #expect(show.status == 0, "\(show.err)")
        let result = try shell(Self.limited(try Self.command(in: show.out), frames: 5))
        #expect(result.status != 0)
        #expect((result.out + result.err).contains("Cannot identify device '\(device)'."), "\(result.err)")
    }

    /// An awkward file path plays to its end through show's line (uridecodebin links its pad when it appears).
    @Test func awkwardFilePathPlaysThroughTheLine() throws {
        let run = try SwiftcamRun()
        let clip = run.directory.appendingPathComponent("my clip 'a' \"b\" !c =d.mkv").path
        try writeClip(to: clip, frames: 6)
        let file = try write(
            [
                "sources": [["kind": "file", "path": clip]], "filter": "invert",
                "caps": ["width": 64, "height": 48, "format": "I420"]
            ], in: run.directory)
        let show = try run.run(["show", file])
        #expect(show.status == 0, "\(show.err)")
        let command = try Self.command(in: show.out)
        let result = try shell(command.replacingOccurrences(of: "gst-launch-1.0 ", with: "gst-launch-1.0 -e ", options: .anchored))
        #expect(result.status == 0 && result.out.contains("Got EOS from element"), "\(command)\n\(result.out)\n\(result.err)")
    }

    /// Any string survives the shell and the launch parser: filesink creates exactly the file named.
    @Test func shellLineCreatesExactlyTheFileNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("show-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = [
            "a b", "it's", "say \"hi\"", "a!b", "a=b", "\"x\"", "back\\slash", "$HOME `id`; | & < >", "new\nline", "NULL", "caméra"
        ]
        for name in names {
            let path = folder.appendingPathComponent(name).path
            var graph = GraphDescription()
            graph.chain(
                graph.add("fakesrc", ["num-buffers": 1, "sizetype": "fixed", "sizemax": 16]),
                graph.add("filesink", ["location": .string(path)]))
            let result = try shell(graph.shellCommand())
            #expect(result.status == 0, "\(graph.shellCommand())\n\(result.err)")
            #expect(FileManager.default.fileExists(atPath: path), "\(graph.shellCommand())")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// Writes a config file into `folder` and returns its path.
    func write(_ object: [String: Any], in folder: URL) throws -> String {
        let file = folder.appendingPathComponent("awkward.json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        return file.path
    }

    /// Runs a command line with `/bin/sh`, the build's plugins on `GST_PLUGIN_PATH`, no display; waits for it
    /// to exit (at most `timeout` seconds, a guard against a hang, not a speed limit).
    func shell(_ command: String, timeout: Double = 180) throws -> (status: Int32, out: String, err: String) {
        let plugin = "\(Self.products)/libgstswiftfilter.so"
        try #require(FileManager.default.fileExists(atPath: plugin), "the plugin is built at \(plugin)")
        var environment = ProcessInfo.processInfo.environment
        environment["GST_PLUGIN_PATH"] = Self.products
        environment.removeValue(forKey: "DISPLAY")
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        return try ChildProcess.run(["/bin/sh", "-c", command], environment: environment, timeout: timeout)
    }
}
