import Camera
public import Config
import FoundationEssentials

/// `swiftcam init` for a libcamera camera: a config in the camera's default size on its pipeline's step, with a still
/// branch and recordings. libcamerasrc 0.0.3 cannot ask a rate, so the config asks 30 fps and `videorate` brings the
/// camera's own rate to it; it sets no camera control, so none is written.
public struct LibcameraFirstConfig: Sendable {
    /// The config's name (`pipelines/NAME.json`).
    public let name: String
    /// How the camera's frames reach the config.
    public let plan: LibcameraPlan
    /// The file's text, validated when written.
    public let text: String

    /// The rate the config asks (the camera's own is not known to libcamerasrc 0.0.3).
    static let rate = "30/1"

    /// Lists libcamera's cameras (in a child process) and makes the config for `camera` (an id or a name as
    /// `swiftcam devices` lists it), or for the first.
    public static func make(name: String, camera id: String?) throws(FirstConfig.Failure) -> LibcameraFirstConfig {
        guard FirstConfig.isConfigName(name) else { throw .badName(name) }
        let camera: LibcameraCamera?
        do {
            camera = try LibcameraDiscovery.camera(id: id)
        } catch {
            throw .noCamera(error.description)
        }
        guard let camera else { throw .noCamera(LibcameraDiscovery.missing(id: id)) }
        let source = SourceConfig(kind: .libcamera, camera: camera.id)
        let open: LibcameraPlan
        do {
            open = try LibcameraPlan.make(source: source, caps: nil, camera: camera, socketPath: "")
            let caps = CapsConfig(width: open.mode.width, height: open.mode.height, framerate: rate, format: "NV12")
            let plan = try LibcameraPlan.make(source: source, caps: caps, camera: camera, socketPath: "")
            return LibcameraFirstConfig(name: name, plan: plan, text: render(plan: plan))
        } catch {
            throw .noCamera(error.description)
        }
    }

    /// Validates the text and writes it to `store`'s `NAME.json`, never over an existing file; returns the path.
    public func write(to store: ConfigStore) throws -> String {
        try FirstConfig.write(text, name: name, to: store)
    }

    /// The config's JSON, keys in the order a person reads them.
    static func render(plan: LibcameraPlan) -> String {
        let camera = plan.camera
        let quoted = FirstConfig.quoted
        return """
            {
              "description": \(quoted("\(camera.name) through libcamera, \(plan.streamFormat) \(plan.mode) (written by swiftcam init)")),
              "sources": [
                { "kind": "libcamera", "camera": \(quoted(camera.id)), "label": \(quoted(camera.name)) }
              ],
              "caps": { "width": \(plan.width), "height": \(plan.height), "framerate": "\(rate)", "format": \(quoted(plan.format)) },
              "preview": "auto",
              "still": { "format": "jpeg", "quality": 92, "directory": "captures" },
              "record": { "container": "matroska", "directory": "recordings" }
            }

            """
    }
}
