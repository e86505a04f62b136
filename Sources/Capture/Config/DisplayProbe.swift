import FoundationEssentials
import Glibc

/// Whether the display the environment names answers: an X server at `DISPLAY`, a Wayland compositor at
/// `WAYLAND_DISPLAY`. A variable that is set is not a display: a service or an ssh or sudo session inherits a stale
/// `DISPLAY`, and GStreamer's window sinks then fail in ways that end the process (autovideosink falls through to
/// dfbvideosink, which segfaults in libfusion). Only a connection tells, so this connects and closes at once; it
/// neither speaks X11 nor authenticates.
public struct DisplayProbe: Sendable, Equatable {
    /// A display that accepted a connection (`DISPLAY=:0`, `WAYLAND_DISPLAY=wayland-0`); nil when none did.
    public let reachable: String?
    /// Why there is no display, in the user's words, when `reachable` is nil.
    public let problem: String

    /// Probes the displays `environment` names (the process's own when nil). A remote X display (`host:N`) is tried
    /// over TCP for at most `seconds`.
    public init(environment: [String: String]? = nil, seconds: Double = 1) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let x11 = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        let wayland = environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        var refusals: [String] = []
        if let wayland {
            if let path = Self.waylandSocket(wayland, runtimeDirectory: environment["XDG_RUNTIME_DIR"]) {
                if Self.connects(unix: path) {
                    (reachable, problem) = ("WAYLAND_DISPLAY=\(wayland)", "")
                    return
                }
                refusals.append("WAYLAND_DISPLAY=\(wayland) (\(path)) does not answer")
            } else {
                refusals.append("WAYLAND_DISPLAY=\(wayland) is relative and XDG_RUNTIME_DIR is not set")
            }
        }
        if let x11 {
            if Self.x11Answers(x11, seconds: seconds) {
                (reachable, problem) = ("DISPLAY=\(x11)", "")
                return
            }
            refusals.append("DISPLAY=\(x11) names no X server that answers")
        }
        reachable = nil
        problem = refusals.isEmpty ? "neither DISPLAY nor WAYLAND_DISPLAY is set here" : refusals.joined(separator: " and ")
    }

    /// Whether a display answered.
    public var isAvailable: Bool { reachable != nil }

    /// The Wayland socket: an absolute name as it is, else under `XDG_RUNTIME_DIR`.
    static func waylandSocket(_ name: String, runtimeDirectory: String?) -> String? {
        if name.hasPrefix("/") { return name }
        guard let runtimeDirectory, !runtimeDirectory.isEmpty else { return nil }
        return "\(runtimeDirectory)/\(name)"
    }

    /// Where an X display listens: `[host]:N[.S]`; no host (or `unix`) is the local socket `/tmp/.X11-unix/XN`
    /// (abstract first, as Xorg and Xwayland listen on both), any other host TCP port 6000+N.
    enum X11Address: Equatable {
        case local(display: Int)
        case tcp(host: String, port: Int)
    }

    /// Parses a `DISPLAY` value, `[protocol/][host]:N[.S]`; nil when it is not of that form.
    static func x11Address(_ display: String) -> X11Address? {
        guard let colon = display.lastIndex(of: ":") else { return nil }
        var host = String(display[..<colon])
        let rest = display[display.index(after: colon)...]
        let number = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let display = Int(number), (0...59_535).contains(display) else { return nil }
        // `unix/:0`, `tcp/localhost:10`: the protocol comes first.
        var transport = ""
        if let slash = host.lastIndex(of: "/") {
            transport = String(host[..<slash])
            host = String(host[host.index(after: slash)...])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if transport == "unix" || (transport.isEmpty && (host.isEmpty || host == "unix")) { return .local(display: display) }
        return .tcp(host: host.isEmpty ? "localhost" : host, port: 6000 + display)
    }

    private static func x11Answers(_ display: String, seconds: Double) -> Bool {
        switch x11Address(display) {
        case let .local(number)?:
            return connects(unix: "\0/tmp/.X11-unix/X\(number)") || connects(unix: "/tmp/.X11-unix/X\(number)")
        case let .tcp(host, port)?:
            return connects(host: host, port: port, seconds: seconds)
        case nil:
            return false
        }
    }

    /// Whether a stream socket at `path` accepts a connection (a leading NUL names an abstract socket). Without
    /// waiting: a server whose queue is full (a stopped X server) is there all the same.
    static func connects(unix path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // An abstract name's length is exact (no terminating NUL); a path's includes its NUL.
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (path.hasPrefix("\0") ? 0 : 1)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(length)) }
        }
        return connected == 0 || errno == EAGAIN
    }

    /// Whether `host:port` accepts a TCP connection within `seconds` (each address the name resolves to is tried).
    static func connects(host: String, port: Int, seconds: Double) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return false }
        defer { freeaddrinfo(first) }
        let milliseconds = Int32(min(max(seconds, 0.001), 60) * 1000)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let descriptor = socket(
                info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                info.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            if connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&waiting, 1, milliseconds) == 1 else { continue }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &size) == 0, failure == 0 { return true }
        }
        return false
    }
}
