import Capture
import Filters
import Foundation

/// Turns `POST /api/NAME` with a JSON body into the command line the interpreter already knows, then
/// parses that line: the web API is a spelling of the same commands, never a second set.
enum APICommand {
    /// Commands a page may run; `quit` and `wait` stay with the host, and stills go where the config says.
    static func parse(name: String, body: Data) throws -> Command {
        let object = try json(body)
        let line: String
        switch name {
        case "snap": line = "snap"
        case "switch": line = "switch"
        case "zoom": line = "zoom \(try number(object, "factor"))"
        case "focus": line = "focus \(try number(object, "x")) \(try number(object, "y"))"
        case "exposure":
            if object["ev"] != nil {
                line = "exposure ev=\(try number(object, "ev"))"
            } else {
                line = "exposure \(try number(object, "x")) \(try number(object, "y"))"
            }
        case "torch": line = "torch \(try flag(object, "on") ? "on" : "off")"
        case "mirror": line = "mirror \(try flag(object, "on") ? "on" : "off")"
        case "wb":
            if let mode = object["mode"] as? String {
                line = "wb \(mode)"
            } else {
                line = "wb \(Int(try number(object, "kelvin")))"
            }
        case "brightness", "contrast", "saturation", "hue": line = "\(name) \(try number(object, "value"))"
        case "filter":
            guard let chain = object["chain"] as? String else { throw APIError.badRequest("filter takes {\"chain\": \"sepia | vignette\"} (\"\" or \"none\" for no filter)") }
            line = chain.isEmpty ? "filter none" : "filter \(chain)"
        case "record":
            guard let action = object["action"] as? String, ["start", "stop"].contains(action) else {
                throw APIError.badRequest("record takes {\"action\": \"start\"} or {\"action\": \"stop\"}")
            }
            line = "record \(action)"
        case "record/start": line = "record start"
        case "record/stop": line = "record stop"
        case "stats": line = "stats --json"
        case "command":
            guard let text = object["line"] as? String else { throw APIError.badRequest("command takes {\"line\": \"zoom 2\"}") }
            line = text
        default:
            throw APIError.notFound("no command /api/\(name.escapingControls); commands: snap, switch, zoom, focus, exposure, torch, mirror, wb, brightness, contrast, saturation, hue, filter, record, stats, command")
        }
        guard line.utf8.count <= Command.lineLimit else {
            throw APIError.tooLarge("the command line is \(line.utf8.count) bytes; the limit is \(Command.lineLimit), as on the control socket")
        }
        let command: Command
        do {
            command = try Command(parsing: line)
        } catch {
            throw APIError.badRequest(error.description)
        }
        switch command {
        case .quit, .wait: throw APIError.badRequest("'\(command)' is for the host's own console and control socket")
        case .snap(.some): throw APIError.badRequest("a still from the browser goes where the config says: 'snap' takes no directory here")
        case .stats: return .stats(json: true)
        case let .filter(chain):
            // Checked on the text, before the session parses it: parsing opens the file, and whether it opens or what
            // its first line holds must not reach a browser.
            let names: [String]
            do {
                names = try FilterChain.filterNames(in: chain)
            } catch {
                throw APIError.badRequest(error.description)
            }
            let opensAFile = names.contains { name in
                FilterCatalog.type(named: name)?.info.parameters.contains { if case .file = $0.kind { true } else { false } } == true
            }
            if opensAFile {
                throw APIError.forbidden("LUT files are chosen in the config or on the command line, not from the browser: 'lut' is refused here")
            }
            return command
        default: return command
        }
    }

    private static func json(_ body: Data) throws -> [String: Any] {
        if body.isEmpty || body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: body, options: [])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "not JSON"
            throw APIError.badRequest("malformed JSON: \(reason)")
        }
        guard let object = value as? [String: Any] else { throw APIError.badRequest("malformed JSON: the body must be an object") }
        return object
    }

    private static func number(_ object: [String: Any], _ key: String) throws -> Double {
        // JSON's true and false come as NSNumber subclasses, which would pass as 1 and 0.
        guard let raw = object[key], type(of: raw) == NSNumber.self, let value = raw as? Double, value.isFinite else {
            throw APIError.badRequest("\"\(key)\" must be a number")
        }
        return value
    }

    private static func flag(_ object: [String: Any], _ key: String) throws -> Bool {
        guard let raw = object[key], type(of: raw) != NSNumber.self, let value = raw as? Bool else { throw APIError.badRequest("\"\(key)\" must be true or false") }
        return value
    }
}

/// A request the API refuses before any command runs.
enum APIError: Error, CustomStringConvertible {
    case badRequest(String)
    /// Well formed, but not the browser's to ask (a file on the host).
    case forbidden(String)
    case notFound(String)
    /// A command line over `Command.lineLimit`.
    case tooLarge(String)

    var status: Int {
        switch self {
        case .badRequest: 400
        case .forbidden: 403
        case .notFound: 404
        case .tooLarge: 413
        }
    }

    var description: String {
        switch self {
        case let .badRequest(reason), let .forbidden(reason), let .notFound(reason), let .tooLarge(reason): reason
        }
    }
}

/// The filter catalog as the page reads it: names, summaries, keys, defaults and ranges.
enum FilterCatalogJSON {
    static var all: [[String: Any]] {
        FilterCatalog.all.map { info in
            ["name": info.name, "summary": info.summary, "parameters": info.parameters.map(parameter)]
        }
    }

    private static func parameter(_ info: ParameterInfo) -> [String: Any] {
        var json: [String: Any] = ["key": info.key, "summary": info.summary]
        switch info.defaultValue {
        case let .number(value): json["default"] = value
        case let .integer(value): json["default"] = value
        case let .text(value): json["default"] = value
        }
        switch info.kind {
        case let .number(range):
            json["kind"] = "number"
            json["min"] = range.lowerBound
            json["max"] = range.upperBound
        case let .integer(range):
            json["kind"] = "integer"
            json["min"] = range.lowerBound
            json["max"] = range.upperBound
        case .file:
            json["kind"] = "file"
        }
        return json
    }
}
