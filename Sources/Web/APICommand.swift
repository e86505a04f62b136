import Base
import Capture
import Filters
import FoundationEssentials

/// Turns `POST /api/NAME` with a JSON body into the `Command` the interpreter runs: the web API is a spelling of the
/// same commands, never a second set. Values are checked by `Command.checked()`, the bounds every transport keeps;
/// only `/api/command` carries a command line, which parses as any transport's does.
enum APICommand {
    /// The command for a request, refused when `permissions` (the page's) do not allow it: `quit` and `wait` stay with
    /// the host, stills go where the config says, and no filter file is the page's to choose.
    static func parse(name: String, body: Data, permissions: CommandPermissions) throws -> Command {
        let command: Command
        do {
            command = try build(name: name, object: try json(body))
        } catch let error as CommandError {
            throw APIError.badRequest(error.description)
        }
        guard command.description.utf8.count <= Command.lineLimit else {
            throw APIError.tooLarge(
                "the command line is \(command.description.utf8.count) bytes; the limit is \(Command.lineLimit), as on the control socket")
        }
        switch permissions.refusal(of: command) {
        case .readsAFile?: throw APIError.forbidden(permissions.refusal(of: command)?.description ?? "")
        case let refusal?: throw APIError.badRequest(refusal.description)
        case nil: break
        }
        if case .stats = command { return .stats(json: true) }
        return command
    }

    private static func build(name: String, object: [String: JSONValue]) throws -> Command {
        switch name {
        case "snap": return .snap(directory: nil)
        case "switch": return .switchCamera
        case "zoom": return try Command.zoom(try number(object, "factor")).checked()
        case "focus": return try Command.focus(x: try number(object, "x"), y: try number(object, "y")).checked()
        case "exposure":
            if object["ev"] != nil { return try Command.exposureCompensation(ev: try number(object, "ev")).checked() }
            return try Command.exposurePoint(x: try number(object, "x"), y: try number(object, "y")).checked()
        case "torch": return .torch(on: try flag(object, "on"))
        case "mirror": return .mirror(on: try flag(object, "on"))
        case "wb":
            if let mode = object["mode"]?.string { return try Command.whiteBalance(mode: mode) }
            return try Command.whiteBalance(kelvin: try number(object, "kelvin"))
        case "brightness", "contrast", "saturation", "hue":
            return try Command.adjust(name, level: try number(object, "value"))
        case "filter":
            guard let chain = object["chain"]?.string else {
                throw APIError.badRequest("filter takes {\"chain\": \"sepia | vignette\"} (\"\" or \"none\" for no filter)")
            }
            return .filterChain(chain)
        case "record":
            switch object["action"]?.string {
            case "start": return .recordStart
            case "stop": return .recordStop
            default: throw APIError.badRequest("record takes {\"action\": \"start\"} or {\"action\": \"stop\"}")
            }
        case "record/start": return .recordStart
        case "record/stop": return .recordStop
        case "stats": return .stats(json: true)
        case "command":
            guard let line = object["line"]?.string else { throw APIError.badRequest("command takes {\"line\": \"zoom 2\"}") }
            guard line.utf8.count <= Command.lineLimit else {
                throw APIError.tooLarge(
                    "the command line is \(line.utf8.count) bytes; the limit is \(Command.lineLimit), as on the control socket")
            }
            return try Command(parsing: line)
        default:
            throw notFound(name)
        }
    }

    private static func notFound(_ name: String) -> APIError {
        .notFound(
            "no command /api/\(name.escapingControls); commands: snap, switch, zoom, focus, exposure, torch, mirror, wb, brightness, contrast, saturation, hue, filter, record, stats, command"
        )
    }

    private static func json(_ body: Data) throws -> [String: JSONValue] {
        if body.isEmpty || body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw APIError.badRequest("malformed JSON: \(error)")
        }
        guard let object = value.object else { throw APIError.badRequest("malformed JSON: the body must be an object") }
        return object
    }

    private static func number(_ object: [String: JSONValue], _ key: String) throws -> Double {
        // A number only: true and false are not 1 and 0.
        guard let value = object[key]?.double, value.isFinite else {
            throw APIError.badRequest("\"\(key)\" must be a number")
        }
        return value
    }

    private static func flag(_ object: [String: JSONValue], _ key: String) throws -> Bool {
        guard let value = object[key]?.bool else {
            throw APIError.badRequest("\"\(key)\" must be true or false")
        }
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
        var json: [String: Any] = ["key": info.key, "summary": info.summary, "unit": info.unit]
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
