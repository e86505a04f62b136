import Dispatch
import Capture
import Foundation
import Glibc
import Testing

/// The control socket and the page's WebSocket hold at most their maximum of connections (one more is refused with a
/// reason), close a connection that sends nothing for their idle timeout, and give back what the connections held.
/// Measured on the host process (`swiftcam run` in a process of its own, so nothing else moves its counts), with small
/// limits from the environment (`ConnectionLimits`). Every wait is for an event: a reply, a refusal, the host closing a
/// connection, a state message; the reads' deadlines are safety nets that fail the test instead of hanging it.
@Suite(.serialized) struct ConnectionLimitTests {
    /// `Threads:` and `VmRSS:` (bytes) from /proc/PID/status.
    static func usage(_ pid: Int32) throws -> (threads: Int, resident: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
        }
        guard let threads = field("Threads:"), let kilobytes = field("VmRSS:") else { throw WebTestError("no Threads/VmRSS for \(pid)") }
        return (threads, kilobytes * 1024)
    }

    /// The host's threads by name (digits folded), for the report.
    static func threadNames(_ pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var names: [String: Int] = [:]
        for task in tasks {
            let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "?")
                .trimmingCharacters(in: .whitespacesAndNewlines).replacing(/[0-9]+/, with: "#")
            names[name, default: 0] += 1
        }
        return names.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// The ids of a process's threads (/proc/PID/task).
    static func threadIDs(_ pid: Int32) -> Set<Int32> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { Int32($0) })
    }

    /// Waits for each of `threads` to end: a pidfd per thread (`PIDFD_THREAD`, Linux 6.9) becomes readable when it
    /// exits. Returns the ids still running after `deadline` seconds (a safety net: a thread that never ends is the
    /// leak this looks for). GStreamer's task threads go back to GLib's thread pool, which ends an unused one after
    /// its idle time (15 s), so this can take that long.
    static func waitForThreadsToEnd(_ threads: Set<Int32>, deadline: Int = 60) throws -> Set<Int32> {
        var open: [Int32: Int32] = [:]   // pidfd: thread id
        defer { for fd in open.keys { close(fd) } }
        for thread in threads {
            let fd = pidfdOpen(thread, UInt32(O_EXCL))   // O_EXCL is PIDFD_THREAD
            if fd >= 0 { open[fd] = thread } else if errno != ESRCH && errno != ENOENT { throw WebTestError("pidfd_open(\(thread)): errno \(errno)") }
        }
        let end = DispatchTime.now() + .seconds(deadline)
        while !open.isEmpty {
            let left = Int64(end.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)
            guard left > 0 else { break }
            var entries = open.keys.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), Int32(left / 1_000_000))
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { throw WebTestError("poll failed") }
            for entry in entries where entry.revents != 0 {
                close(entry.fd)
                open.removeValue(forKey: entry.fd)
            }
        }
        return Set(open.values)
    }

    /// The host's thread count once the threads in `ended` (and no others) have ended: the kernel counts a thread out a
    /// moment after its pidfd reports the exit, so the count is read after a round trip to the host (an event, not a
    /// pause), and again after each of up to two more while it is above `expected`.
    static func threadsSettled(_ host: WebHost, expected: Int) async throws -> Int {
        var threads = try usage(host.process.processIdentifier).threads
        for _ in 0..<3 where threads > expected {
            _ = try await http("GET", host.base.appendingPathComponent("api/status"))
            threads = try usage(host.process.processIdentifier).threads
        }
        return threads
    }

    @Test func theControlSocketCapsItsConnectionsAndClosesIdleOnes() async throws {
        let cap = 8, idle = 2
        let host = try WebHost(config: "switch", environment: ["SWIFTCAM_CONTROL_MAX_CONNECTIONS": "\(cap)",
                                                              "SWIFTCAM_CONTROL_IDLE_SECONDS": "\(idle)"])
        defer { host.stop() }
        let pid = host.process.processIdentifier
        let path = host.runtime.appendingPathComponent("swiftcam/\(host.name).sock").path
        #expect(try host.ctl("help").isOK)
        let before = try Self.usage(pid)
        let threadsBefore = Self.threadIDs(pid)

        // The cap's worth, each answered once (so its thread is running), then left idle.
        let open = try (0..<cap).map { _ in try UnixLine(path: path) }
        for connection in open {
            try connection.send("help")
            #expect(try connection.readLine()?.hasPrefix("ok") == true)
        }
        // Three times as many again: each refused with the reason, and closed.
        for _ in 0..<(3 * cap) {
            let extra = try UnixLine(path: path)
            let refusal = try extra.readLine()
            #expect(refusal?.hasPrefix("error the control socket has \(cap) connections open, its limit") == true, "\(refusal ?? "nothing")")
            #expect(try extra.readLine() == nil, "a refused connection is closed")
        }
        let during = try Self.usage(pid)
        print("control socket: threads \(before.threads) before, \(during.threads) with \(cap) open and \(3 * cap) refused")
        // One thread a connection, none for a refused one (+ 2 for what else the host may start meanwhile).
        #expect(during.threads <= before.threads + cap + 2, "\(during.threads) threads, \(before.threads) before")

        // Nothing sent for the idle time: the host says so and closes each.
        for connection in open {
            let line = try connection.readLine(deadline: 30 + idle)
            #expect(line?.contains("idle timeout") == true, "\(line ?? "nothing")")
            #expect(try connection.readLine() == nil)
        }
        let lingering = try Self.waitForThreadsToEnd(Self.threadIDs(pid).subtracting(threadsBefore))
        #expect(lingering.isEmpty, "threads still running: \(lingering); the host's threads: \(Self.threadNames(pid))")
        let threads = try await Self.threadsSettled(host, expected: before.threads)
        let after = try Self.usage(pid)
        print("control socket: threads \(threads) after the idle ones closed; RSS \(before.resident / 1024) KiB before, \(after.resident / 1024) KiB after")
        #expect(threads <= before.threads, "\(threads) threads after, \(before.threads) before")
        #expect(after.resident <= before.resident + 4 << 20, "RSS \(after.resident) after, \(before.resident) before")
        // And it serves again.
        #expect(try host.ctl("help").isOK)
    }
}

/// glibc's `pidfd_open` (<sys/pidfd.h>, glibc 2.36), which the Glibc module does not import.
@_silgen_name("pidfd_open") func pidfdOpen(_ pid: pid_t, _ flags: UInt32) -> Int32

/// A line-at-a-time client of a Unix socket (the control socket), with a deadline on each read.
final class UnixLine {
    private let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw WebTestError("cannot connect to \(path)")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw WebTestError("send failed")
        }
    }

    /// The next line, or nil when the host closed the connection; throws when nothing came within `deadline` seconds.
    func readLine(deadline: Int = 30) throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            guard try waitReadable(fd, seconds: deadline) else { throw WebTestError("no line within \(deadline) s") }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0, errno == ECONNRESET { return nil }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }
}

/// Waits for `fd` to be readable (poll); false when `seconds` passed first.
func waitReadable(_ fd: Int32, seconds: Int) throws -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let ready = poll(&entry, 1, Int32(seconds * 1000))
        if ready < 0, errno == EINTR { continue }
        guard ready >= 0 else { throw WebTestError("poll failed") }
        return ready > 0
    }
}
