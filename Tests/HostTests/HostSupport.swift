import Config
import Foundation
import Glibc
import Synchronization

@testable import Capture
@testable import Host

/// A host run in this process on a thread of its own, its events kept in order. Waiting for an event ends when the
/// event comes or when the host has ended without it, so no test hangs on a host that is over.
final class HostRun: Sendable {
    let host: CameraHost
    let folder: URL
    private let log = HostLog()

    /// Runs a host for `json` (`DIR` in it becomes a new scratch folder) with the signals left alone, no stats ticks
    /// and no control socket unless `adjust` says otherwise.
    init(_ json: String, adjust: (inout HostOptions) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = try ConfigLoader.load(data: Data(json.replacingOccurrences(of: "DIR", with: folder.path).utf8), file: "host.json")
        var options = HostOptions(name: "host-test-\(UUID().uuidString.prefix(8))", config: config)
        options.controlSocket = false
        options.reportsStats = false
        options.handlesSignals = false
        adjust(&options)
        let log = log
        let host = CameraHost(options: options, observers: [log.record])
        self.host = host
        let thread = Thread { log.end(host.run()) }
        thread.name = "host-test"
        thread.start()
    }

    deinit {
        // A test that stopped early leaves no host running.
        host.requestStop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The first event that `matches` (the `occurrence`th one), past or coming; nil when the host ended without it.
    func event(occurrence: Int = 1, _ matches: @escaping @Sendable (HostEvent) -> Bool) async -> HostEvent? {
        await log.event(matches, occurrence: occurrence)
    }

    /// Waits until everything is up; false when the host ended first.
    func ready() async -> Bool {
        await event { if case .ready = $0 { true } else { false } } != nil
    }

    /// How the host ended, once it has.
    func outcome() async -> HostOutcome {
        await log.outcome()
    }

    /// Every event so far.
    var events: [HostEvent] { log.events }
}

/// A host's events and outcome, and who waits for them.
private final class HostLog: Sendable {
    private struct State {
        var events: [HostEvent] = []
        var outcome: HostOutcome?
        var eventWaiters:
            [(id: Int, matches: @Sendable (HostEvent) -> Bool, left: Int, continuation: CheckedContinuation<HostEvent?, Never>)] = []
        var nextWaiter = 0
        var outcomeWaiters: [CheckedContinuation<HostOutcome, Never>] = []
    }

    private let state = Mutex(State())

    var events: [HostEvent] { state.withLock { $0.events } }

    @Sendable func record(_ event: HostEvent) {
        let waiting = state.withLock { state in
            state.events.append(event)
            for index in state.eventWaiters.indices where state.eventWaiters[index].matches(event) {
                state.eventWaiters[index].left -= 1
            }
            let ready = state.eventWaiters.filter { $0.left <= 0 }
            state.eventWaiters.removeAll { $0.left <= 0 }
            return ready.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: event) }
    }

    func end(_ outcome: HostOutcome) {
        let (events, outcomes) = state.withLock { state in
            state.outcome = outcome
            defer { state.eventWaiters = []; state.outcomeWaiters = [] }
            return (state.eventWaiters.map(\.continuation), state.outcomeWaiters)
        }
        for continuation in events { continuation.resume(returning: nil) }
        for continuation in outcomes { continuation.resume(returning: outcome) }
    }

    /// How long a wait for an event may last at the most: a safety net that fails the test (no event) instead of
    /// hanging the run when a host neither gets there nor ends.
    static let safetyNetSeconds = 120

    func event(_ matches: @escaping @Sendable (HostEvent) -> Bool, occurrence: Int) async -> HostEvent? {
        await withCheckedContinuation { continuation in
            let found: HostEvent?? = state.withLock { state in
                let past = state.events.filter(matches)
                if past.count >= occurrence { return .some(past[occurrence - 1]) }
                if state.outcome != nil { return .some(nil) }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.eventWaiters.append((id, matches, occurrence - past.count, continuation))
                DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.safetyNetSeconds)) { [self] in
                    let expired = self.state.withLock { state in
                        state.eventWaiters.firstIndex { $0.id == id }.map { state.eventWaiters.remove(at: $0).continuation }
                    }
                    expired?.resume(returning: HostEvent?.none)
                }
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    func outcome() async -> HostOutcome {
        await withCheckedContinuation { continuation in
            let outcome = state.withLock { state in
                if state.outcome == nil { state.outcomeWaiters.append(continuation) }
                return state.outcome
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }
}

extension HostOutcome {
    /// The case's name, for messages.
    var name: String {
        switch self {
        case .stopped: "stopped"
        case .cameraFailed: "cameraFailed"
        case .outputsFailed: "outputsFailed"
        case .notStarted: "notStarted"
        case .pageUnavailable: "pageUnavailable"
        case .shownUntilStopped: "shownUntilStopped"
        }
    }
}

/// One HTTP (or RTSP) exchange with 127.0.0.1: the request's bytes out, the answer read to its end (the server closes).
enum LoopbackHTTP {
    /// The answer's bytes; nil when nothing accepts the connection or the request cannot be sent.
    static func exchange(port: Int, _ request: [UInt8], firstChunkOnly: Bool = false) -> [UInt8]? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A safety net for a server that accepts and never answers, not a measure of speed.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            answer += chunk[..<count]
            if firstChunkOnly { break }
        }
        return answer
    }

    /// `POST path` with a JSON body: the status and the body of the answer.
    static func post(_ path: String, body: Data, port: Int) -> (status: Int, body: Data)? {
        let head =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard let answer = exchange(port: port, Array(head.utf8) + [UInt8](body)) else { return nil }
        let text = String(decoding: answer, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else {
            return nil
        }
        return (status, Data(text[split.upperBound...].utf8))
    }
}
