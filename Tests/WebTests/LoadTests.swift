import Base
import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing

/// 10 WebRTC viewers + 20 MJPEG viewers + 5 stills a second for 60 s against one host, plus one MJPEG viewer that
/// connects and never reads. Checks the camera keeps its rate, every viewer gets its frames, memory stays flat,
/// and ten WebRTC viewers cost about what one does (one encoder). Minutes long: scripts/load.sh web runs it (release
/// host, network namespace with only lo); `swift test` skips it unless SWIFTCAM_WEB_LOAD=1.
@Suite(
    .serialized,
    .enabled(
        if: NetworkIsolation.isolated && ProcessInfo.processInfo.environment["SWIFTCAM_WEB_LOAD"] == "1",
        "SWIFTCAM_WEB_LOAD=1 in a network namespace with only lo: scripts/load.sh web"))
struct LoadTests {
    static let seconds = Double(ProcessInfo.processInfo.environment["SWIFTCAM_WEB_LOAD_SECONDS"] ?? "") ?? 60

    /// CPU seconds (user + system) the process has used. Reads /proc/PID/stat.
    static func cpuSeconds(_ pid: Int32) -> Double {
        cpuSeconds(stat: "/proc/\(pid)/stat")?.seconds ?? 0
    }

    /// The thread or process name and its CPU seconds (user + system) from a `stat` file.
    static func cpuSeconds(stat path: String) -> (name: String, seconds: Double)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (String(text[text.index(after: open)..<close]), (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// CPU seconds by thread id, with the thread's name (digits folded to `#`, so `nicesrc3:src` and `nicesrc7:src`
    /// count together). Reads /proc/PID/task/*/stat.
    static func threadCPU(_ pid: Int32) -> [String: (name: String, seconds: Double)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var threads: [String: (name: String, seconds: Double)] = [:]
        for task in tasks {
            guard let (name, seconds) = cpuSeconds(stat: "/proc/\(pid)/task/\(task)/stat") else { continue }
            threads[task] = (name.replacing(/[0-9]+/, with: "#"), seconds)
        }
        return threads
    }

    /// Where the CPU went between two `threadCPU` reads, biggest first: "viewer-src:src 10x 70 ms/s", ms per second
    /// of `elapsed` (threads born in between count from zero).
    static func threadBreakdown(
        from start: [String: (name: String, seconds: Double)], to end: [String: (name: String, seconds: Double)],
        elapsed: Double, top: Int = 5
    ) -> String {
        var groups: [String: (count: Int, seconds: Double)] = [:]
        for (task, thread) in end {
            let spent = thread.seconds - (start[task]?.seconds ?? 0)
            groups[thread.name, default: (0, 0)].count += 1
            groups[thread.name, default: (0, 0)].seconds += spent
        }
        return groups.sorted { $0.value.seconds > $1.value.seconds }.prefix(top)
            .map { String(format: "%@ %dx %.0f ms/s", $0.key, $0.value.count, $0.value.seconds * 1000 / elapsed) }
            .joined(separator: ", ")
    }

    /// Resident memory in MB. Reads /proc/PID/status.
    static func rssMB(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb / 1024
    }

    /// Frames the host's filter has passed so far (its own count, from /api/stats).
    static func framesOut(_ host: WebHost) async throws -> Int {
        let stats = json(try await http("GET", host.base.appendingPathComponent("api/stats")).body)["stats"] as? [String: Any]
        return (stats?["framesOut"] as? NSNumber)?.intValue ?? 0
    }

    /// Opens `count` WebRTC viewers in the page (each its own WebSocket and RTCPeerConnection) and resolves once
    /// all of them decode video.
    static let openViewers = """
        const count = arguments[0];
        window.viewers = [];
        let playing = 0;
        for (let i = 0; i < count; i++) {
          const ws = new WebSocket('ws://' + location.host + '/ws');
          const pc = new RTCPeerConnection({ iceServers: [] });
          const video = document.createElement('video');
          video.muted = true; video.autoplay = true; video.width = 64; video.height = 48;
          document.body.append(video);
          pc.ontrack = (e) => { video.srcObject = e.streams[0] || new MediaStream([e.track]); video.play().catch(() => {}); };
          pc.onicecandidate = (e) => { if (e.candidate) ws.send(JSON.stringify({ type: 'ice', candidate: e.candidate.candidate, sdpMLineIndex: e.candidate.sdpMLineIndex })); };
          ws.onopen = () => ws.send(JSON.stringify({ type: 'watch' }));
          ws.onmessage = async (event) => {
            const m = JSON.parse(event.data);
            if (m.type === 'offer') {
              await pc.setRemoteDescription({ type: 'offer', sdp: m.sdp });
              const answer = await pc.createAnswer();
              await pc.setLocalDescription(answer);
              ws.send(JSON.stringify({ type: 'answer', sdp: answer.sdp }));
            } else if (m.type === 'ice') {
              pc.addIceCandidate({ candidate: m.candidate, sdpMLineIndex: m.sdpMLineIndex }).catch(() => {});
            }
          };
          video.addEventListener('playing', () => { playing += 1; if (playing === count) done(count); }, { once: true });
          window.viewers.push({ ws, pc, video });
        }
        """

    /// Frames each page viewer has decoded so far.
    static let decodedFrames = """
        Promise.all(window.viewers.map((v) => v.pc.getStats().then((report) => {
          let frames = 0;
          report.forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') frames = s.framesDecoded; });
          return frames;
        }))).then(done);
        """

    /// RTP packets each page viewer has received so far (its video's `inbound-rtp` `packetsReceived`): on loopback, the
    /// packets the host sent it.
    static let receivedPackets = """
        Promise.all(window.viewers.map((v) => v.pc.getStats().then((report) => {
          let packets = 0;
          report.forEach((s) => { if (s.type === 'inbound-rtp' && s.kind === 'video') packets = s.packetsReceived; });
          return packets;
        }))).then(done);
        """

    static func numbers(_ value: Any) -> [Int] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? [] }

    /// CPU the host spends per second of wall time over `seconds`, measured between two reads, its biggest threads
    /// (`threadBreakdown`) and the CPU seconds its WebRTC viewers' streaming threads (`viewer-src:src`) spent.
    static func cpuRate(_ pid: Int32, over seconds: Double) -> (cores: Double, threads: String, viewerSeconds: Double) {
        let (start, cpu, threads) = (Date(), cpuSeconds(pid), threadCPU(pid))
        // The measurement window itself: a fixed span of host time, not a wait for an event.
        Thread.sleep(forTimeInterval: seconds)
        let elapsed = Date().timeIntervalSince(start)
        let end = threadCPU(pid)
        let viewerSeconds = end.filter { $0.value.name == "viewer-src:src" }.reduce(0) { sum, thread in
            sum + thread.value.seconds - (threads[thread.key]?.seconds ?? 0)
        }
        return ((cpuSeconds(pid) - cpu) / elapsed, threadBreakdown(from: threads, to: end, elapsed: elapsed), viewerSeconds)
    }

    /// CPU the host's viewers' streaming threads spent per RTP packet the viewers received while `measure` ran, in µs,
    /// and the packets each viewer received.
    static func sendCost(
        _ browser: Browser, over measure: () -> (cores: Double, threads: String, viewerSeconds: Double)
    ) async throws -> (rate: (cores: Double, threads: String, viewerSeconds: Double), microseconds: Double, packets: [Int]) {
        let before = numbers(try await browser.wait(receivedPackets))
        let rate = measure()
        let packets = zip(before, numbers(try await browser.wait(receivedPackets))).map { $1 - $0 }
        return (rate, rate.viewerSeconds * 1e6 / Double(max(packets.reduce(0, +), 1)), packets)
    }

    @Test func tenWebRTCAndTwentyMJPEGViewersAndFiveStillsASecond() async throws {
        // SWIFTCAM_WEB_LOAD_PATTERN picks the test pattern: the bars are almost free to encode, "snow" costs the
        // encoder what a noisy sensor does.
        // SWIFTCAM_WEB_LOAD_SIZE (WIDTHxHEIGHT) and SWIFTCAM_WEB_LOAD_FILTER make it a camera-sized, filtered stream.
        let environment = ProcessInfo.processInfo.environment
        let pattern = environment["SWIFTCAM_WEB_LOAD_PATTERN"] ?? "smpte"
        let size = (environment["SWIFTCAM_WEB_LOAD_SIZE"] ?? "").split(separator: "x").compactMap { Int($0) }
        let filter = environment["SWIFTCAM_WEB_LOAD_FILTER"] ?? ""
        var config = LatencyTests.config.replacingOccurrences(of: "\"smpte\"", with: "\"\(pattern)\"")
        if size.count == 2 {
            config = config.replacingOccurrences(
                of: "\"width\": 640, \"height\": 480", with: "\"width\": \(size[0]), \"height\": \(size[1])")
        }
        if !filter.isEmpty {
            config = config.replacingOccurrences(of: "\"preview\": \"none\"", with: "\"filter\": \"\(filter)\", \"preview\": \"none\"")
        }
        let host = try WebHost(config: "load", json: config)
        defer { host.stop() }
        let pid = host.child.pid
        let browser = try await Browser(width: 800, height: 600)
        defer { Task { await browser.quit() } }
        try await browser.open(host.base.appendingPathComponent("api/status"))  // a page of the host's origin, no viewer of its own

        // One WebRTC viewer: the cost of the encoder and one peer.
        _ = try await browser.wait(Self.openViewers, [1], timeout: 60)
        let one = try await Self.sendCost(browser) { Self.cpuRate(pid, over: 15) }
        let (cpuOne, threadsOne) = (one.rate.cores, one.rate.threads)
        _ = try await browser.run("window.viewers.forEach((v) => { v.pc.close(); v.ws.close(); v.video.remove(); }); window.viewers = [];")
        _ = try await browser.wait(
            """
            const check = () => fetch('/api/status').then((r) => r.json()).then((s) => { if (s.viewers.webrtc === 0) done(true); else requestAnimationFrame(check); });
            check();
            """)

        // Ten WebRTC viewers alone: still one encoder, so about the same CPU.
        _ = try await browser.wait(Self.openViewers, [10], timeout: 120)
        let ten = try await Self.sendCost(browser) { Self.cpuRate(pid, over: 15) }
        let (cpuTen, threadsTen) = (ten.rate.cores, ten.rate.threads)
        // Then twenty MJPEG readers, one MJPEG viewer that never reads, and stills at 5 a second.
        let readers = (0..<20).map { _ in MJPEGReader(port: host.port) }
        let stalled = try StalledViewer(port: host.port)
        let warmUp = Date()
        let snaps = Snapper(port: host.port, perSecond: 5)
        for reader in readers { reader.start() }
        let cpuAll = Self.cpuRate(pid, over: 15).cores  // also the warm-up before memory is watched
        let rssAfterWarmUp = Self.rssMB(pid)
        var rss = [rssAfterWarmUp]
        let framesStart = try await Self.framesOut(host)
        let decodedStart = Self.numbers(try await browser.wait(Self.decodedFrames))
        let mjpegStart = readers.map(\.frames)
        let windowStart = Date()
        let window = Self.seconds - 15
        while Date().timeIntervalSince(windowStart) < window {
            try await Task.sleep(for: .seconds(5))  // memory sampled every 5 s over the window
            rss.append(Self.rssMB(pid))
        }
        let elapsed = Date().timeIntervalSince(windowStart)
        let framesEnd = try await Self.framesOut(host)
        let decodedEnd = Self.numbers(try await browser.wait(Self.decodedFrames))
        let mjpegEnd = readers.map(\.frames)
        snaps.stop()
        for reader in readers { reader.stop() }
        let viewers = json(try await http("GET", host.base.appendingPathComponent("api/status")).body)["viewers"] as? [String: Any]
        let mjpegViewers = (viewers?["mjpeg"] as? NSNumber)?.intValue ?? -1
        let stalledDropped = stalled.wasDropped() && mjpegViewers == 20

        let cameraFrames = framesEnd - framesStart
        let cameraRate = Double(cameraFrames) / elapsed
        let webrtcShares = zip(decodedStart, decodedEnd).map { Double($1 - $0) / Double(max(cameraFrames, 1)) }
        let mjpegRates = zip(mjpegStart, mjpegEnd).map { Double($1 - $0) / elapsed }
        let lines = [
            "pattern \(pattern), \(size.count == 2 ? "\(size[0])x\(size[1])" : "640x480"), filter \(filter.isEmpty ? "none" : "\"\(filter)\"")",
            String(
                format: "load %.0f s after %.0f s warm-up: camera %.1f fps (%d frames), %d stills taken", elapsed,
                windowStart.timeIntervalSince(warmUp) + 15,
                cameraRate, cameraFrames, snaps.taken),
            "webrtc viewers, share of the camera's frames decoded: "
                + webrtcShares.map { String(format: "%.0f%%", $0 * 100) }.joined(separator: " "),
            "mjpeg viewers, fps (cap 15): " + mjpegRates.map { String(format: "%.1f", $0) }.joined(separator: " "),
            String(
                format: "host RSS MB every 5 s after warm-up: %@ (spread %.1f MB)",
                rss.map { String(format: "%.0f", $0) }.joined(separator: " "),
                (rss.max() ?? 0) - (rss.min() ?? 0)),
            String(
                format: "host CPU: 1 WebRTC viewer %.2f cores, 10 WebRTC viewers %.2f cores (%.2fx), + 20 MJPEG + 5 stills/s %.2f cores",
                cpuOne, cpuTen, cpuTen / max(cpuOne, 0.001), cpuAll),
            "host threads, 1 WebRTC viewer: " + threadsOne,
            "host threads, 10 WebRTC viewers: " + threadsTen,
            String(
                format:
                    "webrtc send cost per viewer (viewer-src:src CPU / RTP packets received): 1 viewer %.1f µs/packet (%.0f packets/s), 10 viewers %.1f µs/packet (%.0f packets/s each, %.0f-%.0f)",
                one.microseconds, Double(one.packets.reduce(0, +)) / 15, ten.microseconds,
                Double(ten.packets.reduce(0, +)) / 15 / Double(max(ten.packets.count, 1)),
                Double(ten.packets.min() ?? 0) / 15, Double(ten.packets.max() ?? 0) / 15),
            "stalled MJPEG viewer dropped by the host: \(stalledDropped) (MJPEG viewers the host counts at the end: \(mjpegViewers))"
        ]
        print(lines.joined(separator: "\n"))
        if let path = ProcessInfo.processInfo.environment["SWIFTCAM_LOAD_REPORT"] {
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(cameraRate >= 0.95 * 30, "camera \(cameraRate) fps")
        #expect(webrtcShares.count == 10 && webrtcShares.allSatisfy { $0 >= 0.9 }, "\(webrtcShares)")
        #expect(mjpegRates.allSatisfy { $0 >= 0.9 * 15 }, "\(mjpegRates)")
        #expect((rss.max() ?? 0) - (rss.min() ?? 0) <= 20, "\(rss)")
        #expect(cpuTen <= 1.3 * cpuOne, "one encoder: \(cpuTen) cores with 10 viewers, \(cpuOne) with 1")
        #expect(ten.microseconds <= 20, "a WebRTC viewer's send path: \(ten.microseconds) µs of CPU per RTP packet")
        #expect(snaps.failed == 0)
        #expect(stalledDropped)
    }
}

/// Reads `/stream.mjpg` on a thread of its own, counting JPEG parts.
final class MJPEGReader: @unchecked Sendable {
    private let port: Int
    private let count = Locked(0)
    private let stopped = Locked(false)
    private var fd: Int32 = -1

    init(port: Int) { self.port = port }

    var frames: Int { count.withLock { $0 } }

    func start() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let request = "GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        let count = count
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let marker = Array("--swiftcamframe".utf8)
            var carry: [UInt8] = []
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return }
                let bytes = carry + buffer[0..<n]
                var found = 0
                var i = 0
                while i + marker.count <= bytes.count {
                    if bytes[i] == marker[0] && Array(bytes[i..<i + marker.count]) == marker {
                        found += 1; i += marker.count
                    } else {
                        i += 1
                    }
                }
                carry = Array(bytes.suffix(marker.count - 1))
                if found > 0 { count.withLock { $0 += found } }
            }
        }
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

/// An MJPEG viewer that connects and then never reads: the host must drop it (its send timeout) while the others go on.
final class StalledViewer {
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw WebTestError("cannot connect") }
        let request = "GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Whether the host has closed the connection: drains what is buffered and looks for the end of the stream.
    func wasDropped() -> Bool {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 || (n < 0 && errno == ECONNRESET) { close(fd); return true }  // the host closed it
            if n < 0 { close(fd); return false }  // still open after 10 s of nothing new
        }
    }
}

/// Takes stills through the API at a steady rate on a timer, counting the failures.
final class Snapper: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let counts = Locked((taken: 0, failed: 0))

    init(port: Int, perSecond: Int) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "snapper"))
        let interval = 1.0 / Double(perSecond)
        timer.schedule(deadline: .now(), repeating: interval)
        let counts = counts
        timer.setEventHandler {
            DispatchQueue.global().async {
                let answer = try? rawHTTP(
                    port: port, "POST /api/snap HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                counts.withLock { if answer?.status == 200 { $0.taken += 1 } else { $0.failed += 1 } }
            }
        }
        timer.resume()
    }

    var taken: Int { counts.withLock { $0.taken } }
    var failed: Int { counts.withLock { $0.failed } }

    func stop() { timer.cancel() }
}
