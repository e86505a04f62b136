import Base
import FoundationEssentials

/// The captures on disk: stills and recordings (each segment of one), newest first (the seeds' photo grid, as a listing).
public enum Gallery {
    /// A captured file.
    public struct Item: Codable, Sendable, Equatable {
        /// Still or recording.
        public enum Kind: String, Codable, Sendable { case still, recording }
        public var path: String
        public var kind: Kind
        public var bytes: Int
        /// Modification time, ISO 8601.
        public var modified: String
        /// The analyser whose event made it (`motion`), from its `.event.json` sidecar; nil for other captures.
        public var event: String? = nil
    }

    /// Files with a still or recording extension in the folders (not recursing; half-written `.part` files excluded).
    public static func items(in directories: [String]) -> [Item] {
        let manager = FileManager.default
        var found: [(Date, Item)] = []
        for directory in directories {
            for name in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasPrefix(".") {
                guard let kind = kind(of: name) else { continue }
                let path = "\(directory)/\(name)"
                guard let attributes = try? manager.attributesOfItem(atPath: path) else { continue }
                let date = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
                let bytes = (attributes[.size] as? UInt).map { Int($0) } ?? 0
                found.append(
                    (
                        date,
                        Item(
                            path: path, kind: kind, bytes: bytes, modified: date.formatted(.iso8601),
                            event: EventSidecar.event(of: path))
                    ))
            }
        }
        // By time: a recording's segments each end before the next begins, so their times order them; files
        // changed in the same instant by name, whose timestamps sort.
        return found.sorted { ($0.0, $0.1.path) > ($1.0, $1.1.path) }.map(\.1)
    }

    /// Still or recording by the file name's extension; nil for anything else.
    static func kind(of name: String) -> Item.Kind? {
        switch name.fileExtension.lowercased() {
        case "jpg", "jpeg", "png": .still
        case "mkv", "mp4", "webm": .recording
        default: nil
        }
    }
}
