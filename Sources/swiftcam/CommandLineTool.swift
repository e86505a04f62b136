import Capture
import Glibc

/// sysexits(3) codes, as STYLE.md 10 maps errors.
enum ExitCode {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let cantCreate: Int32 = 73
    static let permission: Int32 = 77
}

/// Prints one line to stderr.
func printError(_ line: String) {
    let text = "swiftcam: \(line)\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

/// The `swiftcam` command: dispatches to subcommands.
struct CommandLineTool {
    let arguments: [String]

    static let usage = """
        usage: swiftcam COMMAND [OPTIONS]

        SwiftCam runs camera pipelines on GStreamer with filters written in Swift.

        commands:
          --version     print the version
          --help        print this help
        """

    func run() -> Int32 {
        guard let command = arguments.first else {
            print(Self.usage)
            return ExitCode.usage
        }
        switch command {
        case "--help", "-h", "help":
            print(Self.usage)
            return ExitCode.ok
        case "demo":
            return Demo.run()
        case "bench":
            return Bench.run(Array(arguments.dropFirst()))
        case "--version", "version":
            print(SwiftCam.versionLine)
            return ExitCode.ok
        default:
            printError("unknown command '\(command)'; see 'swiftcam --help'")
            return ExitCode.usage
        }
    }
}
