import Capture

/// `swiftcam ctl NAME COMMAND…`: one command to a running session over its control socket.
enum CtlCommand {
    static let usage = """
        usage: swiftcam ctl NAME COMMAND…

        Sends one command to 'swiftcam run NAME' and prints its reply line.
        Commands: \(CommandInterpreter.help)
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2 else { return usageFailure(UsageError("ctl takes a session name and a command"), usage) }
        let name = ConfigStore.sessionName(for: arguments[0])
        let command = arguments.dropFirst().joined(separator: " ")
        do {
            let reply = try ControlSocket.send(command, to: name)
            print(reply.description)
            return reply.isOK ? ExitCode.ok : ExitCode.dataError
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
    }
}
