public import Base
import Camera
import Config
import FoundationEssentials

/// The cameras present and their controls, as `swiftcam devices` and `swiftcam controls` print them: V4L2 cameras
/// from their own ioctls, and the cameras libcamera manages (listed by its `cam` tool in a child process). The video
/// nodes of a media-controller pipeline (a sensor's raw Bayer node, an ISP's) are stages of a libcamera camera, not
/// cameras: they are named once, not listed.
public struct CameraInventory: Sendable {
    private let reports: [DeviceReport]
    /// The cameras libcamera lists (none when libcamera's `cam` tool is not installed).
    public let libcameraCameras: [LibcameraCamera]
    /// Video nodes whose formats are set through their media controller (`V4L2_CAP_IO_MC`), left out of the list.
    public let mediaControllerNodes: [String]
    /// Video nodes this user may not open or that another program holds (worth saying, unlike output nodes).
    public let refusals: [any CategorizedError]

    /// Reads every `/dev/video*` node that opens as a camera, and asks libcamera for its cameras when `cam` is there.
    public static func scan(deviceDirectory: String = "/dev", libcamera: Bool = true) -> CameraInventory {
        var reports: [DeviceReport] = []
        var refusals: [any CategorizedError] = []
        var stages: [String] = []
        for path in videoNodes(in: deviceDirectory) {
            do {
                let report = try DeviceReport(path: path)
                if report.capabilities.contains(CameraInfo.mediaControllerName) {
                    stages.append(path)
                } else {
                    reports.append(report)
                }
            } catch {
                switch error {
                case .permissionDenied, .deviceBusy: refusals.append(error)
                default: break  // output, metadata and radio nodes are not cameras
                }
            }
        }
        let cameras = libcamera ? ((try? LibcameraDiscovery.scan()) ?? []) : []
        return CameraInventory(reports: reports, libcameraCameras: cameras, mediaControllerNodes: stages, refusals: refusals)
    }

    /// No camera could be read.
    public var isEmpty: Bool { reports.isEmpty && libcameraCameras.isEmpty }

    /// One block per camera: identity, formats, controls; then the media-controller nodes left out.
    public var text: String {
        var blocks = reports.map(\.description) + libcameraCameras.map(Self.describe)
        if !mediaControllerNodes.isEmpty {
            blocks.append(
                "not cameras by themselves: \(mediaControllerNodes.joined(separator: ", ")) (stages of a media-controller pipeline; "
                    + (libcameraCameras.isEmpty
                        ? "libcamera drives such cameras: install libcamera-tools and libcamera-ipa to list them)"
                        : "libcamera drives them as the camera above)"))
        }
        return blocks.joined(separator: "\n\n")
    }

    /// Every V4L2 camera's report, then every libcamera camera (`"kind": "libcamera"`), as pretty JSON.
    public var json: String {
        guard !libcameraCameras.isEmpty else { return prettyJSON(reports) }
        let entries = reports.map(Entry.v4l2) + libcameraCameras.map(Entry.libcamera)
        return prettyJSON(entries)
    }

    private enum Entry: Encodable {
        case v4l2(DeviceReport)
        case libcamera(LibcameraCamera)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case let .v4l2(report): try report.encode(to: encoder)
            case let .libcamera(camera):
                struct Tagged: Encodable {
                    let kind = "libcamera"
                    let camera: LibcameraCamera
                    let liveMode: String?
                    enum CodingKeys: String, CodingKey { case kind, id, name, defaultSize, defaultFormat, formats, liveMode }
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encode(kind, forKey: .kind)
                        try container.encode(camera.id, forKey: .id)
                        try container.encode(camera.name, forKey: .name)
                        try container.encodeIfPresent(camera.defaultSize, forKey: .defaultSize)
                        try container.encodeIfPresent(camera.defaultFormat, forKey: .defaultFormat)
                        try container.encode(camera.formats, forKey: .formats)
                        try container.encodeIfPresent(liveMode, forKey: .liveMode)
                    }
                }
                try Tagged(camera: camera, liveMode: CameraInventory.liveMode(of: camera)).encode(to: encoder)
            }
        }
    }

    /// The mode `swiftcam init` writes for a libcamera camera: its default size on the pipeline's step.
    static func liveMode(of camera: LibcameraCamera) -> String? {
        guard let plan = try? LibcameraPlan.make(source: SourceConfig(kind: .libcamera), caps: nil, camera: camera, socketPath: "") else {
            return nil
        }
        return "\(plan.streamFormat) \(plan.mode)"
    }

    /// A libcamera camera's block, like a V4L2 camera's: id, the stream's formats with their sizes, the controls.
    static func describe(_ camera: LibcameraCamera) -> String {
        var lines = ["\(camera.label): \(camera.id)", "Formats:"]
        if camera.formats.isEmpty { lines.append("  none read (`cam -c '\(camera.id)' -I` printed no stream)") }
        let live = liveMode(of: camera)
        for format in camera.formats {
            let gstreamer =
                LibcameraFormats.gstreamer[format.pixelFormat].map { " (GStreamer \($0))" } ?? " (not raw video to GStreamer)"
            var line = "  \(format.pixelFormat)\(gstreamer): \(format.minimum) to \(format.maximum)"
            if camera.sizeStep > 2 { line += ", sizes in multiples of \(camera.sizeStep)" }
            if let live, live.hasPrefix("\(format.pixelFormat) ") { line += "   <- live mode (swiftcam init): \(live)" }
            lines.append(line)
            if !format.sizes.isEmpty { lines.append("    listed: " + format.sizes.map(\.description).joined(separator: ", ")) }
        }
        lines.append("Controls:")
        lines.append(
            "  none through libcamerasrc 0.0.3 (it has only camera-name): brightness, contrast and saturation are done in software")
        return lines.joined(separator: "\n")
    }

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
