public import Base
import Camera
public import Config
import FoundationEssentials
import Glibc

/// `swiftcam init`: a config for a camera found on this machine, in its best live mode, with a still branch and
/// the camera's control values as they are now.
public struct FirstConfig: Sendable {
    /// The config's name (`pipelines/NAME.json`).
    public let name: String
    /// The camera it is for.
    public let device: String
    /// How the camera's frames reach the config (`CameraPlan.summary`).
    public let plan: CameraPlan
    /// The file's text, validated.
    public let text: String

    /// Why `init` could not write a config.
    public enum Failure: CategorizedError, Equatable {
        /// No camera opened (or none at the path given); the reason lists what was tried.
        case noCamera(String)
        /// The name is not a config name.
        case badName(String)
        /// `pipelines/NAME.json` exists: nothing is overwritten.
        case exists(path: String)
        /// The file could not be written.
        case cannotWrite(path: String, reason: String)

        public var description: String {
            switch self {
            case let .noCamera(reason): reason
            case let .badName(name): "'\(name)' is not a config name: use lowercase letters, digits and '-', e.g. desk-camera"
            case let .exists(path): "\(path) exists; choose another name or remove it first (nothing was written)"
            case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
            }
        }

        public var kind: FailureKind {
            switch self {
            case .noCamera: .unavailable
            case .badName: .usage
            case .exists: .cannotCreate
            case .cannotWrite: .cannotCreate
            }
        }
    }

    /// Reads the camera at `device` (or the first camera that serves live video) and makes the config.
    public static func make(name: String, device: String?, deviceDirectory: String = "/dev") throws(Failure) -> FirstConfig {
        guard isConfigName(name) else { throw .badName(name) }
        let candidates = device.map { [$0] } ?? CameraInventory.videoNodes(in: deviceDirectory)
        var refusals: [String] = []
        for path in candidates {
            let camera: CameraDevice
            do {
                camera = try CameraDevice(path: path)
                // A stage of a media-controller pipeline (vimc's, a Raspberry Pi sensor's raw node) is libcamera's.
                if device == nil && camera.info.isMediaControllerNode { continue }
            } catch {
                // Output and metadata nodes are not cameras: worth naming only when the user named the device.
                if device != nil || error != .notACamera(path: path) { refusals.append(error.description) }
                continue
            }
            do {
                let formats = try camera.formats()
                let source = SourceConfig(kind: .v4l2, device: path)
                let best = try ModeChooser.choose(ModeRequest(), from: formats, path: path).mode
                let caps = CapsConfig(
                    width: best.width, height: best.height,
                    framerate: "\(best.interval.denominator)/\(best.interval.numerator)", format: "NV12")
                let plan = try CameraPlan.make(source: source, caps: caps, formats: formats)
                let settings = (try? camera.currentSettings()) ?? [:]
                let text = render(name: name, card: camera.identity.card, plan: plan, controls: settings)
                return FirstConfig(name: name, device: path, plan: plan, text: text)
            } catch let error as ModeChoiceError {
                refusals.append(error.description)
            } catch {
                refusals.append("\(error)")
            }
        }
        if refusals.isEmpty {
            throw .noCamera("no camera found: no /dev/video* node captures video here; connect one and run `swiftcam devices`")
        }
        throw .noCamera(refusals.joined(separator: "; "))
    }

    /// Whether `name` is a config name: lowercase letters, digits and '-', at most 64.
    static func isConfigName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
    }

    /// Validates the text and writes it to `store`'s `NAME.json`, never over an existing file; returns the path.
    public func write(to store: ConfigStore) throws -> String {
        try Self.write(text, name: name, to: store)
    }

    /// Validates `text` and writes it to `store`'s `NAME.json`, never over an existing file; returns the path.
    static func write(_ text: String, name: String, to store: ConfigStore) throws -> String {
        let path = store.path(of: name)
        _ = try ConfigLoader.load(data: Data(text.utf8), file: path)
        try? FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw Failure.exists(path: path) }
            throw Failure.cannotWrite(path: path, reason: SystemError.message(errno))
        }
        defer { close(descriptor) }
        if let code = SystemCall.writeAll(descriptor, text.utf8) {
            unlink(path)
            throw Failure.cannotWrite(path: path, reason: SystemError.message(code))
        }
        return path
    }

    /// The config's JSON, keys in the order a person reads them.
    static func render(name: String, card: String, plan: CameraPlan, controls: [String: Int64]) -> String {
        let mode = plan.choice.mode
        let rate = "\(plan.rate.denominator)/\(plan.rate.numerator)"
        var source = "{ \"kind\": \"v4l2\", \"device\": \(quoted(plan.device)), \"label\": \(quoted(card.isEmpty ? "camera" : card))"
        if !controls.isEmpty {
            let pairs = controls.keys.sorted().map { "\(quoted($0)): \(controls[$0] ?? 0)" }
            source += ",\n      \"controls\": { " + pairs.joined(separator: ", ") + " }"
        }
        source += " }"
        return """
            {
              "description": \(quoted("\(card.isEmpty ? "Camera" : card) at \(plan.device), \(mode) (written by swiftcam init)")),
              "sources": [
                \(source)
              ],
              "caps": { "width": \(plan.width), "height": \(plan.height), "framerate": "\(rate)", "format": \(quoted(plan.format)) },
              "preview": "auto",
              "still": { "format": "jpeg", "quality": 92, "directory": "captures" },
              "record": { "container": "matroska", "directory": "recordings" }
            }

            """
    }

    static func quoted(_ text: String) -> String { JSONValue.quoted(text) }
}
