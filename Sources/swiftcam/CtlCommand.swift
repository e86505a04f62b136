import Capture
import Config
import Control

/// `swiftcam ctl NAME COMMAND…`: one command to a running session over its control socket.
enum CtlCommand {
    static let usage = """
        usage: swiftcam ctl NAME COMMAND…

        Sends one command to 'swiftcam run NAME' and prints its reply line; with --json (stats --json) a
        successful reply is printed as bare JSON, for jq.
        Commands: \(CommandInterpreter.help)
        'swiftcam ctl NAME events' streams the session's analysis events (event motion start area=… box=…), one
        line each, until the session ends or Ctrl-C.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2 else { return usageFailure(UsageError("ctl takes a session name and a command"), usage) }
        let name = ConfigStore.sessionName(for: arguments[0])
        let command = arguments.dropFirst().joined(separator: " ")
        return ExitCode.reporting {
            if command == "events" {
                // A stream: the reply, then one line per event until the session ends or Ctrl-C.
                let reply = try ControlSocket.streamEvents(from: name) { line in
                    Output.line(line)  // written at once, control characters escaped
                    return true
                }
                if !reply.isOK { print(reply.description) }
                return reply.isOK ? ExitCode.ok : ExitCode.dataError
            }
            let reply = try ControlSocket.send(command, to: name)
            // `stats --json` is for programs: the JSON alone, not the `ok ` of the reply line (errors stay lines on stdout).
            if case let .ok(json) = reply, arguments.dropFirst().contains("--json") {
                print(json)
            } else {
                print(reply.description)
            }
            return reply.isOK ? ExitCode.ok : ExitCode.dataError
        }
    }
}
