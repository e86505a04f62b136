import Base
import Config
import Foundation
import GStreamer
import Testing

@testable import Capture

/// Warnings an encoder start gave, and a wait for them.
private final class Warnings: Sendable {
    let lines = Condition<[String]>([])

    func add(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }

    /// Waits until `count` warnings came (60 s at most, a safety net, not a limit under test).
    func wait(for count: Int) -> [String] {
        lines.wait(until: MonotonicClock.now + 60) { $0.count >= count ? $0 : nil } ?? all
    }
}

/// Encoded samples one subscriber got, and a wait for them.
private final class Samples: Sendable {
    let seen = Condition<(count: Int, caps: String?)>((0, nil))

    func take(_ sample: Sample) {
        seen.withLock { $0 = ($0.count + 1, sample.caps?.description ?? $0.caps) }
    }

    /// Waits until `count` samples came (60 s at most, a safety net).
    @discardableResult
    func wait(for count: Int) -> (count: Int, caps: String?) {
        seen.wait(until: MonotonicClock.now + 60) { $0.count >= count ? $0 : nil } ?? seen.withLock { $0 }
    }
}

/// A live camera stand-in: a test pattern into `tee name=t`, for a live encoder or a recording to hang on.
private func camera(frames: Int = -1) throws -> (Pipeline, Element) {
    let camera = try Pipeline.parse(
        "videotestsrc is-live=true num-buffers=\(frames) pattern=ball ! "
            + "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! tee name=t allow-not-linked=true")
    try camera.setState(.playing)
    return (camera, try #require(camera.element(named: "t")))
}

@Suite("Encoder choice")
struct EncoderChoiceTests {
    static let everything: @Sendable (String) -> Bool = { _ in true }

    /// Hardware first (V4L2 M2M, VA-API, gstreamer-vaapi, NVENC), then x264, OpenH264, VP8, VP9; what is absent is
    /// skipped.
    @Test func theOrderIsHardwareFirstAndSkipsWhatIsAbsent() {
        let all = EncoderChoice.live(named: nil, available: Self.everything, failures: FailedEncoders())
        #expect(
            all.usable.map(\.element) == [
                "v4l2h264enc", "vah264enc", "vaapih264enc", "nvh264enc", "x264enc", "openh264enc", "vp8enc", "vp9enc"
            ])
        let software: Set = ["x264enc", "openh264enc", "vp8enc"]
        #expect(
            EncoderChoice.live(named: nil, available: { software.contains($0) }, failures: FailedEncoders()).chosen?.element == "x264enc")
        #expect(EncoderChoice.live(named: nil, available: { $0 == "vp8enc" }, failures: FailedEncoders()).chosen?.codec == .vp8)
        #expect(EncoderChoice.live(named: nil, available: { _ in false }, failures: FailedEncoders()).chosen == nil)
        // Recordings: h264 never falls back to VP8; vp8 and mjpeg are one encoder each.
        #expect(EncoderChoice.record(.h264, available: Self.everything, failures: FailedEncoders()).usable.allSatisfy { $0.codec == .h264 })
        #expect(EncoderChoice.record(.vp8, available: Self.everything, failures: FailedEncoders()).usable.map(\.element) == ["vp8enc"])
        #expect(EncoderChoice.record(.mjpeg, available: Self.everything, failures: FailedEncoders()).usable.map(\.element) == ["jpegenc"])
        #expect(EncoderChoice.record(nil, available: Self.everything, failures: FailedEncoders()).chosen?.element == "v4l2h264enc")
    }

    /// A failure is remembered: later choices skip it; the warning names it and the one used instead. A named
    /// encoder is used whatever failed before, and has no fallback.
    @Test func aFailedEncoderIsSkippedAndNamed() {
        let failures = FailedEncoders()
        let choice = EncoderChoice.live(named: nil, available: Self.everything, failures: failures)
        let v4l2 = choice.chosen!
        let (warning, next) = choice.fail(v4l2, reason: "no such device")
        #expect(warning == "encoder v4l2h264enc failed to start (no such device); using vah264enc instead")
        #expect(next?.element == "vah264enc")
        #expect(EncoderChoice.live(named: nil, available: Self.everything, failures: failures).chosen?.element == "vah264enc")
        let named = EncoderChoice.live(named: "v4l2h264enc", available: Self.everything, failures: failures)
        #expect(named.usable.map(\.element) == ["v4l2h264enc"])
        #expect(named.fail(v4l2, reason: "busy").next == nil)
    }

    /// A config naming an encoder SwiftCam does not know, or one this machine lacks, is a one-line error naming what it has.
    @Test func aNamedEncoderMustBeKnownAndInstalled() throws {
        let here: Set = ["x264enc", "vp8enc", "jpegenc"]
        let available: @Sendable (String) -> Bool = { here.contains($0) }
        let unknown = try #require(EncoderChoice.problem(withLiveEncoder: "x265enc", available: available))
        #expect(unknown.hasPrefix("'x265enc' is not an encoder SwiftCam knows: use auto, v4l2h264enc,"), "\(unknown)")
        #expect(unknown.hasSuffix("this machine has x264enc, vp8enc"), "\(unknown)")
        #expect(EncoderChoice.problem(withLiveEncoder: "jpegenc", available: available)?.contains("not an encoder SwiftCam knows") == true)
        #expect(
            EncoderChoice.problem(withLiveEncoder: "nvh264enc", available: available)
                == "nvh264enc is not installed here; this machine has x264enc, vp8enc (see 'swiftcam encoders')")
        #expect(EncoderChoice.problem(withLiveEncoder: "x264enc", available: available) == nil)
        #expect(
            EncoderChoice.problem(withRecordEncoder: .h264, available: { $0 == "vp8enc" })?.hasPrefix("no h264 encoder is installed here")
                == true)
        #expect(EncoderChoice.problem(withRecordEncoder: .mjpeg, available: available) == nil)
        // Through the loader, at the key.
        #expect(throws: ConfigError.self) {
            try ConfigLoader.load(data: Data(#"{"sources":[{"kind":"test"}],"live":{"encoder":"x265enc"}}"#.utf8), file: "t.json")
        }
        do {
            _ = try ConfigLoader.load(data: Data(#"{"sources":[{"kind":"test"}],"record":{"encoder":"nosuchenc"}}"#.utf8), file: "t.json")
            Issue.record("an unknown record.encoder validated")
        } catch {
            #expect("\(error)".hasPrefix("t.json: record.encoder: 'nosuchenc' is not an encoder SwiftCam knows"), "\(error)")
            #expect(!"\(error)".contains("\n"))
        }
        let config = try ConfigLoader.load(
            data: Data(#"{"sources":[{"kind":"test"}],"record":{"encoder":"vp8enc"},"live":{"encoder":"auto"}}"#.utf8),
            file: "t.json")
        #expect(config.record?.encoder == .element("vp8enc") && config.live?.encoder == "auto")
    }
}

/// The same choice with stand-in elements registered under the hardware encoders' names (this machine has no such
/// hardware; see `EncoderStandIns`).
@Suite("Encoder fallback with stand-ins")
struct EncoderStandInTests {
    /// With a working hardware stand-in present (and the failing ones out of the way) it is chosen, and encodes.
    @Test func aWorkingHardwareEncoderIsChosen() throws {
        try #require(EncoderStandIns.register(), "x264enc, which the stand-ins are made of, is not installed")
        let failing: Set = [EncoderStandIns.refusing, EncoderStandIns.erroring]
        let choice = EncoderChoice.live(
            named: nil, available: { !failing.contains($0) && Element.factoryExists($0) }, failures: FailedEncoders())
        #expect(choice.chosen?.element == EncoderStandIns.working)
        let (camera, tee) = try camera()
        defer { try? camera.setState(.null) }
        let warnings = Warnings()
        let encoder = LiveEncoder(format: .video, session: "standin", choice: choice, warn: warnings.add) { (camera, tee) }
        let samples = Samples()
        let subscription = try encoder.subscribe(samples.take)
        let seen = samples.wait(for: 10)
        subscription.cancel()
        encoder.shutdown()
        #expect(seen.count >= 10)
        #expect(seen.caps?.hasPrefix("video/x-h264") == true, "\(seen.caps ?? "no caps")")
        #expect(encoder.encoderElement == EncoderStandIns.working)
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    /// The live encoder falls back past an encoder whose state change fails and one that errors before its first
    /// frame; each warning names the failed encoder and the next; frames flow; a later start goes straight to the one
    /// that works.
    @Test func theLiveEncoderFallsBack() throws {
        try #require(EncoderStandIns.register(), "x264enc, which the stand-ins are made of, is not installed")
        let failures = FailedEncoders()
        let (camera, tee) = try camera()
        defer { try? camera.setState(.null) }
        let warnings = Warnings()
        let encoder = LiveEncoder(format: .video, session: "fallback", choice: .live(named: nil, failures: failures), warn: warnings.add) {
            (camera, tee)
        }
        let samples = Samples()
        let subscription = try encoder.subscribe(samples.take)
        let seen = samples.wait(for: 10)
        let lines = warnings.wait(for: 2)
        subscription.cancel()
        encoder.shutdown()
        #expect(seen.count >= 10, "the stream stayed dead: \(lines)")
        #expect(seen.caps?.hasPrefix("video/x-h264") == true, "\(seen.caps ?? "no caps")")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("encoder v4l2h264enc failed to start (") == true, "\(lines)")
        #expect(lines.first?.hasSuffix("using vah264enc instead") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("encoder vah264enc failed to start (") == true, "\(lines)")
        #expect(lines.last?.contains("no VA display for the stand-in") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("using nvh264enc instead") == true, "\(lines)")
        #expect(encoder.encoderElement == EncoderStandIns.working)
        #expect(encoder.failureReason == lines.last, "the live stats say what happened")
        #expect(failures.reason(for: "v4l2h264enc") != nil && failures.reason(for: "vah264enc") != nil)
        // The next encoder of this process goes straight to the one that works.
        let again = Warnings()
        let later = LiveEncoder(format: .video, session: "later", choice: .live(named: nil, failures: failures), warn: again.add) {
            (camera, tee)
        }
        let more = Samples()
        let second = try later.subscribe(more.take)
        #expect(more.wait(for: 5).count >= 5)
        second.cancel()
        later.shutdown()
        #expect(later.encoderElement == EncoderStandIns.working)
        #expect(again.all.isEmpty, "\(again.all)")
    }

    /// A recording falls back the same way, and the file decodes as H.264.
    @Test func aRecordingFallsBackAndDecodes() throws {
        try #require(EncoderStandIns.register(), "x264enc, which the stand-ins are made of, is not installed")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("encoders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fallback.mkv").path
        let config = try ConfigLoader.load(data: Data(#"{"sources":[{"kind":"test"}],"record":{"encoder":"h264"}}"#.utf8), file: "t.json")
        let builder = PipelineBuilder(config: config, hasDisplay: false)
        let (camera, tee) = try camera(frames: 90)
        defer { try? camera.setState(.null) }
        let warnings = Warnings()
        let recorder = try Recorder(
            pipeline: camera, tee: tee, choice: .record(.h264, failures: FailedEncoders()), path: path,
            graph: { builder.recordingGraph(location: path, encoder: $0) }, onWarning: warnings.add
        ) { reason in
            Issue.record("the recording failed: \(reason)")
        }
        let lines = warnings.wait(for: 2)
        // The camera's 90 frames (3 s) are through: the recording has what reached it.
        let end = camera.bus.waitForEnd(timeout: 60)
        if case .eos = end {} else { Issue.record("the camera did not end: \(String(describing: end))") }
        #expect(recorder.finish(), "\(recorder.failureReason ?? "its end was not written")")
        #expect(recorder.encoderElement == EncoderStandIns.working)
        #expect(
            lines.map { $0.prefix(while: { $0 != "(" }) } == ["encoder v4l2h264enc failed to start ", "encoder vah264enc failed to start "],
            "\(lines)")
        let (frames, endedCleanly) = try decodeRecording(path, decoder: "h264parse ! openh264dec")
        #expect(endedCleanly, "the file ends cleanly")
        #expect(frames >= 30, "\(frames) frames decode")
    }

    /// A config that names an encoder gets exactly that one: x264enc although hardware stand-ins come first; a named
    /// encoder that fails is not replaced, and the error names it.
    @Test func aNamedEncoderIsUsedAlone() throws {
        try #require(EncoderStandIns.register(), "x264enc, which the stand-ins are made of, is not installed")
        let (session, folder) = try scratchSession(
            """
            {"sources":[{"kind":"test"}],"caps":{"width":160,"height":120,"framerate":"30/1"},"live":{"encoder":"x264enc"}}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let samples = Samples()
        let subscription = try session.subscribeLive(.video) { samples.take($0) }
        #expect(samples.wait(for: 5).count >= 5)
        subscription.cancel()
        #expect(session.liveStats(.video).encoder == "x264enc")

        let (camera, tee) = try camera()
        defer { try? camera.setState(.null) }
        let warnings = Warnings()
        let named = LiveEncoder(
            format: .video, session: "named", choice: .live(named: EncoderStandIns.refusing, failures: FailedEncoders()),
            warn: warnings.add
        ) { (camera, tee) }
        #expect(throws: SessionError.self) { try named.subscribe { _ in } }
        #expect(warnings.all.count == 1 && warnings.all.first?.hasPrefix("encoder v4l2h264enc failed to start") == true, "\(warnings.all)")
        #expect(warnings.all.first?.hasSuffix("the config names it, so there is no other") == true, "\(warnings.all)")
        #expect(named.encoderElement == EncoderStandIns.refusing)
    }

    /// `swiftcam encoders` lists the stand-ins as installed, the absent one as not, and chooses the first.
    @Test func theListingShowsTheStandIns() throws {
        try #require(EncoderStandIns.register(), "x264enc, which the stand-ins are made of, is not installed")
        let failures = FailedEncoders()
        let inventory = EncoderInventory.scan(failures: failures)
        let installed = Dictionary(uniqueKeysWithValues: inventory.encoders.map { ($0.element, $0.installed) })
        #expect(installed["v4l2h264enc"] == true && installed["vah264enc"] == true && installed["nvh264enc"] == true)
        #expect(installed["vaapih264enc"] == false)
        #expect(
            inventory.choices.first
                == .init(
                    use: "live", element: "v4l2h264enc",
                    order: ["v4l2h264enc", "vah264enc", "nvh264enc", "x264enc", "openh264enc", "vp8enc", "vp9enc"]))
        #expect(
            inventory.text.contains("  live: v4l2h264enc (then vah264enc, nvh264enc, x264enc, openh264enc, vp8enc, vp9enc)"),
            "\(inventory.text)")
        failures.record("v4l2h264enc", reason: "stand-in refused")
        let after = EncoderInventory.scan(failures: failures)
        #expect(after.choices.first?.element == "vah264enc")
        #expect(after.text.contains("failed here: stand-in refused"), "\(after.text)")
        #expect(after.json.contains("\"element\" : \"vah264enc\""), "\(after.json)")
    }
}
