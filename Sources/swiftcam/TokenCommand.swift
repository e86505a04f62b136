import Capture
import Config
import Web

/// `swiftcam token NAME`: the page token `run NAME --token generate` uses, kept across restarts.
enum TokenCommand {
    static let usage = """
        usage: swiftcam token NAME [--renew] [--state DIR]

        Prints the token of the camera page of 'swiftcam run NAME --http ADDR:PORT', the one --token generate
        uses, making one the first time, and the SHA-256 fingerprint of the page's kept HTTPS certificate if run
        made one; --renew replaces it (a running host keeps its token until it restarts,
        and pages holding the old one must open the new URL). It is kept, readable by its owner only, in
        DIR/web/NAME.token: DIR is --state, else $STATE_DIRECTORY (a service's StateDirectory), else
        $XDG_STATE_HOME/swiftcam, else ~/.local/state/swiftcam. For the service swiftcam@NAME:
        sudo -u swiftcam swiftcam token NAME --state /var/lib/swiftcam
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard
            let options = Options.parse(
                arguments, usage: usage, valued: ["--state"], switches: ["--renew"], arity: .one("token takes one config name"))
        else { return ExitCode.usage }
        let name = ConfigStore.sessionName(for: options.argument)
        guard let state = options.value("--state").map(HostState.init(directory:)) ?? HostState.standard() else {
            printError("no state folder: set HOME or STATE_DIRECTORY, or pass --state DIR")
            return ExitCode.usage
        }
        do {
            let kept = try state.token(for: name, renew: options.flags.contains("--renew"))
            print(kept.token)
            let path = state.tokenPath(for: name)
            printError(kept.made ? "a new token, kept in \(path)" : "kept in \(path) (--renew replaces it)", priority: .notice)
            if let certificate = try state.existingCertificate(for: name) {
                printError("HTTPS certificate SHA-256 \(certificate.fingerprint) (\(certificate.origin))", priority: .notice)
            }
            return ExitCode.ok
        } catch {
            printError("\(error)")
            return ExitCode.cantCreate
        }
    }
}
