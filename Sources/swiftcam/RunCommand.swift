import Capture
import Publish
import Dispatch
import Foundation
import Glibc
import Synchronization
import Web

/// Posted by the SIGINT/SIGTERM handler (`sem_post` is async-signal-safe); a thread waits on it.
nonisolated(unsafe) var stopSignal = sem_t()

/// `swiftcam run NAME`: plays a config until it ends, a limit is reached, `quit`, Ctrl-C or SIGTERM;
/// every file is finalized on the way out.
enum RunCommand {
    static let usage = """
        usage: swiftcam run NAME [--set key=value…] [--frames N] [--duration SECONDS] [--rtsp [ADDR:]PORT] [--dot FILE] [--no-control]
                            [--http [ADDR:]PORT [--token TOKEN|generate]] [--metrics [ADDR:]PORT] [--verbose]

        Runs pipelines/NAME.json. While it runs, commands come from stdin and from the control socket
        (swiftcam ctl NAME COMMAND): \(CommandInterpreter.help).
        --rtsp serves the filtered stream at rtsp://ADDR:PORT/NAME (publish.rtsp in the config; 127.0.0.1 unless
        ADDR says otherwise, and beyond loopback only with a user and password). A stats line refreshes every second. Ctrl-C or SIGTERM sends end-of-stream, finalizes files, exits 0.
        --http serves the camera screen to a browser (live WebRTC preview, MJPEG fallback, every control) on
        ADDR:PORT (default address 127.0.0.1; config key "http"). Any address but loopback needs a token:
        --token TOKEN, or --token generate to have one made and printed once. With --http, a camera that is
        missing or not allowed keeps the page up with the reason until Ctrl-C.
        --metrics serves GET /metrics (Prometheus text format; the --http server has it too) and nothing else on ADDR:PORT;
        a camera that is missing or not allowed keeps it up, showing the status, until Ctrl-C.
        A camera that fails is reported in one sentence (`status failed: camera /dev/video0 …`); --verbose also prints
        GStreamer's own message for every failure and warning (GST_DEBUG=swiftcam:2 does the same).
        """

    static func run(_ arguments: [String]) -> Int32 {
        let options: Options
        do {
            options = try Options(arguments, valued: ["--set", "--frames", "--duration", "--dot", "--rtsp", "--http", "--token", "--metrics"],
                                  switches: ["--no-control", "--quiet", "--verbose"])
        } catch {
            return usageFailure(error, usage)
        }
        guard options.positional.count == 1, let nameOrPath = options.positional.first else {
            return usageFailure(UsageError("run takes one config name"), usage)
        }
        let config: PipelineConfig
        do {
            // --duration and --frames set the config keys of the same names, but the user typed them here: a bad one is a
            // usage error naming the option (not the config file), bounded as the keys are.
            for text in options.values["--duration"] ?? [] where !(Double(text).map(Limits.isDuration) ?? false) {
                return usageFailure(UsageError("--duration: \(text) is not \(Limits.durationRule)"), usage)
            }
            for text in options.values["--frames"] ?? [] where !((Int(text) ?? 0) > 0) {
                return usageFailure(UsageError("--frames: \(text) is not a whole number of frames, at least 1"), usage)
            }
            let limits = (options.values["--duration"] ?? []).map { "duration=\($0)" } + (options.values["--frames"] ?? []).map { "frames=\($0)" }
            if let value = options.value("--rtsp"), !validRTSPAddress(value) {
                return usageFailure(UsageError("--rtsp takes [ADDR:]PORT with PORT 0…65535 and ADDR an IP address, e.g. --rtsp 8554 or --rtsp 0.0.0.0:8554"), usage)
            }
            if options.value("--http")?.isEmpty == true {
                return usageFailure(UsageError("--http takes [ADDR:]PORT, e.g. --http 8080 or --http 0.0.0.0:8080"), usage)
            }
            let rtsp = options.value("--rtsp").map(rtspOverrides) ?? []
            config = try ConfigStore.standard().load(nameOrPath, overrides: (options.values["--set"] ?? []) + limits + rtsp)
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
        let name = ConfigStore.sessionName(for: nameOrPath)
        var web: WebOptions?
        if let address = options.value("--http") ?? config.http {
            do {
                let token = options.value("--token")
                web = try WebOptions(parsing: address, token: token == "generate" ? nil : token)
                    .checked(generatingToken: token == "generate")
            } catch {
                return usageFailure(UsageError("\(error)"), usage)
            }
        } else if options.value("--token") != nil {
            return usageFailure(UsageError("--token goes with --http"), usage)
        }
        let metricsOptions: WebOptions?
        do { metricsOptions = try HostMetricsSource.options(options.value("--metrics")) } catch { return usageFailure(error, usage) }
        if let publish = config.publish {
            // Before the camera opens: a server that would be refused is a config problem, said first.
            do { try PublishService.check(publish, name: name) } catch {
                printError("\(error)")
                return ExitCode.for(error)
            }
        }
        if options.flags.contains("--verbose") { CaptureSession.showGStreamerMessages() }
        // A window without a display segfaults inside GStreamer; a missing file fails as "internal error": say why first.
        do { try PipelineBuilder(config: config).preflight() } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
        let session = CaptureSession(name: name, config: config)
        let quiet = options.flags.contains("--quiet")
        let webServer = WebServerSlot()
        let metrics = HostMetricsSource(session: session, page: webServer)
        session.onEvent { event in
            webServer.withLock { $0 }?.notify(event)
            switch event {
            case let .stillWritten(path): Output.line("still \(path)")
            case let .stillFailed(reason): Output.error("still failed: \(reason)")
            case let .recordingFailed(reason): Output.error("recording failed: \(reason)")
            case let .warning(text): Output.error("warning: \(text)")
            case let .failed(status): Output.error("status \(status)")
            case .endOfStream: break
            case let .notice(text): Output.line(text)
            }
        }

        installSignalHandlers(stopping: session)

        let interpreter = CommandInterpreter(session: session) { session.requestStop() }
        var startFailure: (any Error)?
        do {
            try session.start()
        } catch {
            guard web != nil || metricsOptions != nil else {
                printError("\(error)")
                return ExitCode.for(error)
            }
            startFailure = error
        }
        let metricsServer: WebServer?
        do { metricsServer = try metrics.serve(metricsOptions, interpreter: interpreter) } catch {
            session.stop()
            printError("\(error)")
            return ExitCode.unavailable
        }
        if let web {
            let server = WebServer(session: session, interpreter: interpreter, options: web,
                                   galleryDirectories: [config.still?.directory ?? "captures", config.record?.directory ?? "recordings"],
                                   metrics: { metrics.snapshot() })
            do {
                try server.start()
            } catch {
                metricsServer?.stop()
                session.stop()
                printError("\(error)")
                return ExitCode.unavailable
            }
            webServer.withLock { $0 = server }
            Output.line("camera screen \(server.url)")
        }
        if let startFailure {
            // The page stays up and shows the reason (the `unconfigured`, `unauthorized` or `failed` banner) until
            // Ctrl-C: a session that failed while starting has already ended, so wait for the stop request itself.
            printError("\(startFailure); \(web != nil ? "the camera screen" : "/metrics") shows it until Ctrl-C")
            session.waitForStopRequest()
            webServer.withLock { $0 }?.stop()
            metricsServer?.stop()
            return ExitCode.for(startFailure)
        }
        let publishing: PublishService?
        do {
            publishing = try startPublishing(config, name: name, session: session)
        } catch {
            printError("\(error)")
            webServer.withLock { $0 }?.stop()
            metricsServer?.stop()
            session.stop()
            return ExitCode.for(error)
        }
        metrics.publish(publishing)
        Output.line("running \(name)" + (config.description.map { ": \($0)" } ?? ""))

        var server: ControlServer?
        if !options.flags.contains("--no-control") {
            do {
                server = try ControlServer(name: name, interpreter: interpreter)
                Output.line("control socket \(ControlSocket.path(for: name))")
            } catch {
                Output.error("\(error); stdin control only")
            }
        }
        readCommands(with: interpreter)
        if let dot = options.value("--dot"), let graph = session.dotDescription() {
            if let reason = writeText(graph, to: dot) { Output.error("cannot write the graph: \(reason)") }
        }
        let ticker = quiet ? nil : statsTicker(session)

        session.waitUntilDone(frames: config.frames, duration: config.duration)
        ticker?.cancel()
        server?.shutdown()
        webServer.withLock { $0 }?.stop()
        metricsServer?.stop()
        publishing?.stop()
        let failedBeforeStop = session.status
        let recording = session.stats.recording
        session.stop()
        Output.finishStatsLine()
        // A recording still running at the end is finalized by the stop: say where it is.
        if let recording, session.stats.recordingFailure == nil { Output.line("recorded \(recording)") }
        Output.line("stats \(session.stats.line)")
        switch failedBeforeStop {
        case .failed, .cameraFailed, .busy:
            printError("status \(failedBeforeStop)")
            return ExitCode.for(kind: failedBeforeStop.kind)
        case .configured, .unconfigured, .unauthorized:
            break
        }
        let failed = session.failedOutputs
        if failed > 0 {
            printError("\(failed) still\(failed == 1 ? "" : "s") or recording\(failed == 1 ? "" : "s") failed (see above)")
            // A folder this user may not write is a permission problem (77), whatever else failed after it.
            return session.firstOutputFailure == .permission ? ExitCode.permission : ExitCode.ioError
        }
        Output.line("stopped \(name)")
        return ExitCode.ok
    }

    /// SIGINT, SIGTERM and SIGHUP (the terminal went away) become a stop request (end-of-stream, then exit), not an abrupt exit. A plain
    /// sigaction handler that only posts a semaphore: async-signal-safe, and it works whatever signal
    /// mask or disposition the parent left us (an inherited SIG_IGN is replaced). A thread waiting on the
    /// semaphore asks the session to stop.
    private static func installSignalHandlers(stopping session: CaptureSession) {
        sem_init(&stopSignal, 0, 0)
        let waiter = Thread {
            while sem_wait(&stopSignal) != 0 {}  // EINTR: wait again
            session.requestStop()
        }
        waiter.name = "swiftcam-signals"
        waiter.start()
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in sem_post(&stopSignal) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, number)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        }
    }

    /// Reads command lines from stdin on a thread of its own until end of input.
    private static func readCommands(with interpreter: CommandInterpreter) {
        let thread = Thread {
            while let line = readLine() {
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                Output.line(interpreter.execute(line).description)
            }
        }
        thread.name = "swiftcam-stdin"
        thread.start()
    }

    /// Refreshes the stats line once a second: in place on a terminal, a plain line otherwise.
    private static func statsTicker(_ session: CaptureSession) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcam.stats"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { Output.stats(session.stats.line) }
        timer.resume()
        return timer
    }
}

/// Serializes what `run` prints; on a terminal the stats line is redrawn in place. Writes straight to
/// file descriptor 1: stdio's flush-all would wait on stdin's lock, which the command reader holds.
enum Output {
    private static let state = Mutex((statsShown: false, terminal: isatty(STDOUT_FILENO) != 0))

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// One line, its control characters escaped: paths and descriptions come from files and configs.
    static func line(_ text: String) {
        state.withLock { state in
            write((state.statsShown ? "\n" : "") + text.terminalSafe + "\n")
            state.statsShown = false
        }
    }

    static func error(_ text: String) {
        state.withLock { state in
            if state.statsShown { write("\n") }
            state.statsShown = false
            printError(text)
        }
    }

    static func stats(_ text: String) {
        state.withLock { state in
            if state.terminal {
                write("\r\u{1B}[K\(text)")
                state.statsShown = true
            } else {
                write("stats \(text)\n")
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

/// The browser screen's server, set once it listens; session events (on the bus thread) reach it.
final class WebServerSlot: Sendable {
    private let server = Mutex<WebServer?>(nil)

    func withLock<T>(_ body: (inout WebServer?) -> T) -> T { server.withLock { body(&$0) } }
}
