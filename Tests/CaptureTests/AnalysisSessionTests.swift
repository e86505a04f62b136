import Analysis
import Base
import Control
import Foundation
import GStreamer
import Testing

@testable import Capture

/// An analyser that takes ten frame intervals per frame, measured in frames: it waits until ten more frames have
/// left the session's filter. Were the pipeline waiting for it, those frames would never come.
final class TenFramesAnalyzer: FrameAnalyzer {
    let name = "slow"
    weak var session: CaptureSession?
    let waits = Locked<[Int]>([])

    func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        let seen = session?.waitForFrames(10, timeout: 60) ?? 0
        waits.withLock { $0.append(seen) }
        return [AnalysisEvent(source: name, kind: "done", time: frame.time)]
    }
}

@Suite(.serialized) struct AnalysisSessionTests {
    @Test func slowAnalyzerDropsFramesWithoutSlowingTheCamera() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources": [{"kind": "test", "pattern": "ball"}], "caps": {"width": 320, "height": 240, "framerate": 30, "format": "NV12"},
             "preview": "none"}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        let slow = TenFramesAnalyzer()
        slow.session = session
        let events = Locked(0)
        let subscription = session.subscribeEvents { event in if event.source == "slow" { events.withLock { $0 += 1 } } }
        session.addAnalyzer(slow)
        try session.start()
        session.waitUntilDone(frames: 120)
        // Frames the filter passes after this, while the stop detaches the feed, need not reach the analyser.
        let filteredBeforeStop = session.framesFiltered
        // Stopping lets go of the feed and waits for the frame under analysis: the counts then add up.
        session.stop()
        subscription.cancel()
        let stats = session.stats
        let analyser = try #require(stats.analysis?.first)
        let waits = slow.waits.withLock { $0 }
        // Every wait of ten frames ended with ten frames: the camera went on while the analyser was busy.
        #expect(!waits.isEmpty && waits.allSatisfy { $0 >= 10 }, "\(waits)")
        // Each analysed frame covered ten frame intervals, and the frames that came meanwhile were dropped and counted.
        #expect(analyser.analysed >= 2)
        #expect(analyser.analysed + analyser.dropped == analyser.frames)
        #expect(analyser.dropped >= 9 * (analyser.analysed - 1), "\(analyser)")
        // Every frame out of the filter reached the analyser (bar the few in flight, and those the branch queues
        // dropped on a busy machine), not one in ten: its queue, not the branch, dropped the rest.
        #expect(analyser.frames + stats.queueDrops >= filteredBeforeStop - 8, "\(analyser) of \(filteredBeforeStop)")
        #expect(events.withLock { $0 } == analyser.events)
        #expect(stats.events?["slow done"] == analyser.events)
        #expect(stats.line.contains("analysis slow \(analyser.analysed)/\(analyser.frames) drops \(analyser.dropped)"))
    }

    /// The scene file: three seconds still, a square crossing in one second, three seconds still; motion with a half-second
    /// cooldown, a still per event, a recording from two seconds before to one second after.
    @Test func motionTriggersAStillAndARecordingWithPreRoll() throws {
        let scene = MotionScene(frames: 210, motionStart: 90, motionFrames: 30)
        let (session, folder) = try scratchSession(
            """
            {"sources": [{"kind": "file", "path": "DIR/scene.mkv"}], "caps": {"format": "I420"}, "preview": "none",
             "still": {"directory": "DIR/stills"},
             "analyze": [{"motion": {"cooldown": 0.5}}],
             "triggers": {"still": {"minInterval": 1}, "record": {"preRoll": 2, "postRoll": 1, "directory": "DIR/events"}}}
            """, name: "cam")
        defer { try? FileManager.default.removeItem(at: folder) }
        try scene.write(to: folder.appendingPathComponent("scene.mkv").path)
        let seen = Locked<[AnalysisEvent]>([])
        let subscription = session.subscribeEvents { event in seen.withLock { $0.append(event) } }
        try session.start()
        session.waitUntilDone()
        session.drainAnalysis()
        session.stop()
        subscription.cancel()
        let events = seen.withLock { $0 }
        try #require(events.map(\.name) == ["motion start", "motion end"], "\(events)")
        let start = events[0], end = events[1]
        // The square first shows in frame 90: the event starts within three frames of it, by the frames' timestamps.
        #expect(start.time >= scene.time(scene.motionStart) && start.time <= scene.time(scene.motionStart + 3), "\(start)")
        #expect(end.time >= scene.time(scene.motionStart + scene.motionFrames))

        // One still, tagged.
        let stills = Gallery.items(in: [folder.appendingPathComponent("stills").path])
        #expect(stills.count == 1 && stills.first?.event == "motion" && stills.first?.path.contains("cam-motion-") == true, "\(stills)")

        // One recording, tagged, whose first frame is at least preRoll − 0.5 s before the event and whose last is postRoll
        // after the motion ended (within a frame).
        let (path, sidecar) = try Self.onlyMotionRecording(in: folder.appendingPathComponent("events").path)
        let first = try #require(sidecar["firstFrame"] as? Double), last = try #require(sidecar["lastFrame"] as? Double)
        let eventTime = Double(start.time) / 1e9, endTime = Double(end.time) / 1e9
        #expect(eventTime - first >= 2 - 0.5, "\(sidecar)")
        #expect(last >= endTime + 1 - 1.0 / 30 && last <= endTime + 1 + 2.0 / 30, "\(sidecar)")
        // The file holds that span: its frames' own timestamps run from 0 to last − first.
        let times = try frameTimes(path)
        #expect(times.first == 0)
        let span = Double(times.last ?? 0) / 1e9
        #expect(abs(span - (last - first)) < 0.05, "\(span) vs \(last - first)")
        #expect(times.count >= Int((last - first) * 30 * 0.9))
    }

    /// Motion from the first frame, before the live encoder has made one (it starts with the session): the event still
    /// gets its recording, from the encoder's first frame (it got none, and only the debug log said why).
    @Test func motionBeforeTheEncodersFirstFrameIsStillRecorded() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources": [{"kind": "test", "pattern": "smpte"}], "caps": {"width": 160, "height": 120, "framerate": 30, "format": "I420"},
             "preview": "none", "frames": 90, "analyze": [{"motion": {"minArea": 0.5}}],
             "triggers": {"record": {"preRoll": 2, "postRoll": 0.5, "directory": "DIR/events"}}}
            """, name: "early")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The pattern's moving corner is under the motion analyser's minArea: the event starts before the session (so before the encoder's first frame, as
        // a camera's first frames may already move), and this analyser ends it at its 60th frame.
        let recorder = try #require(session.analysis.triggers?.recorder)
        recorder.handle(AnalysisEvent(source: "motion", kind: "start", time: 0, area: 0.5))
        session.addAnalyzer(ScriptedMotion(startFrame: nil, endFrame: 60))
        try session.start()
        session.waitUntilDone(frames: 90)
        session.drainAnalysis()
        session.stop()
        let (path, sidecar) = try Self.onlyMotionRecording(in: folder.appendingPathComponent("events").path)
        // From the encoder's first frame to the event's end and its post-roll: about two seconds of frames.
        let first = try #require(sidecar["firstFrame"] as? Double), last = try #require(sidecar["lastFrame"] as? Double)
        let end = try #require(sidecar["end"] as? Double)
        #expect(first < end && last >= end + 0.5 - 1.0 / 30, "\(sidecar)")
        #expect(try frameTimes(path).count >= 45)
    }

    /// The one recording a motion event left in `folder`, and its sidecar's fields.
    static func onlyMotionRecording(in folder: String) throws -> (path: String, sidecar: [String: Any]) {
        let recordings = Gallery.items(in: [folder])
        try #require(recordings.count == 1 && recordings.first?.event == "motion", "\(recordings)")
        let path = try #require(recordings.first?.path)
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".event.json"))) as? [String: Any]
        return (path, sidecar ?? [:])
    }

    /// The timestamps of the encoded frames in a Matroska file, in order.
    func frameTimes(_ path: String) throws -> [UInt64] {
        let pipeline = try Pipeline.parse("filesrc location=\"\(path)\" ! matroskademux ! appsink name=out sync=false")
        guard let sink = pipeline.element(named: "out", as: AppSink.self) else { return [] }
        try pipeline.setState(.playing)
        defer { try? pipeline.setState(.null) }
        var times: [UInt64] = []
        while let sample = sink.pullSample(timeout: 10) { if let pts = sample.buffer?.pts { times.append(pts) } }
        return times.sorted()
    }
}

/// An analyser named "motion" that starts its event at its `startFrame`th frame (none when nil: the test started it)
/// and ends it at its `endFrame`th.
final class ScriptedMotion: FrameAnalyzer {
    let name = "motion"
    let startFrame: Int?, endFrame: Int
    private var seen = 0

    init(startFrame: Int?, endFrame: Int) {
        (self.startFrame, self.endFrame) = (startFrame, endFrame)
    }

    func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        seen += 1
        switch seen {
        case startFrame: return [AnalysisEvent(source: name, kind: "start", time: frame.time, area: 0.5)]
        case endFrame: return [AnalysisEvent(source: name, kind: "end", time: frame.time, area: 0)]
        default: return []
        }
    }
}

/// An analyser that makes an event of every fifth frame it analyses.
final class TickAnalyzer: FrameAnalyzer {
    let name = "tick"
    private var seen = 0

    func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        seen += 1
        return seen % 5 == 0 ? [AnalysisEvent(source: name, kind: "beat", time: frame.time, area: 0.5)] : []
    }
}

@Suite struct EventStreamTests {
    /// `events` on the control socket: the reply, then one line per event as it comes.
    @Test func controlSocketStreamsEvents() throws {
        let (session, folder) = try scratchSession(
            """
            {"sources": [{"kind": "test"}], "caps": {"width": 160, "height": 120, "framerate": 30, "format": "I420"}, "preview": "none"}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        session.addAnalyzer(TickAnalyzer())
        try session.start()
        defer { session.stop() }
        let name = "events-\(UUID().uuidString.prefix(8))"
        let server = try ControlServer(name: name, interpreter: CommandInterpreter(session: session, permissions: .console, onQuit: {}))
        defer { server.shutdown() }
        var lines: [String] = []
        let reply = try ControlSocket.streamEvents(from: name) { line in
            lines.append(line)
            return lines.count < 3
        }
        #expect(reply.isOK)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("event tick beat area=0.50 t=") }, "\(lines)")
        // The same events reach `stats` and the metrics.
        #expect((session.eventCounts["tick beat"] ?? 0) >= 3)
        #expect(session.metrics.analysis.first?.name == "tick")
    }
}
