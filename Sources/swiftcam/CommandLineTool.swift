import Base
import Capture
import FoundationEssentials
import Glibc
import Host

/// sysexits(3) codes: one mapping from a failure to an exit code for every command.
enum ExitCode {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let cantCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let permission: Int32 = 77

    /// The one mapping from a failure to its exit code, for every command.
    static func `for`(_ error: any Error) -> Int32 {
        `for`(kind: FailureKind(of: error))
    }

    /// The exit code of a kind of failure.
    static func `for`(kind: FailureKind) -> Int32 {
        switch kind {
        case .usage: usage
        case .badData: dataError
        case .noInput: noInput
        case .unavailable: unavailable
        case .cannotCreate: cantCreate
        case .ioError: ioError
        case .permission: permission
        case .software: software
        }
    }

    /// What `body` returns; an error it throws is printed as one line and gives its exit code.
    static func reporting(_ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
    }
}

/// Writes `text` to `path` (created 0644 or truncated); returns why not, in one line, on failure.
func writeText(_ text: String, to path: String) -> String? {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return "\(path): \(SystemError.message(errno))" }
    defer { close(descriptor) }
    return SystemCall.writeAll(descriptor, text.utf8).map { "\(path): \(SystemError.message($0))" }
}

/// Prints one line to stderr, its control characters escaped (a file name or device answer may carry them).
func printError(_ line: String, priority: LogPriority = .error) {
    let text = Journal.prefix(priority, standardError: true) + "swiftcam: \(line.terminalSafe)\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

/// How much a line matters, as syslog and journald number it (sd-daemon(3)).
enum LogPriority: Int {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
}

/// Where systemd runs the command with its output in the journal: each line then starts with its priority (`<3>`),
/// so `journalctl -p warning` finds the failures. Elsewhere nothing is added.
enum Journal {
    private static let standardOutput = ServiceManager.writesToJournal(STDOUT_FILENO)
    private static let standardError = ServiceManager.writesToJournal(STDERR_FILENO)

    /// `<N>` for a line of `priority` on standard error (or output), when that stream is the journal's; else nothing.
    static func prefix(_ priority: LogPriority, standardError toError: Bool) -> String {
        (toError ? standardError : standardOutput) ? "<\(priority.rawValue)>" : ""
    }
}

/// A subcommand: its one-line summary, its help, and what it does with the remaining arguments.
struct Subcommand: Sendable {
    let name: String
    let usage: String
    let run: @Sendable ([String]) -> Int32
    let summary: String

    init(_ name: String, _ usage: String, _ run: @escaping @Sendable ([String]) -> Int32, _ summary: String) {
        (self.name, self.usage, self.run, self.summary) = (name, usage, run, summary)
    }
}

/// The `swiftcam` command: dispatches to subcommands. Parses and prints only; `Capture` decides.
struct CommandLineTool {
    let arguments: [String]

    /// Every subcommand, in the order `swiftcam --help` lists them: the pipelines, the cameras, the rest.
    static let subcommands = pipelineCommands + cameraCommands + otherCommands

    static let pipelineCommands = [
        Subcommand("list", ConfigCommands.listUsage, ConfigCommands.list, "list the named pipeline configs"),
        Subcommand("show", ConfigCommands.showUsage, ConfigCommands.show, "print a config's description and its gst-launch graph"),
        Subcommand("validate", ConfigCommands.validateUsage, ConfigCommands.validate, "check configs (the shipped ones, or files)"),
        Subcommand("run", RunCommand.usage, RunCommand.run, "run a named pipeline with live control on stdin and a socket"),
        Subcommand("ctl", CtlCommand.usage, CtlCommand.run, "send a command to a running pipeline"),
        Subcommand("token", TokenCommand.usage, TokenCommand.run, "print (or renew) a camera page's kept token")
    ]

    static let cameraCommands = [
        Subcommand("init", CameraCommands.initUsage, CameraCommands.initConfig, "write a config for a camera here, in its best live mode"),
        Subcommand("devices", CameraCommands.devicesUsage, CameraCommands.devices, "list the cameras, their formats and controls"),
        Subcommand("encoders", EncoderCommands.usage, EncoderCommands.run, "list the video encoders (hardware first) and which is chosen"),
        Subcommand("controls", CameraCommands.controlsUsage, CameraCommands.controls, "list a camera's controls (v4l2-ctl style)")
    ]

    static let otherCommands = [
        Subcommand("filters", InfoCommands.filtersUsage, InfoCommands.filters, "list the filters, their keys, defaults and ranges"),
        Subcommand("gallery", InfoCommands.galleryUsage, InfoCommands.gallery, "list captured stills and recordings"),
        Subcommand("publish-check", PublishCommands.checkUsage, PublishCommands.check, "read a published stream or a push (--listen)"),
        Subcommand("bench", Bench.usage, Bench.run, "measure the filters against GStreamer's own C elements")
    ]

    static var usage: String {
        let width = subcommands.map(\.name.count).max() ?? 8
        let lines = subcommands.map { "  \($0.name.padded(to: width + 2))\($0.summary)" }
        return """
            usage: swiftcam COMMAND [OPTIONS]   (swiftcam COMMAND --help for each)

            SwiftCam runs camera pipelines on GStreamer with filters written in Swift.

            commands:
            \(lines.joined(separator: "\n"))
              --version   print the version
            """
    }

    func run() -> Int32 {
        guard let command = arguments.first else {
            print(Self.usage)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            print(Self.usage)
            return ExitCode.ok
        case "--version", "version":
            print(SwiftCam.versionLine)
            return ExitCode.ok
        default:
            guard let subcommand = Self.subcommands.first(where: { $0.name == command }) else {
                printError("unknown command '\(command)'; see 'swiftcam --help'")
                return ExitCode.usage
            }
            if rest.contains("--help") || rest.contains("-h") {
                print(subcommand.usage)
                return ExitCode.ok
            }
            return subcommand.run(rest)
        }
    }
}

/// Splits `--flag value` options from positional arguments; unknown flags are usage errors.
struct Options {
    var positional: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    /// How many positional arguments a command takes; the cases with a sentence say it when the count is wrong.
    enum Arity {
        case any
        case none(String)
        case one(String)
    }

    /// `valued` flags take the next argument; `switches` take none; `arity` checks the positional arguments.
    init(_ arguments: [String], valued: Set<String> = [], switches: Set<String> = [], arity: Arity = .any) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") && argument.count > 2 {
                var name = argument
                var inline: String?
                if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                if valued.contains(name) {
                    if let inline {
                        values[name, default: []].append(inline)
                    } else {
                        guard index + 1 < arguments.count else { throw UsageError("\(name) needs a value") }
                        values[name, default: []].append(arguments[index + 1])
                        index += 1
                    }
                } else if switches.contains(name) {
                    flags.insert(name)
                } else {
                    throw UsageError("unknown option \(argument)")
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
        switch arity {
        case .any: break
        case let .none(sentence): if !positional.isEmpty { throw UsageError(sentence) }
        case let .one(sentence): if positional.count != 1 { throw UsageError(sentence) }
        }
    }

    /// Parses `arguments` as `init` does; a usage error is printed with the command's usage line, giving nil.
    static func parse(
        _ arguments: [String], usage: String, valued: Set<String> = [], switches: Set<String> = [],
        arity: Arity = .any
    ) -> Options? {
        do {
            return try Options(arguments, valued: valued, switches: switches, arity: arity)
        } catch {
            _ = usageFailure(error, usage)
            return nil
        }
    }

    /// Parses `arguments` as `parse` does (a usage error exits 64), then gives what `body` returns; an error it throws
    /// is reported as `ExitCode.reporting` does.
    static func run(
        _ arguments: [String], usage: String, valued: Set<String> = [], switches: Set<String> = [],
        arity: Arity = .any, _ body: (Options) throws -> Int32
    ) -> Int32 {
        guard let options = parse(arguments, usage: usage, valued: valued, switches: switches, arity: arity) else {
            return ExitCode.usage
        }
        return ExitCode.reporting { try body(options) }
    }

    /// The positional argument of a command whose arity is `.one` (empty when there is none).
    var argument: String { positional.first ?? "" }

    /// The last value of a valued flag.
    func value(_ name: String) -> String? { values[name]?.last }
}

/// A command line that does not fit its command's usage.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Prints a usage error and returns the usage exit code.
func usageFailure(_ error: Error, _ usage: String) -> Int32 {
    printError("\(error)")
    printError(usage.split(separator: "\n").first.map(String.init) ?? usage)
    return ExitCode.usage
}
