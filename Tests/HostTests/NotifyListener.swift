import Foundation
import Glibc
import Synchronization

/// A service manager's notification socket for a test: a datagram socket bound at a new path in the temporary folder
/// (or an abstract name), read on a thread of its own. Each datagram is kept with what `sample` read when it came (the
/// host's filtered frame count), and a test waits for the datagram it expects, never for a time.
final class NotifyListener: Sendable {
    /// What the host is given as `NOTIFY_SOCKET`.
    let name: String
    private let descriptor: Int32
    private let path: String?
    private let state = Mutex(State())

    struct Datagram: Sendable {
        /// The `KEY=VALUE` fields.
        var fields: [String]
        /// What `sample` returned when it arrived.
        var sample: Int
    }

    private struct State {
        var received: [Datagram] = []
        var waiters: [(matches: @Sendable ([Datagram]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var closed = false
        var sample: @Sendable () -> Int = { 0 }
    }

    /// Listens at a new socket path, or at a new abstract name (`@…`) when `abstract`.
    init(abstract: Bool = false) throws {
        let unique = "swiftcam-notify-\(UUID().uuidString.prefix(8))"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        path = abstract ? nil : FileManager.default.temporaryDirectory.appendingPathComponent("\(unique).sock").path
        name = path ?? "@\(unique)"
        var (address, length) = Self.address(name)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        let thread = Thread { [self] in readAll() }
        thread.name = "notify-listener"
        thread.start()
    }

    /// Stops reading (an empty datagram to itself ends the reading thread, which closes the socket) and removes the
    /// socket file.
    func close() {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if sender >= 0 {
            var (address, length) = Self.address(name)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(sender, nil, 0, Int32(MSG_NOSIGNAL), $0, length) }
            }
            Glibc.close(sender)
        }
        if let path { unlink(path) }
    }

    /// The socket address of `name` (a path, or `@` and an abstract name) and its length.
    private static func address(_ name: String) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return (address, socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1)))
    }

    /// What each datagram records beside its fields, read on the listener's thread as it arrives.
    func sampling(_ sample: @escaping @Sendable () -> Int) {
        state.withLock { $0.sample = sample }
    }

    /// Every datagram so far.
    var received: [Datagram] { state.withLock { $0.received } }

    /// Every field so far, in order.
    var fields: [String] { received.flatMap(\.fields) }

    /// How many datagrams so far carry `field` (a whole `KEY=VALUE`, or a `KEY=` prefix).
    func count(_ field: String) -> Int {
        received.filter { $0.fields.contains { field.hasSuffix("=") ? $0.hasPrefix(field) : $0 == field } }.count
    }

    /// Waits until what was received satisfies `done`; false when the socket closed first.
    func wait(until done: @escaping @Sendable ([Datagram]) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                if done(state.received) { return true }
                if state.closed { return false }
                state.waiters.append((done, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Waits until `count` more datagrams carrying `field` than now have come.
    func wait(for field: String, more count: Int = 1) async -> Bool {
        let start = self.count(field)
        return await wait { received in
            received.filter { $0.fields.contains { field.hasSuffix("=") ? $0.hasPrefix(field) : $0 == field } }.count >= start + count
        }
    }

    private func readAll() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
            let sample = state.withLock { $0.sample }()
            let ready = state.withLock { state in
                state.received.append(Datagram(fields: fields, sample: sample))
                let received = state.received
                let ready = state.waiters.filter { $0.matches(received) }
                state.waiters.removeAll { $0.matches(received) }
                return ready.map(\.continuation)
            }
            for continuation in ready { continuation.resume(returning: true) }
        }
        let left = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in left { continuation.resume(returning: false) }
        Glibc.close(descriptor)
    }
}
