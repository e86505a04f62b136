import Base
import FoundationEssentials
import Glibc
import Synchronization

/// What a service manager told the process it started: where to send notifications and how often it wants to hear
/// that the service is alive (systemd's `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`, sd_notify(3)).
public struct ServiceManager: Sendable, Equatable {
    /// The notification socket: a path, or an abstract name written with a leading `@`.
    public var socket: String
    /// How long the manager waits for a `WATCHDOG=1` before it counts the service as hung, in seconds; nil when it
    /// watches nothing (no `WatchdogSec=`, or the watchdog is meant for another process).
    public var watchdog: Double?

    /// A manager at `socket`, with a watchdog of `watchdog` seconds.
    public init(socket: String, watchdog: Double? = nil) {
        self.socket = socket
        self.watchdog = watchdog
    }

    /// The manager named by `environment` (nil: the process's), nil when none started this process. `WATCHDOG_USEC`
    /// counts only when `WATCHDOG_PID` is unset or is `pid` (nil: this process's): a child inheriting the variables is
    /// not the watched process.
    public init?(environment: [String: String]? = nil, pid: Int32? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment, pid = pid ?? getpid()
        guard let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@"), socket.utf8.count > 1 else {
            return nil
        }
        self.socket = socket
        let watchedPID = environment["WATCHDOG_PID"].map { Int32($0) }
        if let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
            watchedPID == nil || watchedPID == pid
        {
            watchdog = Double(microseconds) / 1_000_000
        } else {
            watchdog = nil
        }
    }
}

/// Sends sd_notify(3) datagrams (`READY=1`, `WATCHDOG=1`, `STATUS=…`, `STOPPING=1`, `RELOADING=1`) to the manager's
/// socket, and never traps: the frame path calls `frame()`, on GStreamer's streaming thread. A datagram socket's queue
/// holds few messages: a state change waits up to `sendTimeout` for room rather than being lost (a lost `READY=1`
/// would fail the start), while a `WATCHDOG=1` that finds no room is dropped (the next frame sends another).
///
/// `READY=1` goes with the first filtered frame (not when the graph starts playing), `WATCHDOG=1` with frames, at most
/// once per half the manager's interval: a stream that stops feeding frames stops feeding the watchdog, and the
/// manager restarts the service.
final class ServiceNotifier: Sendable {
    let manager: ServiceManager
    private let descriptor: Int32
    private let address: sockaddr_un
    private let length: socklen_t
    /// Waiting for the first frame to say `READY=1` (at start, and again after a reload that rebuilds the graph).
    private let awaitingFrame = Atomic(false)
    /// When the last `WATCHDOG=1` went, in nanoseconds of the monotonic clock.
    private let lastPing = Atomic<Int64>(0)
    private let pingEvery: Int64
    /// What the next `READY=1` says as its `STATUS=`.
    private let status = Locked("starting")

    /// A notifier for `manager`; nil when its socket's name does not fit a socket address or no socket can be made.
    init?(_ manager: ServiceManager) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(manager.socket.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // An abstract name is exactly its bytes; a path ends at its NUL.
        length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var timeout = timeval(tv_sec: Self.sendTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.address = address
        self.manager = manager
        pingEvery = manager.watchdog.map { Int64($0 * 1e9 / 2) } ?? .max
    }

    deinit {
        close(descriptor)
    }

    /// The longest wait for room in the manager's queue, in seconds.
    static let sendTimeout = 2

    /// Sends `fields` (one `KEY=VALUE` a line) as one datagram, waiting at most `sendTimeout` for room; false when it
    /// was not sent.
    @discardableResult
    func send(_ fields: String...) -> Bool {
        send(fields, flags: Int32(MSG_NOSIGNAL))
    }

    private func send(_ fields: [String], flags: Int32) -> Bool {
        let bytes = Array(fields.joined(separator: "\n").utf8)
        var address = address
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                SystemCall.retrying { sendto(descriptor, bytes, bytes.count, flags, target, length) }
            }
        }
        return sent == bytes.count
    }

    /// The next filtered frame says `READY=1`, with `status`.
    func awaitFirstFrame(status text: String) {
        status.withLock { $0 = text }
        awaitingFrame.store(true, ordering: .sequentiallyConsistent)
    }

    /// Called for every filtered frame, on the streaming thread: `READY=1` for the first one after `awaitFirstFrame`,
    /// `WATCHDOG=1` when half the manager's interval has passed since the last.
    func frame() {
        if awaitingFrame.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            send("READY=1", "STATUS=\(status.withLock { $0 })")
        }
        guard pingEvery != .max else { return }
        let now = Self.now, last = lastPing.load(ordering: .relaxed)
        guard now - last >= pingEvery,
            lastPing.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        _ = send(["WATCHDOG=1"], flags: Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }

    /// `STATUS=text`.
    func tell(status text: String) {
        send("STATUS=\(text)")
    }

    private static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

extension ServiceManager {
    /// Whether `descriptor` is the stream systemd connected to the journal (`JOURNAL_STREAM` is its `DEVICE:INODE`,
    /// sd-daemon(3)): lines written there may start with a `<N>` priority (`<3>` error, `<4>` warning, `<6>` info).
    /// `environment` nil is the process's.
    public static func writesToJournal(_ descriptor: Int32, environment: [String: String]? = nil) -> Bool {
        guard let text = (environment ?? ProcessInfo.processInfo.environment)["JOURNAL_STREAM"] else { return false }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
