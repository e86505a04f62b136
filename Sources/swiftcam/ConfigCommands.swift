import Base
import Capture
import Config
import FoundationEssentials
import Publish
import Web

/// `list`, `show`, `validate`.
enum ConfigCommands {
    static let listUsage = "usage: swiftcam list [--json]\n\nLists the configs in pipelines/ with their descriptions."
    static let showUsage =
        "usage: swiftcam show NAME [--set key=value…] [--dot FILE]\n\nPrints the description and the gst-launch equivalent of the built graph; --dot writes its Graphviz graph."
    static let validateUsage =
        "usage: swiftcam validate [FILE…]\n\nChecks every shipped config, or the files given; prints one line per problem."

    static func list(_ arguments: [String]) -> Int32 {
        guard let options = Options.parse(arguments, usage: listUsage, switches: ["--json"]) else { return ExitCode.usage }
        let store = ConfigStore.standard()
        var rows: [[String: String]] = []
        for name in store.names() {
            let description: String
            switch Result(catching: { try store.load(name) }) {
            case let .success(config): description = config.description ?? "(no description)"
            case .failure: description = "(invalid: run 'swiftcam validate')"
            }
            rows.append(["name": name, "description": description])
        }
        if options.flags.contains("--json") {
            printJSON(rows)
        } else {
            let width = rows.map { $0["name", default: ""].count }.max() ?? 0
            for row in rows {
                print(
                    "\(row["name", default: ""].padded(to: width + 2))\(row["description", default: ""].terminalSafe)"
                )
            }
        }
        return ExitCode.ok
    }

    static func show(_ arguments: [String]) -> Int32 {
        guard
            let options = Options.parse(
                arguments, usage: showUsage, valued: ["--set", "--dot"],
                arity: .one("show takes one config name"))
        else { return ExitCode.usage }
        let nameOrPath = options.argument
        let name = ConfigStore.sessionName(for: nameOrPath)
        let config: PipelineConfig
        do {
            config = try ConfigStore.standard().load(nameOrPath, overrides: options.values["--set"] ?? [])
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
        var builder = PipelineBuilder(config: config)
        do {
            builder = try builder.resolvingCameras()
        } catch {
            printError("\(error)")
            return ExitCode.for(error)
        }
        print("\(name.terminalSafe): \((config.description ?? "(no description)").terminalSafe)")
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .v4l2 || source.kind == .libcamera {
            if let plan = builder.cameraPlans[index] {
                print(plan.summary)
            } else if let plan = builder.libcameraPlans[index] {
                print(plan.summary)
                print("its process: " + plan.child.command)
            } else if source.kind == .libcamera {
                print(
                    "camera \(source.camera ?? "(the first)") (libcamera): not listed here; its mode is chosen when it is (`swiftcam devices` lists the cameras)"
                )
            } else {
                print(
                    "camera \(source.device ?? "/dev/video0"): not present here; its mode is chosen when it is (`swiftcam devices` lists the cameras)"
                )
            }
        }
        for index in builder.launchSources.keys.sorted() {
            guard let child = builder.launchSources[index] else { continue }
            print("\(child.label): in a child process (a crash in it restarts it): \(child.command)")
        }
        print("")
        print(builder.launchCommand)
        if config.launch == nil {
            let location = "\(config.record?.directory ?? "recordings")/\(name)-DATE.\(builder.recordExtension)"
            print("")
            print("recording (its own pipeline, its appsrc fed from a leaky tee branch on 'record start'):")
            print("  " + builder.recordingLaunchDescription(location: location).replacing("\n", with: "\n  "))
        }
        printServices(config, name: name)
        if let dot = options.value("--dot") {
            let graph: String
            do {
                graph = try builder.dotGraph()
            } catch {
                printError("cannot build the graph for --dot: \(error)")
                return ExitCode.for(error)
            }
            if let reason = writeText(graph, to: dot) {
                printError("cannot write the graph: \(reason)")
                return ExitCode.cantCreate
            }
            print("wrote \(dot)")
        }
        return ExitCode.ok
    }

    /// The camera screen and publishing a config asks for, and the one live encoder they share.
    private static func printServices(_ config: PipelineConfig, name: String) {
        guard config.http != nil || config.publish != nil else { return }
        print("")
        print("live encoder (one for every page viewer and publisher; runs while any is connected):")
        print("  " + LiveFormat.video.launchDescription(encoder: config.live?.encoder))
        if let http = config.http {
            if let web = try? WebOptions(parsing: http) {
                let reach =
                    web.servesTLS
                    ? "HTTPS with " + (config.https.map { "the certificate \($0.certificate)" } ?? "the certificate run makes and keeps")
                    : "plain HTTP, the token in clear text"
                let access =
                    web.isLoopback ? "loopback, no token" : "beyond loopback, \(reach): run needs --token TOKEN or --token generate"
                let host = web.host.contains(":") ? "[\(web.host)]" : web.host
                print("camera screen: \(web.servesTLS ? "https" : "http")://\(host):\(web.port)/ (\(access); run --http overrides it)")
            } else {
                print("camera screen: \(http) is not [ADDR:]PORT")
            }
        }
        if let publish = config.publish {
            print("publishing:")
            for line in PublishService.summary(publish, name: name) { print("  " + line) }
        }
    }

    static func validate(_ arguments: [String]) -> Int32 {
        guard let options = Options.parse(arguments, usage: validateUsage) else { return ExitCode.usage }
        let store = ConfigStore.standard()
        let files = options.positional.isEmpty ? store.names().map { store.path(of: $0) } : options.positional
        guard !files.isEmpty else {
            printError("no configs in \(store.directory)")
            return ExitCode.noInput
        }
        var status = ExitCode.ok
        for file in files {
            do {
                let config = try ConfigLoader.load(file: file)
                print("ok \(file.terminalSafe)" + (runNeeds(config).map { " (note: \($0))" } ?? ""))
            } catch {
                printError("\(error)")
                if status == ExitCode.ok { status = ExitCode.for(error) }
            }
        }
        return status
    }
}

/// What `run` will ask for besides the config (validate accepted a page for every address, which `run` then refused
/// without a token): nil when the config runs as it is.
func runNeeds(_ config: PipelineConfig) -> String? {
    guard let http = config.http, let options = try? WebOptions(parsing: http) else { return nil }
    do {
        _ = try options.checked()
        return nil
    } catch {
        guard case .tokenRequired = error else { return nil }
    }
    return "\"http\": \"\(http)\" serves beyond this machine, so run needs --token TOKEN or --token generate"
}

/// Prints a value as pretty JSON on stdout, paths plainly (no `\/`).
func printJSON<Value: Encodable>(_ value: Value) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(value) {
        print(String(decoding: data, as: UTF8.self))
    }
}
