import Foundation

/// Finds a key given twice in one JSON object. JSON parsers keep one of the two silently (Foundation the last), so a
/// config with `"filter"` twice ran a filter its author may not have meant; the loader refuses it, naming the key.
enum DuplicateKeys {
    /// The config path (`sources[0].caps`, `""` for the top) and key of the first duplicate in `data`, which must be
    /// valid JSON (checked before); nil when every object's keys differ.
    static func first(in data: Data) -> (path: String, key: String)? {
        enum Container {
            case object(path: String, keys: Set<String>, pendingKey: String?)
            case array(path: String, index: Int)
        }
        let bytes = [UInt8](data)
        var stack: [Container] = []
        var index = 0
        // The path of a value about to start inside the innermost container.
        func childPath() -> String {
            switch stack.last {
            case let .object(path, _, key)?: return path.isEmpty ? (key ?? "") : "\(path).\(key ?? "")"
            case let .array(path, index)?: return "\(path)[\(index)]"
            case nil: return ""
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object(path: childPath(), keys: [], pendingKey: nil))
            case UInt8(ascii: "["):
                stack.append(.array(path: childPath(), index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // Balanced in valid JSON; a parser that let something else through must not trap here.
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                if case let .object(path, keys, _)? = stack.last {
                    stack[stack.count - 1] = .object(path: path, keys: keys, pendingKey: nil)
                }
            case UInt8(ascii: ","):
                switch stack.last {
                case let .array(path, count)?: stack[stack.count - 1] = .array(path: path, index: count + 1)
                case let .object(path, keys, _)?: stack[stack.count - 1] = .object(path: path, keys: keys, pendingKey: nil)
                case nil: break
                }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                // A key is a string in an object with no key yet; escapes are read as JSON reads them.
                if case let .object(path, keys, nil)? = stack.last, index < bytes.count {
                    let token = Data(bytes[start...index])
                    let key = (try? JSONSerialization.jsonObject(with: token, options: [.fragmentsAllowed])) as? String ?? ""
                    if keys.contains(key) { return (path, key) }
                    stack[stack.count - 1] = .object(path: path, keys: keys.union([key]), pendingKey: key)
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
