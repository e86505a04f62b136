import Config
import Foundation
import Glibc
import Testing

@testable import Capture
@testable import Host

/// What a service manager (systemd, `Type=notify`) hears from a host, read from a datagram socket the test listens on
/// as `NOTIFY_SOCKET`; and the reload a SIGHUP asks for.
@Suite struct HostServiceManagerTests {
    /// A live test pattern whose first frame reaches the filter `seconds` after the graph plays (a queue holds the
    /// filter's branch until it has that much), then flows at 30 fps; a second branch lets the graph reach PLAYING (a
    /// live graph gets there with its first buffer at the sinks) before any frame is filtered. `source0` is what the
    /// stall hook pauses.
    private static func delayedSource(seconds: Double, chain: String = "sepia") -> String {
        let hold = Int(seconds * 1e9)
        return #"{"launch": "videotestsrc name=source0 is-live=true ! video/x-raw,width=64,height=48,framerate=30/1 ! "#
            + #"tee name=t ! queue ! fakesink sync=false t. ! "#
            + #"queue min-threshold-time=\#(hold) max-size-time=0 max-size-buffers=0 max-size-bytes=0 ! "#
            + #"swiftfilter chain=\"\#(chain)\" ! fakesink sync=false async=false"}"#
    }

    /// `READY=1` comes with a filtered frame, not when the graph starts playing; `WATCHDOG=1` comes while frames flow
    /// and stops when they stop (the sources stalled, the process and pipeline running on); `STATUS=` names the state
    /// and rate; `STOPPING=1` comes with the stop.
    @Test func theManagerHearsReadyAfterAFrameTheWatchdogWhileFramesFlowAndTheStop() async throws {
        let listener = try NotifyListener()
        defer { listener.close() }
        let run = try HostRun(Self.delayedSource(seconds: 1)) {
            $0.serviceManager = ServiceManager(socket: listener.name, watchdog: 1)
        }
        listener.sampling { [host = run.host] in host.session.framesFiltered }
        #expect(await run.ready())
        #expect(await listener.waitUntilReceived("READY=1"))
        let ready = try #require(listener.received.first { $0.fields.contains("READY=1") })
        #expect(ready.sample >= 1, "READY=1 came before any frame left the filter")

        // Pings at half the interval (0.5 s) while frames flow; the status names the state and the rate.
        #expect(await listener.wait(for: "WATCHDOG=1", more: 3))
        #expect(await listener.wait(for: "STATUS="))
        let status = try #require(listener.fields.last { $0.hasPrefix("STATUS=") && $0.contains("fps") })
        #expect(status.contains("\(run.host.options.name): configured, "), "\(status)")

        #expect(run.host.session.stallSources() == 1)
        // Frames already past the source may still come: wait two status ticks (half a second each), then no ping in
        // the two after, two watchdog half-intervals.
        #expect(await listener.wait(for: "STATUS=", more: 2))
        let pings = listener.count("WATCHDOG=1"), frames = run.host.session.framesFiltered
        #expect(await listener.wait(for: "STATUS=", more: 2))
        #expect(run.host.session.framesFiltered == frames)
        #expect(listener.count("WATCHDOG=1") == pings, "WATCHDOG=1 went on with no frame: \(listener.fields.suffix(6))")

        run.host.requestStop()
        guard case .stopped = await run.outcome() else { Issue.record("not a clean stop"); return }
        #expect(listener.fields.contains("STOPPING=1"))
        #expect(listener.fields.firstIndex(of: "STOPPING=1")! > listener.fields.firstIndex(of: "READY=1")!)
    }

    /// An abstract socket (`@name`) is named by its bytes after a NUL; a datagram reaches it whole.
    @Test func anAbstractSocketGetsTheDatagram() async throws {
        let listener = try NotifyListener(abstract: true)
        defer { listener.close() }
        let notifier = try #require(ServiceNotifier(ServiceManager(socket: listener.name)))
        #expect(notifier.send("READY=1", "STATUS=up"))
        #expect(await listener.waitUntilReceived("READY=1"))
        #expect(listener.received.first?.fields == ["READY=1", "STATUS=up"])
    }

    /// The environment systemd sets: a socket path or abstract name, the watchdog in microseconds for the process it
    /// names; anything else is no manager (or no watchdog).
    @Test func theEnvironmentNamesTheManager() {
        let pid = getpid()
        #expect(ServiceManager(environment: [:]) == nil)
        #expect(ServiceManager(environment: ["NOTIFY_SOCKET": "relative/notify"]) == nil)
        #expect(ServiceManager(environment: ["NOTIFY_SOCKET": "@"]) == nil)
        #expect(ServiceManager(environment: ["NOTIFY_SOCKET": "/run/systemd/notify"]) == ServiceManager(socket: "/run/systemd/notify"))
        let watched = ServiceManager(environment: ["NOTIFY_SOCKET": "@n", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid)"], pid: pid)
        #expect(watched?.watchdog == 3)
        #expect(
            ServiceManager(environment: ["NOTIFY_SOCKET": "@n", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "\(pid + 1)"], pid: pid)?
                .watchdog == nil)
        #expect(ServiceManager(environment: ["NOTIFY_SOCKET": "@n", "WATCHDOG_USEC": "soon"])?.watchdog == nil)
    }

    /// Priorities go to a stream only when `JOURNAL_STREAM` names that very stream (device and inode).
    @Test func theJournalStreamIsMatchedByDeviceAndInode() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        let descriptor = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor); unlink(file) }
        var info = stat()
        try #require(fstat(descriptor, &info) == 0)
        #expect(ServiceManager.writesToJournal(descriptor, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!ServiceManager.writesToJournal(descriptor, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!ServiceManager.writesToJournal(descriptor, environment: [:]))
    }
}

/// A reload re-reads the config file: a changed filter is set on the running graph; another change rebuilds the graph
/// with the new config; a config that does not load keeps the running one and says why.
@Suite struct HostReloadTests {
    private static let config =
        #"{"sources": [{"kind": "test"}], "caps": {"width": 64, "height": 48}, "filter": "sepia", "preview": "none"}"#

    /// The config file a reload reads, in a scratch folder of its own.
    private final class ConfigFile: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID().uuidString).json").path

        func write(_ json: String) throws {
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        }

        deinit {
            unlink(path)
        }
    }

    private func host(_ file: ConfigFile, listener: NotifyListener) throws -> HostRun {
        try file.write(Self.config)
        return try HostRun(Self.config) { [path = file.path] in
            $0.reload = { try ConfigLoader.load(file: path) }
            $0.serviceManager = ServiceManager(socket: listener.name)
        }
    }

    @Test func aChangedFilterIsSetOnTheRunningGraph() async throws {
        let file = ConfigFile(), listener = try NotifyListener()
        defer { listener.close() }
        let run = try host(file, listener: listener)
        #expect(await run.ready())
        let session = run.host.session, graph = try #require(session.graph)
        try file.write(Self.config.replacingOccurrences(of: #""sepia""#, with: #""vignette radius=2""#))
        run.host.reload()
        let reloaded = await run.event { if case .reloaded = $0 { true } else { false } }
        guard case let .reloaded(.filterChanged(detail))? = reloaded else { Issue.record("\(String(describing: reloaded))"); return }
        #expect(detail.contains("vignette"), "\(detail)")
        #expect(run.host.session === session && session.graph === graph, "a new session or graph for a filter")
        #expect(session.userChain == "vignette radius=2")
        #expect(session.waitForFrames(3) >= 3)
        #expect(await listener.readyAfterReloading())
    }

    @Test func anotherChangeRebuildsTheGraphWithTheNewConfig() async throws {
        let file = ConfigFile(), listener = try NotifyListener()
        defer { listener.close() }
        let run = try host(file, listener: listener)
        #expect(await run.ready())
        let session = run.host.session
        try file.write(Self.config.replacingOccurrences(of: #""width": 64"#, with: #""width": 96"#))
        run.host.reload()
        let reloaded = await run.event { if case .reloaded = $0 { true } else { false } }
        guard case let .reloaded(.restarting(changed))? = reloaded else { Issue.record("\(String(describing: reloaded))"); return }
        #expect(changed == ["caps"])
        // The new session is up when the host says it is ready a second time.
        #expect(await run.event(occurrence: 2) { if case .ready = $0 { true } else { false } } != nil)
        let rebuilt = run.host.session
        #expect(rebuilt !== session)
        #expect(rebuilt.config.caps?.width == 96)
        #expect(rebuilt.waitForFrames(3) >= 3)
        #expect(session.graph == nil, "the old session still holds a graph")
        // The new graph's first frame says READY=1 again.
        #expect(await listener.readyAfterReloading())
        run.host.requestStop()
        guard case .stopped = await run.outcome() else { Issue.record("not a clean stop"); return }
    }

    @Test func aBadConfigKeepsTheRunningOneAndSaysWhy() async throws {
        let file = ConfigFile(), listener = try NotifyListener()
        defer { listener.close() }
        let run = try host(file, listener: listener)
        #expect(await run.ready())
        let session = run.host.session, graph = try #require(session.graph)
        try file.write(Self.config.replacingOccurrences(of: #""width": 64"#, with: #""width": -5"#))
        run.host.reload()
        let failed = await run.event { if case .reloadFailed = $0 { true } else { false } }
        guard case let .reloadFailed(error)? = failed else { Issue.record("\(String(describing: failed))"); return }
        let line = "\(error)"
        #expect(line.contains(file.path) && line.contains("caps.width"), "\(line)")
        #expect(!line.contains("\n"))
        #expect(run.host.session === session && session.graph === graph)
        #expect(session.userChain == "sepia")
        #expect(session.waitForFrames(3) >= 3)
        #expect(await listener.readyAfterReloading())
    }
}

extension NotifyListener {
    /// Waits for a `READY=1` after the last `RELOADING=1`.
    func readyAfterReloading() async -> Bool {
        await wait { received in
            guard let reloading = received.lastIndex(where: { $0.fields.contains("RELOADING=1") }) else { return false }
            return received[reloading...].contains { $0.fields.contains("READY=1") }
        }
    }
}
