import Base
public import Camera
import Filters
import FoundationEssentials

/// One control command, parsed and checked but not yet run: what `CommandInterpreter.execute` does is
/// `Command(parsing:)` (pure, no session) followed by one session call.
///
/// `description` is the canonical command line, which parses back to an equal command.
public enum Command: Sendable, Hashable, CustomStringConvertible {
    /// `snap [DIR]`: a still, into `directory` or the config's.
    case snap(directory: String?)
    /// `switch`: the other source.
    case switchCamera
    /// `zoom FACTOR` (finite; the session clamps and says so).
    case zoom(Double)
    /// `focus X Y`, both finite; the session holds them in 0…1 and says so.
    case focus(x: Double, y: Double)
    /// `exposure X Y`, both finite (held in 0…1 like focus): meter on that point.
    case exposurePoint(x: Double, y: Double)
    /// `exposure ev=E` (finite): exposure compensation in stops.
    case exposureCompensation(ev: Double)
    /// `torch on|off`.
    case torch(on: Bool)
    /// `mirror on|off`.
    case mirror(on: Bool)
    /// `wb auto|KELVIN`: KELVIN any whole number; the session clamps it into `Command.kelvinRange` and says so.
    case whiteBalance(WhiteBalanceMode)
    /// `brightness|contrast|saturation|hue V`: a whole number in the camera's units or a level in -1…1.
    case adjust(ColorAdjustment, AdjustmentLevel)
    /// `filter CHAIN`; `filter none` (and a bare `filter`) is the empty chain. The text is checked by the session.
    case filter(String)
    /// `record start`.
    case recordStart
    /// `record stop`.
    case recordStop
    /// `stats [--json]`.
    case stats(json: Bool)
    /// `wait FRAMES`, FRAMES in 1…100000.
    case wait(frames: Int)
    /// `quit` (also `exit`, `stop`).
    case quit
    /// `help`.
    case help

    /// How long `wait N` waits for its frames at the most; it then answers with the frames it saw.
    public static let frameWaitSeconds: Double = 60

    /// The colour temperatures `wb` applies: the `temperature` filter's range, which the software stage runs, so a
    /// reply never names a temperature the chain does not use. Others are clamped into it, and the reply says so.
    public static let kelvinRange: ClosedRange<Int> = {
        guard case let .number(range)? = Temperature.info.parameter("kelvin")?.kind else { return 2000...12000 }
        return Int(range.lowerBound)...Int(range.upperBound)
    }()

    /// The longest command line any transport accepts, in bytes (a chain of every filter fits many times over).
    public static let lineLimit = 4096

    /// The commands and what they take, as `help` and every usage error list them.
    public static let summary = [
        "snap [DIR]", "switch", "zoom FACTOR", "focus X Y", "torch on|off", "exposure X Y|ev=E",
        "wb auto|KELVIN (\(kelvinRange.lowerBound)-\(kelvinRange.upperBound))",
        "brightness|contrast|saturation|hue V", "mirror on|off", "filter CHAIN", "record start|stop", "stats [--json]", "wait FRAMES",
        "quit"
    ].joined(separator: ", ")

    /// Parses one command line. Words are separated by spaces; the verb is case-insensitive.
    ///
    /// The line is split on the space scalar, not on `Character`s: a space followed by a combining mark is one
    /// `Character`, so splitting by characters would join `filter` to an argument that starts with a mark, and the
    /// canonical text would not parse back to the same command.
    public init(parsing line: String) throws(CommandError) {
        let trimmed = line.trimmed
        let words = trimmed.unicodeScalars.split(separator: " ", omittingEmptySubsequences: true)
            .map { String(String.UnicodeScalarView($0)) }
        guard let first = words.first else { throw .empty }
        let verb = first.lowercased()
        let arguments = Array(words.dropFirst())
        // What follows the verb as typed, for the commands that take the rest of the line (a chain, a folder).
        let rest = String(String.UnicodeScalarView(trimmed.unicodeScalars.dropFirst(first.unicodeScalars.count)))
        switch verb {
        case "snap", "snapshot":
            // The folder is the rest of the line, spaces and all ("snap dir with space").
            let folder = rest.trimmed
            self = .snap(directory: folder.isEmpty ? nil : folder)
        case "switch":
            guard arguments.isEmpty else { throw .usage("switch (it takes nothing)") }
            self = .switchCamera
        case "zoom":
            guard arguments.count == 1, let factor = Double(arguments[0]) else { throw .usage(Usage.zoom) }
            self = try Command.zoom(factor).checked()
        case "exposure" where arguments.count == 1 && arguments[0].lowercased().hasPrefix("ev="):
            guard let ev = Double(arguments[0].dropFirst(3)) else { throw .usage(Usage.exposureCompensation) }
            self = try Command.exposureCompensation(ev: ev).checked()
        case "focus", "exposure":
            guard arguments.count == 2, let x = Double(arguments[0]), let y = Double(arguments[1]) else {
                throw .usage(verb == "focus" ? Usage.focus : Usage.exposurePoint)
            }
            self = try (verb == "focus" ? Command.focus(x: x, y: y) : Command.exposurePoint(x: x, y: y)).checked()
        case "torch":
            guard arguments.count == 1, ["on", "off"].contains(arguments[0]) else { throw .usage("torch on|off") }
            self = .torch(on: arguments[0] == "on")
        case "mirror":
            guard arguments.count == 1, ["on", "off"].contains(arguments[0]) else { throw .usage("mirror on|off") }
            self = .mirror(on: arguments[0] == "on")
        case "wb":
            guard arguments.count == 1 else { throw .usage("wb auto|KELVIN, e.g. wb 5000") }
            self = try Command.whiteBalance(mode: arguments[0])
        case "brightness", "contrast", "saturation", "hue":
            guard let adjustment = ColorAdjustment(rawValue: verb) else { throw .unknownCommand(verb) }
            let usage = Usage.adjust(adjustment)
            guard arguments.count == 1 else { throw .usage(usage) }
            if let raw = Int64(arguments[0]) {
                self = .adjust(adjustment, .raw(raw))
            } else if let value = Double(arguments[0]) {
                self = try Command.adjust(verb, level: value)
            } else {
                throw .usage(usage)
            }
        case "filter":
            self = .filterChain(rest)
        case "record":
            switch (arguments.first, arguments.count) {
            case ("start", 1): self = .recordStart
            case ("stop", 1): self = .recordStop
            default: throw .usage("record start|stop")
            }
        case "stats":
            guard arguments.isEmpty || arguments == ["--json"] else { throw .usage("stats [--json]") }
            self = .stats(json: arguments.first == "--json")
        case "wait":
            guard arguments.count == 1, let count = Int(arguments[0]) else { throw .usage(Usage.wait) }
            self = try Command.wait(frames: count).checked()
        case "quit", "exit", "stop":
            guard arguments.isEmpty else { throw .usage("\(verb) (it takes nothing)") }
            self = .quit
        case "help":
            guard arguments.isEmpty else { throw .usage("help (it takes nothing)") }
            self = .help
        default:
            throw .unknownCommand(verb)
        }
    }

    /// This command when its values are numbers the session can hold to a range, else the parser's usage error: a
    /// transport that builds commands from something other than a line (the page's JSON) checks them here, so every
    /// transport keeps the same rule. The rule for every control: a finite number outside its range is clamped into
    /// it and the reply says so (`(clamped from 0)`); what is not a finite number is refused here.
    public func checked() throws(CommandError) -> Command {
        switch self {
        case let .zoom(factor) where !factor.isFinite: throw .usage(Usage.zoom)
        case let .exposureCompensation(ev) where !ev.isFinite: throw .usage(Usage.exposureCompensation)
        case let .focus(x, y) where !x.isFinite || !y.isFinite: throw .usage(Usage.focus)
        case let .exposurePoint(x, y) where !x.isFinite || !y.isFinite: throw .usage(Usage.exposurePoint)
        case let .adjust(adjustment, .normalized(level)) where !level.isFinite: throw .usage(Usage.adjust(adjustment))
        case let .wait(frames) where !(1...100_000).contains(frames): throw .usage(Usage.wait)
        default: return self
        }
    }

    /// `wb`'s argument: `auto` (any case) or a temperature in kelvin, `5000` or `5000K`, read as the page's number is.
    public static func whiteBalance(mode text: String) throws(CommandError) -> Command {
        if text.lowercased() == "auto" { return .whiteBalance(.auto) }
        let digits = text.lowercased().hasSuffix("k") ? String(text.dropLast()) : text
        guard let kelvin = Double(digits) else { throw .usage(Usage.kelvin) }
        return try whiteBalance(kelvin: kelvin)
    }

    /// `wb KELVIN` from a number that need not be whole: its whole part, when it is within ±2^53 (where a Double holds
    /// every whole number, so the clamp note names what was asked); a temperature past that, inf or nan is refused
    /// before it becomes an `Int`.
    public static func whiteBalance(kelvin: Double) throws(CommandError) -> Command {
        guard abs(kelvin) < 0x1p53, let whole = Int(exactly: kelvin.rounded(.towardZero)) else { throw .usage(Usage.kelvin) }
        return .whiteBalance(.kelvin(whole))
    }

    /// `brightness|contrast|saturation|hue` (the verb) at a level (the session clamps it into -1…1 and says so).
    public static func adjust(_ verb: String, level: Double) throws(CommandError) -> Command {
        guard let adjustment = ColorAdjustment(rawValue: verb) else { throw .unknownCommand(verb) }
        return try Command.adjust(adjustment, .normalized(level)).checked()
    }

    /// `filter`'s text: surrounding space dropped, `none` (and nothing) the empty chain.
    public static func filterChain(_ text: String) -> Command {
        let chain = text.trimmed
        return .filter(chain == "none" ? "" : chain)
    }

    /// The usage errors of commands whose values are bounded.
    private enum Usage {
        static let zoom = "zoom FACTOR, e.g. zoom 2"
        static let exposureCompensation = "exposure ev=STOPS, e.g. exposure ev=1"
        static let focus = "focus X Y with X and Y from 0 to 1 (the picture's corners), e.g. focus 0.5 0.5"
        static let exposurePoint = "exposure X Y (0…1, e.g. exposure 0.5 0.5) or exposure ev=STOPS"
        static let kelvin =
            "wb auto|KELVIN with KELVIN from \(Command.kelvinRange.lowerBound) to \(Command.kelvinRange.upperBound) (others are clamped), e.g. wb 5000"
        static let wait = "wait FRAMES, a whole number from 1 to 100000: answers once that many more frames have been filtered"
        static func adjust(_ adjustment: ColorAdjustment) -> String {
            "\(adjustment.rawValue) V: a whole number in the camera's units, or a level from -1.0 to 1.0"
        }
    }

    /// The canonical command line.
    public var description: String {
        switch self {
        case let .snap(directory): directory.map { "snap \($0)" } ?? "snap"
        case .switchCamera: "switch"
        case let .zoom(factor): "zoom \(factor)"
        case let .focus(x, y): "focus \(x) \(y)"
        case let .exposurePoint(x, y): "exposure \(x) \(y)"
        case let .exposureCompensation(ev): "exposure ev=\(ev)"
        case let .torch(on): on ? "torch on" : "torch off"
        case let .mirror(on): on ? "mirror on" : "mirror off"
        case .whiteBalance(.auto): "wb auto"
        case let .whiteBalance(.kelvin(kelvin)): "wb \(kelvin)"
        case let .adjust(adjustment, .raw(value)): "\(adjustment.rawValue) \(value)"
        case let .adjust(adjustment, .normalized(level)): "\(adjustment.rawValue) \(level)"
        case let .filter(text): text.isEmpty ? "filter none" : "filter \(text)"
        case .recordStart: "record start"
        case .recordStop: "record stop"
        case let .stats(json): json ? "stats --json" : "stats"
        case let .wait(frames): "wait \(frames)"
        case .quit: "quit"
        case .help: "help"
        }
    }
}

/// Why a command line was refused before it reached the session.
public enum CommandError: Error, Hashable, CustomStringConvertible {
    /// The line held no command.
    case empty
    /// The verb is not a command; the payload is the verb as typed (lowercased).
    case unknownCommand(String)
    /// The command's arguments are wrong; the payload is the usage.
    case usage(String)

    /// One line; input echoed back is escaped, so it never holds a line break or a control character.
    public var description: String {
        switch self {
        case .empty: "empty command; commands: \(Command.summary)"
        case let .unknownCommand(verb): "unknown command '\(verb.escapingControls)'; commands: \(Command.summary)"
        case let .usage(text): "usage: \(text)"
        }
    }
}
