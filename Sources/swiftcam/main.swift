import Capture
import Glibc

// The executable parses and prints; Capture decides.
let exitCode = CommandLineTool(arguments: Array(CommandLine.arguments.dropFirst())).run()
exit(exitCode)
