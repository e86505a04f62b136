import Base
import Foundation
import GStreamer
import Synchronization
import TestSupport
import Testing

/// How many RTSP clients one host serves at 1280×720@30 on this machine before frames drop (`make load-rtsp`).
/// The host is `swiftcam run --rtsp` (the release build from scripts/load.sh rtsp) on a moving pattern through
/// a filter; the clients are `rtspsrc ! rtph264depay ! appsink` pipelines in this process, half over TCP and half
/// over UDP, which depayload but do not decode (decoding is each viewer's own cost, on its own machine). Steps of
/// 10, 25, 50, 100, 150, 200, 300 clients, SWIFTCAM_RTSP_CAPACITY_SECONDS (10) each: every client's frames against
/// the frames the camera made, the camera's rate, and the host's and the readers' CPU. It stops at the first step
/// where a client got less than 99 % of the frames or the camera fell below 29.5 fps; that step and the one before
/// are the figure.
@Suite(
    .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["SWIFTCAM_RTSP_CAPACITY"] == "1",
        "SWIFTCAM_RTSP_CAPACITY=1 in a network namespace with only lo: scripts/load.sh rtsp"))
struct CapacityTests {
    static let seconds = Double(ProcessInfo.processInfo.environment["SWIFTCAM_RTSP_CAPACITY_SECONDS"] ?? "") ?? 10

    /// One reader: counts depayloaded frames (access units) on its streaming thread.
    final class Reader: @unchecked Sendable {
        let pipeline: Pipeline
        let frames = Atomic<Int>(0)
        let failure = Locked<String?>(nil)
        private var watch: BusWatch?

        /// `settled` counts readers that got their first frame or failed.
        init(url: String, transport: String, settled: Condition<Int>) throws {
            pipeline = try Pipeline.parse(
                "rtspsrc location=\(url) protocols=\(transport) latency=200 ! rtph264depay ! appsink name=sink sync=false max-buffers=4 drop=true"
            )
            pipeline.element(named: "sink", as: AppSink.self)?.onSample { [weak self] _ in
                if self?.frames.add(1, ordering: .relaxed).oldValue == 0 { settled.withLock { $0 += 1 } }
            }
            watch = pipeline.bus.watch { [weak self] message in
                guard let self, case let .error(source, text, _, _) = message else { return }
                let first = failure.withLock { old in
                    defer { old = old ?? "\(source): \(text)" }; return old == nil
                }
                if first && frames.load(ordering: .relaxed) == 0 { settled.withLock { $0 += 1 } }
            }
            _ = pipeline.requestState(.playing)
        }

        func stop() {
            watch?.cancel()
            try? pipeline.setState(.null, timeout: 5)
        }
    }

    /// CPU seconds (user + system) of a process, from /proc/PID/stat.
    static func cpuSeconds(_ pid: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func clientsBeforeFramesDrop() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-capacity-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("capacity.json")
        try """
        {"sources": [{"kind": "test", "pattern": "ball"}],
         "caps": {"width": 1280, "height": 720, "framerate": "30/1", "format": "NV12"},
         "filter": "colorcontrols saturation=1.2", "preview": "none",
         "publish": {"rtsp": {"port": 0, "path": "/cam"}}}
        """.write(to: file, atomically: true, encoding: .utf8)
        let host = try HostRun(arguments: ["run", file.path, "--no-control", "--quiet"], directory: directory)
        let announced = try #require(host.line(containing: "rtsp rtsp://127.0.0.1:"))
        let url = String(announced.dropFirst("rtsp ".count))
        let hostPID = String(host.child.pid)

        let settled = Condition(0)
        var readers: [Reader] = []
        defer { readers.forEach { $0.stop() } }
        var rows: [String] = []
        var lastClean: Int?
        for step in [10, 25, 50, 100, 150, 200, 300] {
            while readers.count < step {
                readers.append(try Reader(url: url, transport: readers.count % 2 == 0 ? "tcp" : "udp", settled: settled))
            }
            // Every reader has its first frame (or its failure) before the window opens; 60 s is a safety net.
            let count = readers.count
            #expect(settled.wait(until: MonotonicClock.now + 60) { $0 >= count ? true : nil } == true, "readers that never started")
            let failures = readers.compactMap { $0.failure.withLock { $0 } }
            #expect(failures.isEmpty, "\(failures.count) readers failed: \(failures.first ?? "")")
            guard failures.isEmpty else { break }

            let start = MonotonicClock.now, hostCPU = Self.cpuSeconds(hostPID), readerCPU = Self.cpuSeconds("self")
            let counts = readers.map { $0.frames.load(ordering: .relaxed) }
            let made = Int(Self.seconds * 30)
            #expect(host.send("wait \(made)")?.hasPrefix("ok") == true)
            let elapsed = MonotonicClock.now - start
            let received = zip(readers, counts).map { $0.frames.load(ordering: .relaxed) - $1 }.sorted()
            // The camera's own rate (it slows when the host runs out of CPU), and each client's share of its frames.
            let fps = Double(made) / elapsed
            let worst = Double(received.first ?? 0) / Double(made), median = Double(received[received.count / 2]) / Double(made)
            let row = String(
                format:
                    "%4d clients: camera %.1f fps, host %.2f cores, readers %.2f cores; frames per client: worst %.1f %%, median %.1f %% of %d",
                step, fps, (Self.cpuSeconds(hostPID) - hostCPU) / elapsed, (Self.cpuSeconds("self") - readerCPU) / elapsed,
                worst * 100, median * 100, made)
            print("rtsp capacity: \(row)")
            rows.append(row)
            // One frame either side of the window is the counting, not a loss.
            guard Double(received.first ?? 0) >= 0.99 * Double(made) - 1, fps >= 29.5 else { break }
            lastClean = step
        }
        let summary =
            "1280x720@30 H.264, \(Int(Self.seconds)) s per step, \(ProcessInfo.processInfo.activeProcessorCount) cores shared by host and readers; "
            + (lastClean.map { "30 fps and every client ≥ 99 % of the frames up to \($0) clients" } ?? "frames dropped from the first step")
        if let report = ProcessInfo.processInfo.environment["SWIFTCAM_LOAD_REPORT"], !report.isEmpty {
            try (rows + [summary]).joined(separator: "\n").appending("\n").write(toFile: report, atomically: true, encoding: .utf8)
        }
        print("rtsp capacity: \(summary)")
        #expect(lastClean != nil, "frames dropped with 10 clients: \(rows)")
        #expect(host.quit() == 0)
    }
}
