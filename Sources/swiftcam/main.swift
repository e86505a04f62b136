// swiftcam: the command. It parses arguments and prints; Capture decides, Web and Publish are the
// transports it starts beside a session, Benchmark runs `swiftcam bench`. Imports those four (and
// Foundation, Glibc, Dispatch, Synchronization) only; nothing imports it.

import Capture
import Glibc

let exitCode = CommandLineTool(arguments: Array(CommandLine.arguments.dropFirst())).run()
exit(exitCode)
