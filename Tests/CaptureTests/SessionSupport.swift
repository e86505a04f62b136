import Base
import Config
import Foundation
import GStreamer

@testable import Capture

/// A session for a structured config (`DIR` in it becomes a new scratch folder), run in this process
/// without a display; the caller removes the folder.
func scratchSession(_ json: String, name: String = "t") throws -> (CaptureSession, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let text = json.replacingOccurrences(of: "DIR", with: folder.path)
    let config = try ConfigLoader.load(data: Data(text.utf8), file: "\(name).json")
    return (CaptureSession(name: name, config: config, builder: PipelineBuilder(config: config, hasDisplay: false)), folder)
}

/// Decodes the Matroska file at `path` with `decoder` (e.g. "jpegdec", "h264parse ! openh264dec") to its end: the frames
/// that came out, and whether the stream ended cleanly (each pull waits 10 s at most, a safety net).
func decodeRecording(_ path: String, decoder: String) throws -> (frames: Int, endedCleanly: Bool) {
    let decode = try Pipeline.parse("filesrc location=\"\(path)\" ! matroskademux ! \(decoder) ! appsink name=out sync=false")
    guard let sink = decode.element(named: "out", as: AppSink.self) else { return (0, false) }
    try decode.setState(.playing)
    defer { try? decode.setState(.null) }
    var frames = 0
    while sink.pullSample(timeout: 10) != nil { frames += 1 }
    return (frames, sink.isEndOfStream)
}

extension CaptureSession {
    /// Re-checks `condition` at each frame that leaves the filter, blocking on the frame (not a clock) in between,
    /// until it holds; gives up after `frames` more frames, or when no frame comes for `stall` seconds (a safety net).
    /// Returns whether it held.
    func wait(frames: Int = 250, stall: Double = 20, until condition: () -> Bool) -> Bool {
        let start = framesFiltered
        while !condition() {
            guard framesFiltered - start < frames, waitForFrames(1, timeout: stall) >= 1 else { return condition() }
        }
        return true
    }

    /// Blocks until the session's state (status, recoveries, …) satisfies `condition`, woken by each change of it;
    /// false when `timeout` seconds pass first (a safety net).
    func waitForState(timeout: Double, _ condition: (SessionState) -> Bool) -> Bool {
        state.wait(until: MonotonicClock.now + timeout) { condition($0) ? true : nil } ?? false
    }
}
