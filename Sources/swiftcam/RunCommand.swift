import Analysis
import Base
import Capture
import Config
import FoundationEssentials
import Glibc
import Host
import Synchronization
import Web

/// `swiftcam run NAME`: plays a config until it ends, a limit is reached, `quit`, Ctrl-C or SIGTERM;
/// every file is finalized on the way out.
enum RunCommand {
    static let usage = """
        usage: swiftcam run NAME [--set key=value…] [--frames N] [--duration SECONDS] [--rtsp [ADDR:]PORT] [--dot FILE] [--no-control]
                            [--http [SCHEME://][ADDR:]PORT [--token TOKEN|generate] [--tls-cert FILE --tls-key FILE]]
                            [--metrics [ADDR:]PORT] [--verbose]

        Runs pipelines/NAME.json. While it runs, commands come from stdin and from the control socket
        (swiftcam ctl NAME COMMAND): \(CommandInterpreter.help).
        --rtsp serves the filtered stream at rtsp://ADDR:PORT/NAME (publish.rtsp in the config; 127.0.0.1 unless
        ADDR says otherwise, and beyond loopback only with a user and password). A stats line refreshes every second. Ctrl-C or SIGTERM sends end-of-stream, finalizes files, exits 0.
        --http serves the camera screen to a browser (live WebRTC preview, MJPEG fallback, every control) on
        ADDR:PORT (default address 127.0.0.1; config key "http"). Any address but loopback needs a token:
        --token TOKEN, or --token generate for the one kept for NAME (made the first time, kept across restarts:
        swiftcam token NAME); without --token the kept one is used if there is one. On 0.0.0.0 or :: a URL is
        printed for each of the machine's addresses. Beyond loopback the page is HTTPS (and its WebSocket WSS):
        --tls-cert FILE --tls-key FILE (config "https") name a certificate, else one is made once, kept beside the
        token and its SHA-256 fingerprint printed, to compare with what the browser shows. Plain HTTP beyond
        loopback only when asked for by name: --http http://ADDR:PORT (the token then crosses the network in clear
        text). With --http, a camera that is missing or not allowed keeps the page up with the reason until Ctrl-C.
        --metrics serves GET /metrics (Prometheus text format; the --http server has it too) and nothing else on ADDR:PORT;
        a camera that is missing or not allowed keeps it up, showing the status, until Ctrl-C.
        Under systemd (NOTIFY_SOCKET set), SIGHUP (systemctl reload) re-reads the config: a changed filter is set live, other
        changes rebuild the graph, a config that does not load is refused and the running one stays; READY=1 comes with the
        first filtered frame and WATCHDOG=1 while frames flow (docs/service.md).
        A camera that fails is reported in one sentence (`status failed: camera /dev/video0 …`); --verbose also prints
        GStreamer's own message for every failure and warning (GST_DEBUG=swiftcam:2 does the same).
        """

    /// The page's options for `--http ADDR` and `--token`: a token as given; `generate`, the one kept for session `name`
    /// (made the first time, on any address: asked for, it is used on loopback too); none on a non-loopback bind, the
    /// kept one when there is one (a service's), else refused. Says which kept token it took, and where it is. Over
    /// HTTPS, the certificate of `files`, else the kept one (made the first time).
    static func webOptions(address: String, token: String?, name: String, files: HTTPSConfig? = nil) throws -> WebOptions {
        var web = try WebOptions(parsing: address, token: token == "generate" ? nil : token)
        let wanted = token == "generate" || (token == nil && !web.isLoopback)
        if wanted, let state = HostState.standard() {
            let path = state.tokenPath(for: name)
            if token == "generate" {
                let kept = try state.token(for: name)
                web.token = kept.token
                Output.line(
                    kept.made ? "token made and kept in \(path) (swiftcam token \(name) --renew replaces it)" : "token kept in \(path)")
            } else if let kept = try state.existingToken(for: name) {
                web.token = kept
                Output.line("token kept in \(path)")
            }
        }
        try web.checkedToken()
        if web.sendsTokenInClear {
            Output.error(
                "warning: \(address) serves plain HTTP beyond loopback: the token crosses the network in clear text", priority: .warning)
        }
        if let files {
            guard web.servesTLS else {
                throw UsageError("--tls-cert and --tls-key (config \"https\") go with an HTTPS page, but \(address) is plain HTTP")
            }
            web.tls = try TLSIdentity(certificateFile: files.certificate, keyFile: files.key)
        } else if web.servesTLS, let state = HostState.standard() {
            let kept = try state.certificate(for: name, names: certificateNames(for: web.host))
            web.tls = kept.identity
            if kept.made { Output.line("HTTPS certificate made and kept in \(kept.identity.origin)") }
        }
        return try web.checked()
    }

    /// What a made certificate names: the addresses the page is reached at, and this machine's names.
    private static func certificateNames(for host: String) -> [String] {
        var names = URLHost.reachable(forAddress: host) + ["127.0.0.1", "::1", "localhost"]
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty, name != "localhost" { names += [name, name + ".local"] }
        }
        var seen = Set<String>()
        return names.map { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }.filter { seen.insert($0).inserted }
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard
            let options = Options.parse(
                arguments, usage: usage,
                valued: ["--set", "--frames", "--duration", "--dot", "--rtsp", "--http", "--token", "--metrics", "--tls-cert", "--tls-key"],
                switches: ["--no-control", "--quiet", "--verbose"], arity: .one("run takes one config name"))
        else { return ExitCode.usage }
        let nameOrPath = options.argument
        let config: PipelineConfig
        let overrides: [String]
        do {
            // --duration and --frames set the config keys of the same names, but the user typed them here: a bad one is a
            // usage error naming the option (not the config file), bounded as the keys are.
            for text in options.values["--duration"] ?? [] where !(Double(text).map(Limits.isDuration) ?? false) {
                return usageFailure(UsageError("--duration: \(text) is not \(Limits.durationRule)"), usage)
            }
            for text in options.values["--frames"] ?? [] where !((Int(text) ?? 0) > 0) {
                return usageFailure(UsageError("--frames: \(text) is not a whole number of frames, at least 1"), usage)
            }
            let limits =
                (options.values["--duration"] ?? []).map { "duration=\($0)" } + (options.values["--frames"] ?? []).map { "frames=\($0)" }
            if let value = options.value("--rtsp"), !validRTSPAddress(value) {
                return usageFailure(
                    UsageError(
                        "--rtsp takes [ADDR:]PORT with PORT 0…65535 and ADDR an IP address, e.g. --rtsp 8554 or --rtsp 0.0.0.0:8554"), usage
                )
            }
            if options.value("--http")?.isEmpty == true {
                return usageFailure(UsageError("--http takes [ADDR:]PORT, e.g. --http 8080 or --http 0.0.0.0:8080"), usage)
            }
            let rtsp = options.value("--rtsp").map(rtspOverrides) ?? []
            overrides = (options.values["--set"] ?? []) + limits + rtsp
            config = try ConfigStore.standard().load(nameOrPath, overrides: overrides)
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
        var hostOptions = HostOptions(name: ConfigStore.sessionName(for: nameOrPath), config: config)
        let certificate = options.value("--tls-cert"), key = options.value("--tls-key")
        if (certificate == nil) != (key == nil) {
            return usageFailure(UsageError("--tls-cert FILE and --tls-key FILE go together"), usage)
        }
        let files = certificate.flatMap { certificate in key.map { HTTPSConfig(certificate: certificate, key: $0) } } ?? config.https
        if let address = options.value("--http") ?? config.http {
            do {
                hostOptions.web = try webOptions(address: address, token: options.value("--token"), name: hostOptions.name, files: files)
            } catch let error as HostStateError {
                printError("\(error)")
                return ExitCode.cantCreate
            } catch let error as TLSIdentityError {
                printError("\(error)")
                return error == .noBackend ? ExitCode.unavailable : error.isMissingFile ? ExitCode.noInput : ExitCode.dataError
            } catch {
                return usageFailure(UsageError("\(error)"), usage)
            }
        } else if options.value("--token") != nil || certificate != nil {
            return usageFailure(UsageError("\(options.value("--token") != nil ? "--token" : "--tls-cert") goes with --http"), usage)
        }
        if let text = options.value("--metrics") {
            guard !text.isEmpty, let address = try? WebOptions(parsing: text) else {
                return usageFailure(
                    UsageError(
                        "--metrics takes [ADDR:]PORT with a numeric address and a port from 0 to 65535, e.g. "
                            + "--metrics 9464 or --metrics 0.0.0.0:9464 (got '\(text.terminalSafe)')"), usage)
            }
            hostOptions.metrics = address
        }
        hostOptions.serviceManager = ServiceManager()
        // Under a service manager SIGHUP (systemctl reload) reads the same file with the same options again; anywhere
        // else it still means the terminal went away, and ends the run.
        if hostOptions.serviceManager != nil {
            hostOptions.reload = { try ConfigStore.standard().load(nameOrPath, overrides: overrides) }
        }
        if let text = ProcessInfo.processInfo.environment["SWIFTCAM_TEST_STALL_AFTER_FRAMES"] {
            guard let frames = Int(text), frames > 0 else {
                return usageFailure(
                    UsageError("SWIFTCAM_TEST_STALL_AFTER_FRAMES: \(text.terminalSafe) is not a whole number of frames, at least 1"), usage)
            }
            hostOptions.stallAfterFrames = frames
        }
        hostOptions.controlSocket = !options.flags.contains("--no-control")
        hostOptions.reportsStats = !options.flags.contains("--quiet")
        if options.flags.contains("--verbose") { CaptureSession.showGStreamerMessages() }
        let dot = options.value("--dot")
        // Checked before the camera starts, as `bench --json` is: a typo must not cost the run and then exit 0.
        if let dot, let reason = SwiftCam.problem(writing: dot) {
            printError("--dot: cannot write the graph to \(dot): \(reason)")
            return ExitCode.cantCreate
        }
        let shownOn = hostOptions.web != nil ? "the camera screen" : "/metrics"
        let outcome = CameraHost(options: hostOptions, observers: [{ report($0, dot: dot, shownOn: shownOn) }]).run()
        if let summary = outcome.summary {
            Output.finishStatsLine()
            if let recorded = summary.recorded { Output.line("recorded \(recorded)") }
            Output.line("stats \(summary.stats)")
        }
        switch outcome {
        case let .notStarted(error):
            printError("\(error)")
            return ExitCode.for(error)
        case let .pageUnavailable(error):
            printError("\(error)")
            return ExitCode.unavailable
        case let .shownUntilStopped(error):
            return ExitCode.for(error)
        case let .cameraFailed(status, _):
            printError("status \(status)")
            return ExitCode.for(kind: status.kind)
        case let .outputsFailed(failed, first, _):
            printError("\(failed) still\(failed == 1 ? "" : "s") or recording\(failed == 1 ? "" : "s") failed (see above)")
            // A folder this user may not write is a permission problem (77), whatever else failed after it.
            return first == .permission ? ExitCode.permission : ExitCode.ioError
        case .stopped:
            Output.line("stopped \(hostOptions.name)")
            return ExitCode.ok
        }
    }

    /// Prints what the host reports; on `.ready`, writes the graph to `dot` and starts reading commands from stdin.
    /// `shownOn` names what shows a camera that failed to start until Ctrl-C.
    private static func report(_ event: HostEvent, dot: String?, shownOn: String) {
        switch event {
        case let .session(.stillWritten(path)): Output.line("still \(path)")
        case let .session(.stillFailed(reason)): Output.error("still failed: \(reason)")
        case let .session(.recordingFailed(reason)): Output.error("recording failed: \(reason)")
        case let .session(.warning(text)): Output.error("warning: \(text)", priority: .warning)
        case let .session(.failed(status)): Output.error("status \(status)")
        case .session(.endOfStream): break
        case let .session(.notice(text)): Output.line(text)
        case let .session(.analysis(event)): Output.line("event \(event.line)")
        case let .cameraScreen(url): Output.line("camera screen \(url)")
        case let .certificate(fingerprint, origin): Output.line("certificate SHA-256 \(fingerprint) (\(origin))")
        case let .metrics(url): Output.line("metrics \(url)")
        case let .showingFailure(error): printError("\(error); \(shownOn) shows it until Ctrl-C")
        case let .rtsp(url): Output.line("rtsp \(url)")
        case let .pushing(target): Output.line("pushing to \(target)")
        case let .running(name, description): Output.line("running \(name)" + (description.map { ": \($0)" } ?? ""))
        case let .controlSocket(path): Output.line("control socket \(path)")
        case let .controlSocketUnavailable(error): Output.error("\(error); stdin control only")
        case .reloaded(.unchanged): Output.line("reloaded: the config is unchanged")
        case let .reloaded(.filterChanged(detail)): Output.line("reloaded: \(detail), on the running graph")
        case let .reloaded(.restarting(changed)):
            Output.line("reloaded: \(changed.isEmpty ? "the config" : changed.joined(separator: ", ")) changed; restarting the graph")
        case let .reloadFailed(error): Output.error("reload refused, the running config stays: \(error)")
        case let .ready(console):
            readCommands(with: console)
            if let dot, let graph = console.session.dotDescription() {
                if let reason = writeText(graph, to: dot) { Output.error("cannot write the graph: \(reason)") }
            }
        case let .stats(line): Output.stats(line)
        }
    }

    /// The console's interpreter of the session running now (a reload that rebuilds the graph brings another).
    private static let console = Locked<CommandInterpreter?>(nil)

    /// Reads command lines from stdin on a thread of its own until end of input, each for the session running then;
    /// started once, with the first session.
    private static func readCommands(with interpreter: CommandInterpreter) {
        let first = console.withLock { console in
            defer { console = interpreter }
            return console == nil
        }
        guard first else { return }
        SystemThread.detached(name: "swiftcam-stdin") {
            while let line = readLine() {
                guard !line.trimmed.isEmpty, let interpreter = console.withLock({ $0 }) else { continue }
                Output.line(interpreter.execute(line).description)
            }
        }
    }
}

/// Serializes what `run` prints; on a terminal the stats line is redrawn in place. Writes straight to
/// file descriptor 1: stdio's flush-all would wait on stdin's lock, which the command reader holds.
enum Output {
    private static let state = Locked((statsShown: false, terminal: isatty(STDOUT_FILENO) != 0))

    private static func write(_ text: String) {
        _ = SystemCall.writeAll(STDOUT_FILENO, text.utf8)
    }

    /// One line, its control characters escaped: paths and descriptions come from files and configs.
    static func line(_ text: String) {
        state.withLock { state in
            write((state.statsShown ? "\n" : "") + Journal.prefix(.info, standardError: false) + text.terminalSafe + "\n")
            state.statsShown = false
        }
    }

    static func error(_ text: String, priority: LogPriority = .error) {
        state.withLock { state in
            if state.statsShown { write("\n") }
            state.statsShown = false
            printError(text, priority: priority)
        }
    }

    static func stats(_ text: String) {
        state.withLock { state in
            if state.terminal {
                write("\r\u{1B}[K\(text)")
                state.statsShown = true
            } else {
                write(Journal.prefix(.info, standardError: false) + "stats \(text)\n")
            }
        }
    }

    static func finishStatsLine() {
        state.withLock { state in
            if state.statsShown { write("\n") }
            state.statsShown = false
        }
    }
}
