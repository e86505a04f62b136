import Capture
import Foundation
import Testing

/// The repository's own folders, found from this source file.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let pipelines = root.appendingPathComponent("pipelines").path
    static let brokenConfigs = root.appendingPathComponent("Tests/CaptureTests/BrokenConfigs").path
}

@Suite("Configs")
struct ConfigTests {
    @Test func everyShippedConfigValidates() throws {
        let store = ConfigStore(directory: Repository.pipelines)
        let names = store.names()
        for required in ["demo", "preview", "snapshot", "switch", "switch-cameras", "record", "launch-sepia"] {
            #expect(names.contains(required), "pipelines/\(required).json is shipped")
        }
        for name in names {
            let config = try store.load(name)
            let description = try #require(config.description, "\(name) has a description")
            #expect(!description.isEmpty && !description.contains("\n"))
        }
    }

    /// Each broken config, and the JSON path its error must name.
    static let broken: [(file: String, path: String, mentions: String)] = [
        ("unknown-key", "filtre", "unknown key"),
        ("unknown-source-key", "sources[0].patern", "unknown key"),
        ("wrong-type-width", "caps.width", "whole number"),
        ("bad-filter", "filter", "vignete"),
        ("bad-filter-range", "filter", "intensity"),
        ("missing-source", "sources", "missing source"),
        ("empty-sources", "sources", "missing source"),
        ("bad-kind", "sources[0].kind", "v4l2, test, file"),
        ("bad-caps-framerate", "caps.framerate", "frame rate"),
        ("bad-caps-format", "caps.format", "NV12"),
        ("bad-caps-size", "caps.width", "outside"),
        ("unknown-element", "launch", "nosuchelement"),
        ("launch-bad-chain", "launch", "nosuch"),
        ("launch-and-sources", "sources", "launch"),
        ("v4l2-without-device", "sources[0].device", "/dev/video0"),
        ("too-many-sources", "sources", "at most two"),
        ("bad-pattern", "sources[0].pattern", "plaid"),
        ("bad-still-quality", "still.quality", "1…100"),
        ("bad-preview", "preview", "auto, window, none"),
        ("bad-rotate", "rotate", "90"),
        ("not-json", "", "not valid JSON"),
        ("not-an-object", "", "JSON object"),
        ("bad-record-container", "record.container", "matroska, mp4"),
    ]

    @Test(arguments: broken)
    func brokenConfigIsRejectedNamingTheKey(file: String, path: String, mentions: String) {
        let location = "\(Repository.brokenConfigs)/\(file).json"
        #expect {
            _ = try ConfigLoader.load(file: location)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            let text = error.description
            return error.path == path && error.file == location && text.contains(mentions) && !text.contains("\n")
        }
    }

    @Test func everyBrokenConfigIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.brokenConfigs).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 12)
        #expect(Set(files.map { String($0.dropLast(5)) }) == Set(Self.broken.map(\.file)))
    }

    @Test func overridesSetAnyKeyAndAreValidated() throws {
        let store = ConfigStore(directory: Repository.pipelines)
        let config = try store.load("preview", overrides: ["sources.0.device=/dev/video7", "caps.width=320", "filter=mono | invert", "still.every=1.5"])
        #expect(config.sources?.first?.device == "/dev/video7")
        #expect(config.caps?.width == 320)
        #expect(config.filter == "mono | invert")
        #expect(config.still?.every == 1.5)
        #expect(throws: ConfigError.self) { try store.load("preview", overrides: ["caps.widht=3"]) }
        #expect(throws: ConfigError.self) { try store.load("preview", overrides: ["filter=nosuch"]) }
        #expect(throws: ConfigError.self) { try store.load("preview", overrides: ["novalue"]) }
        #expect(throws: ConfigError.self) { try store.load("no-such-config") }
        #expect(throws: ConfigError.self) { try store.load("../etc") }
    }
}

@Suite("Pipeline builder")
struct PipelineBuilderTests {
    @Test func filterSitsBeforeTheTeeAndEveryBranchLeaks() throws {
        let config = try ConfigStore(directory: Repository.pipelines).load("demo")
        let text = PipelineBuilder(config: config, hasDisplay: false).launchDescription
        let filter = try #require(text.range(of: "swiftfilter name=filter"))
        let tee = try #require(text.range(of: "tee name=split"))
        #expect(filter.upperBound < tee.lowerBound)
        let branches = text.components(separatedBy: "split. ! ").dropFirst()
        #expect(branches.count >= 2)
        #expect(branches.allSatisfy { $0.hasPrefix("queue") && $0.contains("leaky=downstream") })
        #expect(text.contains("fakesink name=preview"), "no display: preview goes to a fake sink")
        #expect(!text.contains("jpegenc"), "stills are encoded on demand, not per frame")
        let windowed = PipelineBuilder(config: config, hasDisplay: true).launchDescription
        #expect(windowed.contains("autovideosink name=preview"))
    }

    @Test func builtGraphHasTheNamedElements() throws {
        let config = try ConfigStore(directory: Repository.pipelines).load("switch")
        let pipeline = try PipelineBuilder(config: config, hasDisplay: false).build()
        for name in ["filter", "split", "selector", "source0", "source1", "still-frames", "preview"] {
            #expect(pipeline.element(named: name) != nil, "\(name) exists")
        }
    }
}
