import Base
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Capture
@testable import Control

/// Every client of the control socket that disappears mid-way frees its connection: a dead client's `wait`, `events`
/// or half-sent line never holds a slot, so the slots never all belong to the dead. Each case fills every slot with
/// such clients, checks that one more is refused (the slots are really taken), kills them all, and then needs
/// `stats` to be answered long before any of their waits could have ended on its own.
@Suite struct DeadClientTests {
    /// What a client sends before it dies.
    static let requests: [(name: String, bytes: String)] = [
        ("wait for more frames than will come", "wait 100000\n"),
        ("the event stream", "events\n"),
        ("half a command line", "sta"),
        ("nothing at all", "")
    ]

    @Test(arguments: requests.map(\.name))
    func aDeadClientFreesItsSlot(request: String) throws {
        let bytes = try #require(Self.requests.first { $0.name == request }).bytes
        let (session, folder) = try Self.smallSession()
        defer { try? FileManager.default.removeItem(at: folder) }
        session.addAnalyzer(TickAnalyzer())
        try session.start()
        defer { session.stop() }
        let name = "dead-\(UUID().uuidString.prefix(8))"
        let slots = 4
        let server = try ControlServer(
            name: name, interpreter: CommandInterpreter(session: session, permissions: .console, onQuit: {}),
            limits: ConnectionLimits(maxConnections: slots, idleSeconds: 3600))
        defer { server.shutdown() }

        var clients: [Int32] = []
        defer { clients.forEach { _ = close($0) } }
        for _ in 0..<slots {
            let client = try connectedClient(server.path)
            clients.append(client)
            if !bytes.isEmpty { _ = Array(bytes.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        }
        // Each one holds its slot: the accept thread counts a client before it reads a byte, so a refusal of one more
        // says all of them were admitted.
        #expect(throws: Never.self) {
            let reply = try ControlSocket.send("stats", socket: server.path, name: name, timeout: 10)
            #expect(
                reply
                    == .error(
                        "the control socket has \(slots) connections open, its limit; close one (an idle one closes after 3600 s) and try again"
                    ))
        }
        // They die (a process that is killed closes its descriptors: nothing more is sent).
        for client in clients { close(client) }
        clients = []
        // The slots come back as each dead client's thread sees its end; a live client may meet a slot not yet freed,
        // so it asks again on each refusal, within far less than the 60 s a `wait` holds at most. Each one answered
        // keeps its connection: all the slots, not one, must come back.
        let deadline = MonotonicClock.now + Command.frameWaitSeconds / 4
        var live: [Int32] = []
        defer { live.forEach { _ = close($0) } }
        var last = ""
        while live.count < slots, MonotonicClock.now < deadline {
            let client = try connectedClient(server.path)
            _ = Array("help\n".utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var reader = LineReader(descriptor: client, idleSeconds: 20)
            if case let .text(line)? = reader.next() { last = line }
            if last.hasPrefix("ok ") { live.append(client) } else { close(client) }
        }
        #expect(live.count == slots, "\(live.count) of \(slots) slots came back; the last answer: \(last)")
    }

    /// A `wait` whose client is gone ends at once and says so; one whose client only ended its sending half still
    /// gets its answer (a shell's `printf 'wait 3\n' | nc -U -N` reads the reply after its input ends).
    @Test func aWaitEndsWithItsClientButNotWithAHalfClose() throws {
        let (session, folder) = try Self.smallSession()
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let name = "half-\(UUID().uuidString.prefix(8))"
        let server = try ControlServer(name: name, interpreter: CommandInterpreter(session: session, permissions: .console, onQuit: {}))
        defer { server.shutdown() }
        let client = try connectedClient(server.path)
        defer { close(client) }
        _ = Array("wait 3\n".utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(client, Int32(SHUT_WR))
        var reader = LineReader(descriptor: client, idleSeconds: 30)
        guard case let .text(line)? = reader.next() else {
            Issue.record("a half-closed client got no answer")
            return
        }
        #expect(line == "ok 3 frames")
    }

    /// `events` where nothing makes events was a connection that stayed silent for ever: it is refused in one line.
    @Test func eventsWithoutAnalysersIsRefused() throws {
        let (session, folder) = try Self.smallSession()
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let name = "quiet-\(UUID().uuidString.prefix(8))"
        let server = try ControlServer(name: name, interpreter: CommandInterpreter(session: session, permissions: .console, onQuit: {}))
        defer { server.shutdown() }
        let reply = try ControlSocket.streamEvents(from: name) { _ in false }
        #expect(reply == .error(EventStream.noAnalyzers))
    }

    /// The session's side: a wait for a requester that is gone returns what it saw, without waiting for the frames.
    @Test func aWaitForARequesterThatIsGoneReturns() throws {
        let (session, folder) = try Self.smallSession()
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let requester = Requester(socket: pair[0])
        close(pair[1])
        let reply = CommandInterpreter(session: session, permissions: .console, onQuit: {}).execute("wait 100000", from: requester)
        #expect(requester.isGone)
        guard case let .error(reason) = reply else {
            Issue.record("\(reply)")
            return
        }
        #expect(reason.hasPrefix("the client went away after "), "\(reason)")
    }
}

extension DeadClientTests {
    /// A session of a small test pattern (not started), and its scratch folder.
    static func smallSession() throws -> (CaptureSession, URL) {
        try scratchSession(
            """
            {"sources": [{"kind": "test"}], "caps": {"width": 64, "height": 48, "framerate": 30, "format": "I420"}, "preview": "none"}
            """)
    }
}

/// A stream socket connected to `path`.
func connectedClient(_ path: String) throws -> Int32 {
    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard client >= 0, var address = ControlSocket.address(path) else { throw ControlError.noReply(name: path) }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else {
        close(client)
        throw ControlError.notRunning(name: path, path: path, reason: "connect failed")
    }
    return client
}
