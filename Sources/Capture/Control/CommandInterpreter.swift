import Camera
import Foundation

/// A reply to one control command: one line, `ok <detail>` or `error <reason>`.
public enum Reply: Sendable, Equatable, CustomStringConvertible {
    case ok(String)
    case error(String)

    /// Whether the command succeeded.
    public var isOK: Bool { if case .ok = self { true } else { false } }

    /// The reply line. Control characters (ESC, CR, NUL, …) in it, such as a command echoed back in an
    /// error, are written as `\u{1B}`, so no transport ever sends raw terminal input back.
    public var description: String {
        let line = switch self {
        case let .ok(detail): detail.isEmpty ? "ok" : "ok \(detail)"
        case let .error(reason): "error \(reason)"
        }
        return Self.escapingControls(line)
    }

    static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

/// Turns command lines into session calls. The one interpreter behind stdin, the control socket and any
/// later transport, so every transport understands exactly the same commands.
public struct CommandInterpreter: Sendable {
    /// The session commands act on.
    public let session: CaptureSession
    /// Called by `quit`.
    public let onQuit: @Sendable () -> Void

    public init(session: CaptureSession, onQuit: @escaping @Sendable () -> Void) {
        self.session = session
        self.onQuit = onQuit
    }

    /// The commands and what they take.
    public static let help = [
        "snap [DIR]", "switch", "zoom FACTOR", "focus X Y", "torch on|off", "exposure X Y|ev=E", "wb auto|KELVIN",
        "brightness|contrast|saturation|hue V", "mirror on|off", "filter CHAIN", "record start|stop", "stats [--json]", "wait FRAMES", "quit",
    ].joined(separator: ", ")

    /// Runs one command line and answers in one line; failures that happened on their own since the last
    /// reply (a recording that hit a full disk) are appended, so whoever is driving hears of them at once.
    public func execute(_ line: String) -> Reply {
        let reply = run(line)
        let unreported = session.takeUnreported()
        guard !unreported.isEmpty else { return reply }
        let note = " [" + unreported.joined(separator: "; ") + "]"
        switch reply {
        case let .ok(detail): return .ok(detail + note)
        case let .error(reason): return .error(reason + note)
        }
    }

    private func run(_ line: String) -> Reply {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first?.lowercased() else { return .error("empty command; commands: \(Self.help)") }
        let arguments = Array(words.dropFirst())
        do {
            switch verb {
            case "snap", "snapshot":
                guard arguments.count <= 1 else { return usage("snap [DIRECTORY]") }
                return .ok(try session.snapshot(directory: arguments.first))
            case "switch":
                return .ok("source \(try session.switchCamera())")
            case "zoom":
                guard arguments.count == 1, let factor = Double(arguments[0]), factor.isFinite else { return usage("zoom FACTOR, e.g. zoom 2") }
                return .ok(try session.zoom(factor))
            case "exposure" where arguments.count == 1 && arguments[0].lowercased().hasPrefix("ev="):
                guard let ev = Double(arguments[0].dropFirst(3)), ev.isFinite else { return usage("exposure ev=STOPS, e.g. exposure ev=1") }
                return .ok(try session.exposure(ev: ev))
            case "focus", "exposure":
                guard arguments.count == 2, let x = Double(arguments[0]), let y = Double(arguments[1]),
                      (0...1).contains(x), (0...1).contains(y) else {
                    return usage(verb == "focus" ? "focus X Y with X and Y between 0 and 1, e.g. focus 0.5 0.5"
                                                 : "exposure X Y (0…1, e.g. exposure 0.5 0.5) or exposure ev=STOPS")
                }
                return .ok(verb == "focus" ? try session.focus(x: x, y: y) : try session.exposure(x: x, y: y))
            case "torch":
                guard arguments.count == 1, ["on", "off"].contains(arguments[0]) else { return usage("torch on|off") }
                return .ok(try session.torch(arguments[0] == "on"))
            case "mirror":
                guard arguments.count == 1, ["on", "off"].contains(arguments[0]) else { return usage("mirror on|off") }
                return .ok(try session.mirror(arguments[0] == "on"))
            case "wb":
                guard arguments.count == 1 else { return usage("wb auto|KELVIN, e.g. wb 5000") }
                if arguments[0].lowercased() == "auto" { return .ok(try session.whiteBalance(.auto)) }
                let digits = arguments[0].lowercased().hasSuffix("k") ? String(arguments[0].dropLast()) : arguments[0]
                guard let kelvin = Int(digits), (1000...15000).contains(kelvin) else {
                    return usage("wb auto|KELVIN with KELVIN from 1000 to 15000, e.g. wb 5000")
                }
                return .ok(try session.whiteBalance(.kelvin(kelvin)))
            case "brightness", "contrast", "saturation", "hue":
                guard arguments.count == 1, let adjustment = ColorAdjustment(rawValue: verb) else {
                    return usage("\(verb) V: a whole number in the camera's units, or a level from -1.0 to 1.0")
                }
                let text = arguments[0]
                let level: AdjustmentLevel
                if let raw = Int64(text) {
                    level = .raw(raw)
                } else if let value = Double(text), value.isFinite {
                    level = .normalized(value)
                } else {
                    return usage("\(verb) V: a whole number in the camera's units, or a level from -1.0 to 1.0")
                }
                return .ok(try session.adjust(adjustment, to: level))
            case "filter":
                let text = trimmed.dropFirst(verb.count).trimmingCharacters(in: .whitespaces)
                let applied = try session.setFilter(text == "none" ? "" : text)
                return .ok("filter \"\(applied)\"")
            case "record":
                switch arguments.first {
                case "start": return .ok("recording \(try session.startRecording())")
                case "stop": return .ok("recorded \(try session.stopRecording())")
                default: return usage("record start|stop")
                }
            case "stats":
                let stats = session.stats
                if arguments.first == "--json" {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = .withoutEscapingSlashes
                    let data = (try? encoder.encode(stats)) ?? Data()
                    return .ok(String(decoding: data, as: UTF8.self))
                }
                return .ok(stats.line)
            case "wait":
                guard arguments.count == 1, let count = Int(arguments[0]), (1...100_000).contains(count) else {
                    return usage("wait FRAMES, a whole number from 1 to 100000: answers once that many more frames have been filtered")
                }
                let seen = session.waitForFrames(count)
                return seen >= count ? .ok("\(seen) frames") : .error("only \(seen) of \(count) frames came (the stream ended or stalled)")
            case "quit", "exit", "stop":
                onQuit()
                return .ok("stopping")
            case "help":
                return .ok(Self.help)
            default:
                return .error("unknown command '\(verb)'; commands: \(Self.help)")
            }
        } catch {
            return .error("\(error)")
        }
    }

    private func usage(_ text: String) -> Reply {
        .error("usage: \(text)")
    }
}
