import Base
import Capture
import Config
import Foundation
import GStreamer
import TestSupport
import Testing

/// A built graph as data to compare: every element under a stable key with all its properties as
/// GStreamer serializes them, and every link between pads. An element GStreamer named itself
/// (`queue3`) is keyed by the element upstream of it, since automatic names differ from build to build.
struct GraphSnapshot: Equatable, CustomStringConvertible {
    /// Key → factory.
    var factories: [String: String] = [:]
    /// Key → property → serialized value ("(none)" when it has no text form).
    var properties: [String: [String: String]] = [:]
    /// "key.pad > key.pad".
    var links: Set<String> = []
    /// Elements whose keys collided (two unnamed twins after the same element): must stay empty.
    var collisions: [String] = []

    init(_ pipeline: Pipeline) {
        let elements = pipeline.allElements
        var keys: [String: String] = [:]
        // "queue3", "capsfilter0", "inputselector1": the factory without dashes, then a number.
        func isAutomatic(_ element: Element) -> Bool {
            let digits = element.name.reversed().prefix(while: \.isNumber).count
            guard digits > 0, let factory = element.factoryName else { return false }
            return element.name.dropLast(digits) == factory.replacingOccurrences(of: "-", with: "")
        }
        func key(_ element: Element) -> String {
            if let known = keys[element.name] { return known }
            var result = element.name
            if isAutomatic(element) {
                let peer = element.pads.first { !$0.isSource }?.peer
                let upstream = peer.flatMap { pad in pad.parentElement.map { "\(key($0)).\(pad.name)" } }
                result = "\(upstream ?? "")>\(element.factoryName ?? "?")"
            }
            keys[element.name] = result
            return result
        }
        for element in elements {
            let name = key(element)
            if factories[name] != nil { collisions.append(name) }
            factories[name] = element.factoryName ?? "?"
            var values: [String: String] = [:]
            for property in element.propertyNames where property != "name" && property != "parent" {
                values[property] = element.serializedProperty(property) ?? "(none)"
            }
            properties[name] = values
            for pad in element.pads where pad.isSource {
                if let peer = pad.peer, let downstream = peer.parentElement {
                    links.insert("\(name).\(pad.name) > \(key(downstream)).\(peer.name)")
                }
            }
        }
    }

    var description: String {
        factories.keys.sorted().map { "\($0) (\(factories[$0]!))" }.joined(separator: ", ") + "; " + links.sorted().joined(separator: ", ")
    }

    /// What differs from `other`, one line per element or link, for a readable failure.
    func differences(from other: GraphSnapshot) -> [String] {
        var result: [String] = []
        for key in Set(factories.keys).union(other.factories.keys).sorted() where factories[key] != other.factories[key] {
            result.append("element \(key): \(factories[key] ?? "missing") vs \(other.factories[key] ?? "missing")")
        }
        for key in Set(properties.keys).intersection(other.properties.keys).sorted() {
            let mine = properties[key]!, theirs = other.properties[key]!
            for property in Set(mine.keys).union(theirs.keys).sorted() where mine[property] != theirs[property] {
                result.append("\(key).\(property): \(mine[property] ?? "missing") vs \(theirs[property] ?? "missing")")
            }
        }
        for link in links.symmetricDifference(other.links).sorted() {
            result.append("link \(link) only in \(links.contains(link) ? "the first" : "the second")")
        }
        return result
    }
}

/// A config from JSON built in the test, so awkward strings go in as JSON values.
func config(_ object: [String: Any]) throws -> PipelineConfig {
    try ConfigLoader.load(data: JSONSerialization.data(withJSONObject: object), file: "test.json")
}

@Suite("Typed graphs")
struct GraphTests {
    static let shipped = ConfigStore(directory: Repository.pipelines).names()

    /// The text `show` prints for a structured config parses back to exactly the graph the builder makes.
    @Test(arguments: shipped, [false, true])
    func launchTextParsesToTheBuiltGraph(name: String, hasDisplay: Bool) throws {
        let loaded = try ConfigStore(directory: Repository.pipelines).load(name)
        let builder = PipelineBuilder(config: loaded, hasDisplay: hasDisplay)
        let built = try builder.build()
        let parsed = try Pipeline.parse(builder.launchDescription)
        let expected = GraphSnapshot(built), actual = GraphSnapshot(parsed)
        #expect(expected.collisions.isEmpty && actual.collisions.isEmpty)
        #expect(expected.factories.count == built.allElements.count)
        #expect(actual == expected, "\(actual.differences(from: expected))")
    }

    /// Device paths a shell or the launch parser would split, quote or read as links.
    static let awkwardDevices = [
        "/dev/video 0", "/dev/it's", "/dev/say \"hi\"", "/dev/a!b", "/dev/a=b",
        "/dev/v 0\"'!=x", "/dev/x ! fakesink videotestsrc", "/dev/\"quoted\"", "/dev/back\\slash", "/dev/caméra"
    ]

    @Test(arguments: awkwardDevices)
    func awkwardDeviceIsOnePropertyValueAndNothingElse(device: String) throws {
        let caps: [String: Any] = ["width": 320, "height": 240, "framerate": "25/1"]
        let plain = PipelineBuilder(
            config: try config(["sources": [["kind": "v4l2", "device": "/dev/video0"]], "caps": caps]),
            hasDisplay: false)
        let awkward = PipelineBuilder(
            config: try config(["sources": [["kind": "v4l2", "device": device]], "caps": caps]),
            hasDisplay: false)
        let pipeline = try awkward.build()
        let sources = pipeline.allElements.filter { $0.factoryName == "v4l2src" }
        #expect(sources.count == 1)
        #expect(try sources.first?.get("device", as: String.self) == device)
        // Everything else is the graph of an ordinary device.
        var expected = GraphSnapshot(try plain.build())
        expected.properties["source0"]?["device"] = try #require(sources.first?.serializedProperty("device"))
        let actual = GraphSnapshot(pipeline)
        #expect(actual == expected, "\(actual.differences(from: expected))")
        // And the printed text carries it to the parser intact.
        let parsed = GraphSnapshot(try Pipeline.parse(awkward.launchDescription))
        #expect(parsed == actual, "\(parsed.differences(from: actual))")
    }

    static let awkwardFileNames = ["clip one.mkv", "it's.mkv", "say \"hi\".mkv", "a!b.mkv", "a=b.mkv", "v 0\"'!=x ! fakesink.mkv"]

    /// A file source with an awkward path is one `uridecodebin` whose URI names exactly that file, and the
    /// graph plays the file to its end (the decoder's pad appears late and is linked then).
    @Test(arguments: awkwardFileNames)
    func awkwardFilePathPlaysToTheEnd(fileName: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(fileName).path
        try writeClip(to: path, frames: 8)

        let caps: [String: Any] = ["width": 64, "height": 48, "format": "I420"]
        let builder = PipelineBuilder(config: try config(["sources": [["kind": "file", "path": path]], "caps": caps]), hasDisplay: false)
        let pipeline = try builder.build()
        let sources = pipeline.allElements.filter { $0.factoryName == "uridecodebin" }
        #expect(sources.count == 1)
        let uri = try #require(try sources.first?.get("uri", as: String.self))
        #expect(URL(string: uri)?.path == path)
        let parsed = GraphSnapshot(try Pipeline.parse(builder.launchDescription))
        #expect(parsed == GraphSnapshot(pipeline), "\(parsed.differences(from: GraphSnapshot(pipeline)))")

        let bus = pipeline.bus
        // Counted before the leaky branch queues, which may drop on a loaded machine.
        let filter = try #require(pipeline.element(named: PipelineBuilder.Names.filter))
        let frames = try filter.staticPad("src").countBuffers().counter
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }
        let end = bus.waitForEnd(timeout: 60)
        guard case .eos? = end else {
            Issue.record("no end of stream: \(end?.description ?? "timed out")")
            return
        }
        #expect(frames.value == 8)
    }

    /// The recording and still-encoder graphs name what the session looks up, and carry the path as one value.
    @Test func recordingGraphCarriesItsPathAsOneValue() throws {
        let location = "/tmp/rec ording \"1\" 'a' !b =c.mkv"
        let builder = PipelineBuilder(config: try config(["sources": [["kind": "test"]], "record": ["encoder": "mjpeg"]]))
        let recording = try builder.recordingGraph(location: location).build()
        #expect(try recording.element(named: "record-file")?.get("location", as: String.self) == location)
        #expect(recording.element(named: "record-src", as: AppSrc.self) != nil)
        let parsed = try Pipeline.parse(builder.recordingLaunchDescription(location: location))
        #expect(GraphSnapshot(parsed) == GraphSnapshot(recording), "\(GraphSnapshot(parsed).differences(from: GraphSnapshot(recording)))")
        let feed = try PipelineBuilder.feedGraph(name: "record", backlog: 8).buildBin()
        #expect(feed.element(named: "record-tap", as: AppSink.self) != nil)
        #expect((try? feed.staticPad("sink")) != nil)
        let still = try PipelineBuilder.stillEncoderGraph(format: .jpeg, quality: 77).build()
        #expect(try still.allElements.first { $0.factoryName == "jpegenc" }?.get("quality", as: Int.self) == 77)
    }
}

/// A `file` source played as fast as it decoded (60 frames at "0.0 fps", 37 queue drops): it is paced on the
/// pipeline clock like a camera, unless the config asks for `"realtime": false`.
@Suite("File sources")
struct FileSourceTests {
    @Test func aFilePlaysAtItsOwnFrameRate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clip.mkv").path
        try writeClip(to: path, frames: 8)  // 10 fps: the last frame is 0.7 s after the first
        let caps: [String: Any] = ["width": 64, "height": 48, "format": "I420"]
        let builder = PipelineBuilder(config: try config(["sources": [["kind": "file", "path": path]], "caps": caps]), hasDisplay: false)
        let pipeline = try builder.build()
        #expect(try pipeline.element(named: PipelineBuilder.Names.pace(0))?.get("sync", as: Bool.self) == true)
        // When each frame leaves the filter, on the monotonic clock: frames may come late on a loaded machine, never early.
        // The first frame may be late too, so the span is measured from the moment the pipeline was asked to play.
        let seen = Locked<[Double]>([])
        let filter = try #require(pipeline.element(named: PipelineBuilder.Names.filter))
        _ = try filter.staticPad("src").onBuffer { _ in seen.withLock { $0.append(MonotonicClock.now) } }
        let bus = pipeline.bus
        let asked = MonotonicClock.now
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }
        guard case .eos? = bus.waitForEnd(timeout: 60) else {
            Issue.record("no end of stream")
            return
        }
        let times = seen.withLock { $0 }
        #expect(times.count == 8)
        let span = (times.last ?? 0) - asked
        #expect(span >= 0.65, "the 8th frame at 10 fps left the filter \(span) s after play was asked: not paced")

        let fast = PipelineBuilder(
            config: try config(["sources": [["kind": "file", "path": path, "realtime": false]], "caps": caps]),
            hasDisplay: false)
        #expect(try fast.build().element(named: PipelineBuilder.Names.pace(0)) == nil)
        #expect(throws: ConfigError.self) { try config(["sources": [["kind": "test", "realtime": false]]]) }
    }
}
