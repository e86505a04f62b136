import Capture
import Dispatch
import Foundation
import Glibc
import TestSupport
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
            status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap {
                Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "")
            }
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

    /// The ids of a process's named threads: those whose name is not the process's own. The unnamed ones are the
    /// runtime's pools (libdispatch's workers, Swift concurrency's), which start and retire threads on their own
    /// schedule (a busy machine can swap one while a test runs); everything a connection starts has a name.
    static func namedThreadIDs(_ pid: Int32) -> Set<Int32> {
        func name(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let process = name("/proc/\(pid)/comm")
        return threadIDs(pid).filter { name("/proc/\(pid)/task/\($0)/comm") != process }
    }

    /// Waits for each of `threads` to end: a pidfd per thread (`PIDFD_THREAD`, Linux 6.9) becomes readable when it
    /// exits. Returns the ids still running after `deadline` seconds (a safety net: a thread that never ends is the
    /// leak this looks for). GStreamer's task threads go back to GLib's thread pool, which ends an unused one after
    /// its idle time (15 s), so this can take that long.
    static func waitForThreadsToEnd(_ threads: Set<Int32>, deadline: Int = 60) throws -> Set<Int32> {
        var open: [Int32: Int32] = [:]  // pidfd: thread id
        defer { for fd in open.keys { close(fd) } }
        for thread in threads {
            let fd = pidfdOpen(thread, UInt32(O_EXCL))  // O_EXCL is PIDFD_THREAD
            if fd >= 0 {
                open[fd] = thread
            } else if errno != ESRCH && errno != ENOENT {
                throw WebTestError("pidfd_open(\(thread)): errno \(errno)")
            }
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

    /// A host of `pipelines/switch.json` whose transport (`SWIFTCAM_CONTROL` or `SWIFTCAM_WEB`) allows `cap` connections
    /// idle for at most `idle` seconds.
    static func host(_ prefix: String, cap: Int, idle: Int) throws -> WebHost {
        try WebHost(config: "switch", environment: ["\(prefix)_MAX_CONNECTIONS": "\(cap)", "\(prefix)_IDLE_SECONDS": "\(idle)"])
    }

    /// The host's usage once every named thread started since `threadsBefore` has ended (expected: none still running). The
    /// kernel counts a thread out a moment after its pidfd reports the exit, so `Threads:` is read after a round trip to
    /// the host (an event, not a pause), and again after each of up to two more while it is above `before`.
    /// `prefix`: only threads whose name starts with it are waited for (the control socket's connections are
    /// `swiftcam-ctl…`; a GStreamer task thread the graph swapped meanwhile is none of the socket's doing).
    static func usageOnceEnded(
        _ host: WebHost, since threadsBefore: Set<Int32>, before: Int, named prefix: String = ""
    ) async throws -> (threads: Int, resident: Int) {
        let pid = host.child.pid
        let started = namedThreadIDs(pid).subtracting(threadsBefore).filter { thread in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix)
        }
        let lingering = try waitForThreadsToEnd(started)
        #expect(lingering.isEmpty, "threads still running: \(lingering); the host's threads: \(threadNames(pid))")
        var now = try usage(pid)
        for _ in 0..<3 where now.threads > before {
            _ = try await http("GET", host.base.appendingPathComponent("api/status"))
            now = try usage(pid)
        }
        return now
    }

    @Test func theControlSocketCapsItsConnectionsAndClosesIdleOnes() async throws {
        let cap = 8, idle = 10  // long enough that a busy machine keeps the pinged connections from looking idle
        let host = try Self.host("SWIFTCAM_CONTROL", cap: cap, idle: idle)
        defer { host.stop() }
        let pid = host.child.pid
        let path = host.runtime.appendingPathComponent("swiftcam/\(host.name).sock").path
        #expect(try host.ctl("help").isOK)
        let before = try Self.usage(pid)
        let threadsBefore = Self.threadIDs(pid)

        // The cap's worth, each answered (so its thread runs): all of them again at every step of the setup, so a slow
        // machine does not see one idle before the refusals; then left idle.
        var open: [UnixLine] = []
        func answerAll() throws {
            for connection in open {
                try connection.send("help")
                #expect(try connection.readLine()?.hasPrefix("ok") == true)
            }
        }
        for _ in 0..<cap {
            open.append(try UnixLine(path: path))
            try answerAll()
        }
        // Three times as many again: each refused with the reason, and closed.
        for _ in 0..<(3 * cap) {
            try answerAll()
            let extra = try UnixLine(path: path)
            let refusal = try extra.readLine()
            #expect(
                refusal?.hasPrefix("error the control socket has \(cap) connections open, its limit") == true, "\(refusal ?? "nothing")")
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
        let after = try await Self.usageOnceEnded(host, since: threadsBefore, before: before.threads, named: "swiftcam-ctl")
        let threads = after.threads
        print(
            "control socket: threads \(threads) after the idle ones closed; RSS \(before.resident / 1024) KiB before, \(after.resident / 1024) KiB after"
        )
        #expect(threads <= before.threads, "\(threads) threads after, \(before.threads) before")
        #expect(after.resident <= before.resident + 4 << 20, "RSS \(after.resident) after, \(before.resident) before")
        // And it serves again.
        #expect(try host.ctl("help").isOK)
    }

    @Test func thePageSocketCapsItsConnectionsAndClosesIdleOnesAndTheirViewersEnd() async throws {
        let cap = 8, idle = 6
        let host = try Self.host("SWIFTCAM_WEB", cap: cap, idle: idle)
        defer { host.stop() }
        let pid = host.child.pid

        // One viewer first and let it go, so the encoder and GStreamer's thread pool are as they stay; then the baseline.
        try await Self.watchAndTimeOut(count: 1, host: host, idle: idle)
        let before = try Self.usage(pid)
        let threadsBefore = Self.threadIDs(pid)

        // The cap's worth of sockets, each watching (a WebRTC viewer, its own pipeline) and never answering the offer.
        // They ping while the test sets up (a slow machine must not see them idle before the refusals), not after.
        let watchers = try (0..<cap).map { _ in try PageSocket(port: host.port) }
        for (index, watcher) in watchers.enumerated() {
            let state = try watcher.readJSON()
            #expect(state["type"] as? String == "state" && state["idleSeconds"] as? Int == idle, "\(state)")
            try watcher.sendText(#"{"type":"watch"}"#)
            _ = try watcher.readJSON { $0["type"] as? String == "offer" }
            for earlier in watchers[..<index] { try earlier.sendText(#"{"type":"ping"}"#) }
        }
        let full = try Self.usage(pid)
        // Twice as many again: each closed with the reason; none gets a viewer.
        for _ in 0..<(2 * cap) {
            for watcher in watchers { try watcher.sendText(#"{"type":"ping"}"#) }
            let extra = try PageSocket(port: host.port)
            let close = try extra.readClose()
            #expect(close.code == 1008 && close.reason.contains("\(cap) pages open, its limit"), "\(close)")
        }
        let during = try Self.usage(pid)
        print(
            "page socket: threads \(before.threads) before, \(full.threads) with \(cap) watching, \(during.threads) after \(2 * cap) refused"
        )
        #expect(during.threads <= full.threads + 2, "refused sockets started threads: \(during.threads), \(full.threads) with \(cap) open")

        // They never answer, so the host closes each after the idle time; their viewers end.
        for watcher in watchers {
            let close = try watcher.readClose(deadline: 30 + idle)
            #expect(close.code == 1001 && close.reason.contains("nothing received for \(idle) s"), "\(close)")
        }
        try await Self.waitForNoViewers(host)
        let after = try await Self.usageOnceEnded(host, since: threadsBefore, before: before.threads)
        let threads = after.threads
        print(
            "page socket: threads \(threads) after they closed; RSS \(before.resident >> 20) MB before, \(full.resident >> 20) MB with \(cap) watching, \(after.resident >> 20) MB after"
        )
        #expect(threads <= before.threads, "\(threads) threads after, \(before.threads) before")
        // At least half of what the viewers took comes back (+ 1 MiB of allocator noise); not all of it: glibc keeps
        // the stacks of ended threads for reuse.
        #expect(
            after.resident <= before.resident + (full.resident - before.resident) / 2 + 1 << 20,
            "RSS \(after.resident) after, \(before.resident) before, \(full.resident) with \(cap) watching")
    }

    /// Clients that die mid-way (their sockets closed without a word, as a killed process's are): page sockets that were
    /// watching, each holding a WebRTC viewer, and MJPEG readers. Every slot comes back, not by the idle timeout (an hour
    /// here) but because the host sees each end: the viewers end, and the cap's worth of new pages is admitted again.
    @Test func deadPagesAndMJPEGReadersFreeTheirSlots() async throws {
        let cap = 4
        let host = try Self.host("SWIFTCAM_WEB", cap: cap + 1, idle: 3600)
        defer { host.stop() }
        let monitor = try PageSocket(port: host.port)
        _ = try monitor.readJSON()
        let watchers = try (0..<cap).map { _ in try PageSocket(port: host.port) }
        for watcher in watchers {
            _ = try watcher.readJSON()
            try watcher.sendText(#"{"type":"watch"}"#)
            _ = try watcher.readJSON { $0["type"] as? String == "offer" }
        }
        var readers: [Int32] = []
        defer { readers.forEach { _ = close($0) } }
        for _ in 0..<cap {
            let fd = try connectLoopback(port: host.port, timeout: 60)
            readers.append(fd)
            let request = Array("GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\n\r\n".utf8)
            _ = send(fd, request, request.count, Int32(MSG_NOSIGNAL))
        }
        // Everyone is in: the monitor hears the counts reach them.
        _ = try monitor.readJSON { message in
            let viewers = message["viewers"] as? [String: Any]
            return (viewers?["webrtc"] as? Int) == cap && (viewers?["mjpeg"] as? Int) == cap
        }
        // And the page sockets are full: one more is refused.
        let refused = try PageSocket(port: host.port).readClose()
        #expect(refused.code == 1008, "\(refused)")

        for watcher in watchers { watcher.closeNow() }
        for fd in readers { close(fd) }
        readers = []
        _ = try monitor.readJSON { message in
            let viewers = message["viewers"] as? [String: Any]
            return (viewers?["webrtc"] as? Int) == 0 && (viewers?["mjpeg"] as? Int) == 0
        }
        // The slots are free: the cap's worth of new pages each get the state, none is refused.
        let again = try (0..<cap).map { _ in try PageSocket(port: host.port) }
        for page in again {
            let state = try page.readJSON()
            #expect(state["type"] as? String == "state", "\(state)")
        }
    }

    /// Opens `count` sockets that watch and never answer, and waits for the host to close them as idle and end their viewers.
    static func watchAndTimeOut(count: Int, host: WebHost, idle: Int) async throws {
        let sockets = try (0..<count).map { _ in try PageSocket(port: host.port) }
        for socket in sockets {
            _ = try socket.readJSON()
            try socket.sendText(#"{"type":"watch"}"#)
            _ = try socket.readJSON { $0["type"] as? String == "offer" }
        }
        for socket in sockets { _ = try socket.readClose(deadline: 30 + idle) }
        try await waitForNoViewers(host)
    }

    /// Waits until the host counts no WebRTC viewer: a new socket gets the state at once and every change after it
    /// (a viewer's end broadcasts the state); it pings so it is not idle itself, and closes at the end.
    static func waitForNoViewers(_ host: WebHost) async throws {
        let monitor = try PageSocket(port: host.port)
        _ = try monitor.readJSON { message in
            if message["type"] as? String != "state" { return false }
            let viewers = message["viewers"] as? [String: Any]
            return (viewers?["webrtc"] as? Int) == 0
        }
        monitor.closeNow()
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

/// A WebSocket client of the page's `/ws` over a plain TCP socket (RFC 6455: masked frames out, plain frames in), for
/// sockets that behave as no browser would: they watch and never answer.
final class PageSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    /// The host's answer to the upgrade, its headers included.
    private(set) var handshake = ""

    /// `extensions`: a `Sec-WebSocket-Extensions` header to offer (e.g. permessage-deflate).
    init(port: Int, extensions: String? = nil) throws {
        fd = try connectLoopback(port: port, timeout: 60)
        let request =
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + (extensions.map { "Sec-WebSocket-Extensions: \($0)\r\n" } ?? "")
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(request.utf8))
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                guard head.hasPrefix("HTTP/1.1 101") else { throw WebTestError("no WebSocket: \(head)") }
                handshake = head
                return
            }
            try fill(deadline: 30)
        }
    }

    deinit { closeNow() }

    func closeNow() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw WebTestError("the host closed the socket") }
            sent += written
        }
    }

    /// Reads more; throws at the end of the stream or when nothing came within `deadline` seconds.
    private func fill(deadline: Int) throws {
        guard try waitReadable(fd, seconds: deadline) else { throw WebTestError("nothing from the host within \(deadline) s") }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { throw WebTestError("the host closed the connection") }
        buffer += chunk[..<count]
    }

    /// Sends one masked text frame.
    func sendText(_ text: String) throws {
        try sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    /// Sends one masked frame; `reserved` sets RSV1-3 (RSV1: compressed, with permessage-deflate).
    func sendFrame(opcode: UInt8, payload: [UInt8], reserved: UInt8 = 0) throws {
        var frame: [UInt8] = [0x80 | reserved << 4 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xffff {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// The next frame: opcode and payload.
    private func readFrame(deadline: Int) throws -> (opcode: UInt8, payload: [UInt8]) {
        while true {
            if buffer.count >= 2 {
                let opcode = buffer[0] & 0x0f
                var length = Int(buffer[1] & 0x7f)
                var offset = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    offset = 4
                } else if length == 127, buffer.count >= 10 {
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                }
                if length < 126 || offset > 2, buffer.count >= offset + length {
                    let payload = Array(buffer[offset..<offset + length])
                    buffer.removeSubrange(..<(offset + length))
                    return (opcode, payload)
                }
            }
            try fill(deadline: deadline)
        }
    }

    /// The next JSON text message for which `wanted` holds (others are skipped); pings the host while it waits, so
    /// waiting is not being idle.
    func readJSON(deadline: Int = 60, _ wanted: ([String: Any]) -> Bool = { _ in true }) throws -> [String: Any] {
        while true {
            let frame = try readFrame(deadline: deadline)
            if frame.opcode == 0x8 {
                throw WebTestError("closed by the host: \(String(decoding: frame.payload.dropFirst(2), as: UTF8.self))")
            }
            guard frame.opcode == 0x1 else { continue }
            try sendText(#"{"type":"ping"}"#)
            let message = json(Data(frame.payload))
            if wanted(message) { return message }
        }
    }

    /// Waits for the host's close frame (skipping messages); answers it, as a browser would, and reads to the end.
    /// A connection the host drops without a close frame gives code 1006 (RFC 6455's "closed abnormally").
    func readClose(deadline: Int = 30) throws -> (code: Int, reason: String) {
        while true {
            let frame: (opcode: UInt8, payload: [UInt8])
            do {
                frame = try readFrame(deadline: deadline)
            } catch let error as WebTestError where "\(error)".contains("closed the connection") {
                return (1006, "")
            }
            guard frame.opcode == 0x8 else { continue }
            let code = frame.payload.count >= 2 ? Int(frame.payload[0]) << 8 | Int(frame.payload[1]) : 0
            try? sendFrame(opcode: 0x8, payload: Array(frame.payload.prefix(2)))
            while (try? fill(deadline: deadline)) != nil {}
            return (code, String(decoding: frame.payload.dropFirst(2), as: UTF8.self))
        }
    }
}
