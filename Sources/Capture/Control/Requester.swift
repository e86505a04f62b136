import Base
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc
import Synchronization

/// Whoever sent a command that waits (a control connection's client). A wait watches its requester and ends as soon
/// as it is gone: a client killed during `wait 100000` frees its connection and thread at once, instead of holding
/// them, and the control socket's slots, until the frames have passed.
public final class Requester: Sendable {
    private let descriptor: Int32?
    private let gone = Atomic(false)

    /// A requester that never goes away (stdin, a test): its waits run to their end.
    public static let present = Requester(descriptor: nil)

    /// The client at the other end of a connected stream socket.
    public init(socket descriptor: Int32) {
        self.descriptor = descriptor
    }

    private init(descriptor: Int32?) {
        self.descriptor = descriptor
    }

    /// Whether the client has gone (its end of the connection closed).
    public var isGone: Bool { gone.load(ordering: .acquiring) }

    /// Runs `body` while a thread of its own watches the socket; when the client closes the connection it is marked
    /// gone and `onGone` runs (to wake the wait in `body`). Only a whole close counts (POLLHUP): a client that has
    /// merely ended its sending half still reads the reply. The watch ends with `body`.
    func watching<Result>(onGone: @escaping @Sendable () -> Void, _ body: () -> Result) -> Result {
        guard let descriptor else { return body() }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return body() }
        let wake = (watcher: pair[0], owner: pair[1])
        let ended = DispatchSemaphore(value: 0)
        let watching = SystemThread.detached(name: "swiftcam-ctl-hangup") { [self] in
            defer { ended.signal() }
            // Events 0: poll reports a hang-up and an error whatever is asked, and nothing else of the client's.
            var watched = [pollfd(fd: descriptor, events: 0, revents: 0), pollfd(fd: wake.watcher, events: Int16(POLLIN), revents: 0)]
            _ = SystemCall.retrying { poll(&watched, 2, -1) }
            guard watched[1].revents == 0, watched[0].revents & Int16(POLLHUP | POLLERR) != 0 else { return }
            self.gone.store(true, ordering: .releasing)
            onGone()
        }
        guard watching else {
            close(wake.owner)
            close(wake.watcher)
            return body()
        }
        let result = body()
        close(wake.owner)  // the watcher's end hangs up too
        ended.wait()
        close(wake.watcher)
        return result
    }
}
