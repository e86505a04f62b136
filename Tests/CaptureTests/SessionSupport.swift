import Foundation
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
