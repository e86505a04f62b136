import Camera
import Foundation

/// The cameras present and their controls, as `swiftcam devices` and `swiftcam controls` print them.
public struct CameraInventory: Sendable {
    private let reports: [DeviceReport]
    /// Video nodes this user may not open or that another program holds (worth saying, unlike output nodes).
    public let refusals: [any CategorizedError]

    /// Reads every `/dev/video*` node that opens as a camera.
    public static func scan(deviceDirectory: String = "/dev") -> CameraInventory {
        var reports: [DeviceReport] = []
        var refusals: [any CategorizedError] = []
        for path in videoNodes(in: deviceDirectory) {
            do {
                reports.append(try DeviceReport(path: path))
            } catch {
                switch error {
                case .permissionDenied, .deviceBusy: refusals.append(error)
                default: break  // output, metadata and radio nodes are not cameras
                }
            }
        }
        return CameraInventory(reports: reports, refusals: refusals)
    }

    /// No camera could be read.
    public var isEmpty: Bool { reports.isEmpty }

    /// One block per camera: identity, formats, controls.
    public var text: String { reports.map(\.description).joined(separator: "\n\n") }

    /// Every camera as pretty JSON.
    public var json: String { prettyJSON(reports) }

    /// The controls of the camera at `path`: text like `v4l2-ctl --list-ctrls`, and JSON.
    public static func controls(of path: String) throws -> (text: String, json: String) {
        let report = try DeviceReport(path: path)
        let text = report.controls.isEmpty ? "\(path) has no controls" : report.controls.map(\.description).joined(separator: "\n")
        return (text, prettyJSON(report.controls))
    }

    /// `/dev/video*`, sorted by number.
    static func videoNodes(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { "\(directory)/\($0)" }
    }
}

/// A value as pretty JSON with sorted keys and paths printed plainly (no `\/`).
func prettyJSON<Value: Encodable>(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "null" }
    return String(decoding: data, as: UTF8.self)
}
