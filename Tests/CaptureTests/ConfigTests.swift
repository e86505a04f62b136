import Base
import Camera
import Config
import Filters
import Foundation
import GStreamer
import Testing

@testable import Capture

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
        // A fraction where a whole number goes: Foundation gives no path, the loader finds it.
        ("fractional-frames", "frames", "whole number"),
        ("fractional-port", "publish.rtsp.port", "whole number"),
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
        ("rtmp-no-key", "publish.rtmp.url", "stream key"),
        ("rtmp-two-keys", "publish.rtmp[1]", "not both"),
        ("rtmp-unknown-key", "publish.rtmp.streamKey", "unknown key"),
        // JSON parsers keep one of two equal keys without a word.
        ("duplicate-key", "filter", "given twice"),
        ("duplicate-nested-key", "sources[1].pattern", "given twice")
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
        let config = try store.load(
            "preview", overrides: ["sources.0.device=/dev/video7", "caps.width=320", "filter=mono | invert", "still.every=1.5"])
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

    /// Numbers `validate` accepted used to crash `run` (a deadline of 1e308 seconds converted to `Int`): every
    /// number in seconds is bounded where it is read, and what loads goes through the session's arithmetic.
    @Test(arguments: [
        (#"{"sources":[{"kind":"test"}],"duration":1e308}"#, "duration"),
        (#"{"sources":[{"kind":"test"}],"duration":1e20}"#, "duration"),
        (#"{"sources":[{"kind":"test"}],"still":{"every":1e20}}"#, "still.every"),
        (#"{"sources":[{"kind":"test"}],"still":{"every":1e-300}}"#, "still.every")
    ])
    func hugeSecondsAreRefusedWhereRead(json: String, path: String) {
        #expect(throws: ConfigError.self) { try ConfigLoader.load(data: Data(json.utf8), file: "big.json") }
        do {
            _ = try ConfigLoader.load(data: Data(json.utf8), file: "big.json")
        } catch {
            #expect(error.path == path && error.reason.contains("1000000000"), "\(error)")
        }
    }

    /// The largest values that load are safe in every later step (the fuzz target checks the same on any input).
    @Test func theLargestSecondsThatLoadAreSafeLater() throws {
        let json = #"{"sources":[{"kind":"test"}],"duration":1000000000,"still":{"every":1000000000}}"#
        let config = try ConfigLoader.load(data: Data(json.utf8), file: "edge.json")
        let timing = SessionTiming(config)
        let now = MonotonicClock.now
        #expect(timing.deadline(from: now) == now + 1e9)
        #expect(timing.stillInterval == .nanoseconds(1_000_000_000_000_000_000))
        #expect(Condition(0).wait(until: timing.deadline(from: now)) { _ in 1 } == 1)
    }

    /// `record.container: mp4` with an encoder mp4mux does not take (VP8, JPEG) validated, and every `record start`
    /// failed: refused when the config is read, in one line naming both keys and what works.
    @Test(arguments: ["vp8", "mjpeg", "vp8enc", "jpegenc"])
    func mp4WithAnEncoderItCannotHoldIsRefused(encoder: String) {
        let json = #"{"sources":[{"kind":"test"}],"record":{"container":"mp4","encoder":"\#(encoder)"}}"#
        do {
            _ = try ConfigLoader.load(data: Data(json.utf8), file: "mp4.json")
            Issue.record("mp4 with \(encoder) loaded")
        } catch {
            #expect(
                error.path == "record" && error.reason.contains("\"container\": \"mp4\" holds H.264 only")
                    && error.reason.contains("\"encoder\": \"\(encoder)\"") && error.reason.contains("matroska"), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// `auto` (and no encoder) into MP4 chooses among the H.264 encoders only; into Matroska VP8 stays a fallback.
    @Test func autoIntoMP4ChoosesH264Only() throws {
        let everything: @Sendable (String) -> Bool = { _ in true }
        let mp4 = EncoderChoice.record(.auto, container: .mp4, available: everything, failures: FailedEncoders())
        #expect(!mp4.candidates.isEmpty && mp4.candidates.allSatisfy { $0.codec == .h264 })
        let onlyVP8 = EncoderChoice.record(nil, container: .mp4, available: { $0 == "vp8enc" }, failures: FailedEncoders())
        #expect(onlyVP8.chosen == nil)
        let matroska = EncoderChoice.record(.auto, container: .matroska, available: everything, failures: FailedEncoders())
        #expect(matroska.candidates.contains { $0.codec == .vp8 })
        let config = try ConfigLoader.load(
            data: Data(#"{"sources":[{"kind":"test"}],"record":{"container":"mp4"}}"#.utf8), file: "mp4.json")
        #expect(PipelineBuilder(config: config, hasDisplay: false).recordEncoders.candidates.allSatisfy { $0.codec == .h264 })
    }

    /// `café cam.json`: `list` called it invalid, `validate` ok, `run` refused the name. One rule now: any file name.
    @Test func aConfigNamedWithSpacesAndAccentsLoadsByName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = #"{"description": "the café", "sources": [{"kind": "test"}]}"#
        for name in ["café cam", "plain", ".hidden"] {
            try Data(json.utf8).write(to: folder.appendingPathComponent("\(name).json"))
        }
        let store = ConfigStore(directory: folder.path)
        #expect(store.names() == ["café cam", "plain"])
        for name in store.names() {
            #expect(try store.load(name).description == "the café")
            #expect(try ConfigLoader.load(file: store.path(of: name)).description == "the café")
        }
        #expect(throws: ConfigError.self) { try store.load(".hidden") }
        #expect(throws: ConfigError.self) { try store.load("a\u{1B}b") }
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

@Suite("Capture session")
struct SessionTests {
    func session(_ json: String, name: String = "t") throws -> (CaptureSession, URL) {
        try scratchSession(json, name: name)
    }

    @Test func tapDeliversFilteredFramesAndZoomIsClamped() throws {
        let (session, folder) = try session(
            """
            {"sources":[{"kind":"test","pattern":"solid-color"}],"caps":{"width":64,"height":48,"format":"RGBA"},
             "filter":"invert","tap":true,"still":{"directory":"DIR"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        let tap = try #require(session.tap)
        let frames = Counted()
        tap.onFrame { _ in frames.add() }
        session.waitUntilDone(frames: 10)
        tap.drain()
        #expect(frames.value >= 5)
        // videotestsrc solid-color defaults to white; inverted it is black.
        let sample = try #require(tap.latestFrame)
        let info = try #require(sample.videoInfo)
        let pixel = try #require(sample.buffer).withMappedVideoFrame(info) { frame in
            frame.withPlane(0) { bytes in [bytes[0], bytes[1], bytes[2], bytes[3]] }
        }
        #expect(pixel == [0, 0, 0, 255])
        #expect(try session.zoom(100) == "zoom 16.0 (digital) (clamped from 100)")
        #expect(try session.zoom(0.2) == "zoom 1.0 (digital) (clamped from 0.2)")
        #expect(try session.zoom(0) == "zoom 1.0 (digital) (clamped from 0)")
        #expect(try session.zoom(-1) == "zoom 1.0 (digital) (clamped from -1)")
        #expect(throws: SessionError.badCommand("zoom takes a factor from 1 to 16.0, e.g. zoom 2")) { try session.zoom(.nan) }
        #expect(session.stats.chain == "invert")
        #expect(try session.zoom(2) == "zoom 2.0 (digital)")
        let zoomed = try FilterChain(parsing: session.stats.chain)
        #expect((zoomed.filters.first as? Zoom)?.factor == 2 && zoomed.filters.count == 2)
        #expect(throws: SessionError.self) { try session.switchCamera() }
        #expect(throws: SessionError.self) { try session.torch(true) }
        #expect(throws: (any Error).self) { try session.setFilter("sepia intensity=9") }
        #expect(session.stats.chain.hasSuffix("invert"), "a rejected filter changes nothing")
        #expect(try session.exposure(ev: 100) == "exposure ev=10.0 (digital) (clamped from 100)")
        #expect(try session.exposure(ev: 0) == "exposure ev=0.0 (digital)")
        #expect(try session.adjust(.contrast, to: .normalized(3)) == "contrast 1.0 (digital) (clamped from 3)")
        let still = try session.snapshot()
        #expect(still.hasPrefix(folder.path) && still.hasSuffix(".jpg"))
        session.stop()
        #expect(session.tap == nil)
        #expect(throws: SessionError.notRunning) { try session.snapshot() }
    }

    /// A `snap` waits for the next frame without holding anything `stats` or `zoom` need.
    @Test func statsAndZoomAnswerWhileASnapWaitsForASlowFrame() throws {
        let (session, folder) = try session(
            """
            {"sources":[{"kind":"test"}],"caps":{"width":64,"height":48,"framerate":"1/10"},"still":{"directory":"DIR"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let stills = try #require(session.graph?.stillFrames)
        // The first frame is there; the next one is 10 s away, so the snap below waits (2 s, then takes this one).
        #expect(stills.frame(after: 0, until: MonotonicClock.now + 30) != nil)
        let snapped = Condition<Result<String, SessionError>?>(nil)
        let shutter = Thread {
            let result = Result { try session.snapshot() }.mapError { $0 as? SessionError ?? .snapshotFailed(reason: "\($0)") }
            snapped.withLock { $0 = result }
        }
        shutter.start()
        #expect(stills.waitForWaiter(until: MonotonicClock.now + 30), "the snap never waited for a frame")
        let stats = session.stats
        let zoom = try session.zoom(2)
        // Answered while the snap still waits for its frame, not merely before it finished encoding: a lock held
        // across the wait alone (2 s) would let these through only after it, with the encode still to come.
        let stillWaitingForFrame = stills.waitForWaiter(until: MonotonicClock.now)
        let stillWaiting = snapped.withLock { $0 == nil }
        #expect(stillWaitingForFrame, "stats and zoom were answered only after the snap's wait for a frame")
        #expect(stillWaiting, "stats and zoom were answered only after the snap")
        #expect(stats.status == "configured" && stats.stills == 0)
        #expect(zoom == "zoom 2.0 (digital)")
        let result = snapped.wait(until: MonotonicClock.now + 30) { $0 }
        let path = try #require(try result?.get())
        #expect(path.hasPrefix(folder.path))
        #expect(session.stats.stills == 1)
    }

    @Test func stopFinalizesARunningRecording() throws {
        let (session, folder) = try session(
            """
            {"sources":[{"kind":"test"}],"caps":{"width":160,"height":120,"framerate":"30/1"},
             "record":{"directory":"DIR","encoder":"mjpeg"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        let path = try session.startRecording()
        #expect(throws: SessionError.alreadyRecording(path: path)) { try session.startRecording() }
        session.waitUntilDone(duration: 1.5)
        #expect(session.status == .configured, "\(session.status)")
        #expect(session.stats.recording == path)
        session.stop()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? NSNumber)?.intValue ?? 0 > 1000)
        #expect(throws: SessionError.notRecording) { try session.stopRecording() }
    }

    /// `still.every` takes stills on its timer, each told as it is written and counted in `stats`.
    @Test func periodicStillsComeOnTheirTimer() throws {
        let (session, folder) = try session(
            #"{"sources":[{"kind":"test"}],"caps":{"width":64,"height":48},"still":{"directory":"DIR","every":0.2}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = DispatchSemaphore(value: 0)
        session.onEvent { event in
            if case .stillWritten = event { written.signal() }
        }
        try session.start()
        for _ in 0..<3 { #expect(written.wait(timeout: .now() + 30) == .success) }
        session.stop()
        let taken = session.stats.stills
        #expect(taken >= 3)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }
        // Every still counted is a file (one whose turn came just before the stop may still be ending).
        #expect(files.count >= taken && files.count <= taken + 1)
    }
}

/// A thread-safe tally.
final class Counted: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
