import Base
import FoundationEssentials

/// One camera libcamera manages, as its `cam` tool describes it: the id `cam -l` prints, and the formats and sizes
/// of the stream it configures for video (`cam -c ID -I`).
public struct LibcameraCamera: Sendable, Equatable, Codable {
    /// The id libcamera names the camera by (`platform/vimc.0 Sensor B`, `/base/soc/i2c0mux/i2c@1/imx219@10`);
    /// `libcamerasrc camera-name=` and a config's `"camera"` take it.
    public let id: String
    /// The short name `cam -l` quotes (`Sensor B`, `imx219`).
    public let name: String
    /// The size and format libcamera configures when nothing is asked (`1920x1080`, `BGR888`); nil when `cam -I` failed.
    public let defaultSize: FrameSize?
    public let defaultFormat: String?
    /// The stream's pixel formats with their size ranges and listed sizes.
    public let formats: [StreamFormat]

    /// A width and height.
    public struct FrameSize: Sendable, Equatable, Codable, CustomStringConvertible {
        public let width: Int
        public let height: Int
        public var description: String { "\(width)x\(height)" }
    }

    /// One pixel format of the stream: libcamera's name (`BGR888`, `NV12`, `YUYV`), the range of sizes and the sizes
    /// it lists.
    public struct StreamFormat: Sendable, Equatable, Codable {
        public let pixelFormat: String
        public let minimum: FrameSize
        public let maximum: FrameSize
        public let sizes: [FrameSize]
    }

    public init(id: String, name: String, defaultSize: FrameSize?, defaultFormat: String?, formats: [StreamFormat]) {
        (self.id, self.name, self.defaultSize, self.defaultFormat, self.formats) = (id, name, defaultSize, defaultFormat, formats)
    }

    /// What the camera is called in statuses and lines: `camera Sensor B (libcamera)`.
    public var label: String { "\(name) (libcamera)" }

    /// The step sizes must keep beyond what libcamera reports: vimc's pipeline takes only multiples of 6 (its
    /// scaler triples a debayered, even-sized picture; libcamera 0.0.3 rounds other sizes without saying so in the caps).
    public var sizeStep: Int { id.contains("vimc") ? 6 : 2 }
}

/// Reads what libcamera's `cam` tool prints. Pure functions over text, so they are tested without a camera.
public enum LibcameraListing {
    /// The cameras of `cam -l`'s output: `1: 'Sensor B' (platform/vimc.0 Sensor B)` → (id, name), in its order.
    /// Log lines (`[0:00:21.35] [150]  INFO Camera …`) and the heading are skipped.
    public static func cameras(fromList text: String) -> [(id: String, name: String)] {
        text.split(separator: "\n").compactMap { raw in
            let line = raw.trimmed
            guard let colon = line.firstIndex(of: ":"), Int(line[..<colon]) != nil else { return nil }
            let rest = line[line.index(after: colon)...].trimmed
            guard rest.hasPrefix("'"), rest.hasSuffix(")"), let open = rest.firstRange(of: "' (") else { return nil }
            let name = String(rest[rest.index(after: rest.startIndex)..<open.lowerBound])
            let id = String(rest[open.upperBound..<rest.index(before: rest.endIndex)])
            return id.isEmpty ? nil : (id, name)
        }
    }

    /// The stream of `cam -c ID -I`'s output:
    /// ```
    /// 0: 1920x1080-BGR888
    ///  * Pixelformat: BGR888 (48x48)-(4096x2160)/(+1,+1)
    ///   - 160x120
    /// ```
    /// The first stream only (the one libcamerasrc's single pad configures).
    public static func stream(
        fromInfo text: String
    ) -> (
        defaultSize: LibcameraCamera.FrameSize?, defaultFormat: String?, formats: [LibcameraCamera.StreamFormat]
    ) {
        var defaultSize: LibcameraCamera.FrameSize?
        var defaultFormat: String?
        var formats: [LibcameraCamera.StreamFormat] = []
        var current: (format: String, minimum: LibcameraCamera.FrameSize, maximum: LibcameraCamera.FrameSize)?
        var sizes: [LibcameraCamera.FrameSize] = []
        var streams = 0
        func flush() {
            if let current {
                formats.append(.init(pixelFormat: current.format, minimum: current.minimum, maximum: current.maximum, sizes: sizes))
            }
            current = nil
            sizes = []
        }
        for raw in text.split(separator: "\n") {
            let line = raw.trimmed
            if let colon = line.firstIndex(of: ":"), Int(line[..<colon]) != nil {
                streams += 1
                guard streams == 1 else { break }
                let configuration = line[line.index(after: colon)...].trimmed
                let parts = configuration.split(separator: "-", maxSplits: 1)
                if parts.count == 2 {
                    defaultSize = size(parts[0])
                    defaultFormat = String(parts[1])
                }
            } else if line.hasPrefix("* Pixelformat:") {
                flush()
                // `BGR888 (48x48)-(4096x2160)/(+1,+1)`
                let words = line.dropFirst("* Pixelformat:".count).split(separator: " ", maxSplits: 1)
                guard let name = words.first else { continue }
                let range = words.count > 1 ? words[1] : ""
                let bounds = range.split(whereSeparator: { "()-/".contains($0) }).compactMap { size($0) }
                let minimum = bounds.first ?? .init(width: 0, height: 0)
                let maximum = bounds.count > 1 ? bounds[1] : minimum
                current = (String(name), minimum, maximum)
            } else if line.hasPrefix("- "), current != nil, let listed = size(line.dropFirst(2)) {
                sizes.append(listed)
            }
        }
        flush()
        return (defaultSize, defaultFormat, formats)
    }

    /// `1920x1080` → a size; nil for anything else.
    static func size(_ text: Substring) -> LibcameraCamera.FrameSize? {
        let parts = text.trimmed.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        return .init(width: width, height: height)
    }
}
