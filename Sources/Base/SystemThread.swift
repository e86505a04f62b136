import CBase
import Glibc

/// A thread of the process's own (POSIX), for loops that block: bus watches, sockets, stdin, a child's pipes. Named:
/// the kernel keeps the first 15 bytes of the name, which `top -H` and a debugger show.
///
/// `detached` starts one nothing waits for; `joinable` one its owner stops and then waits for (`join`), as a bus watch
/// is. Either returns failure, with the body never run, when the system refuses a thread (its limit of threads or
/// memory reached): a caller serving a client then refuses that client rather than the process stopping.
public final class SystemThread: Sendable {
    private let thread: pthread_t
    /// Set by the first `join`: a thread is joined or detached once.
    private let joined = Locked(false)

    private init(_ thread: pthread_t) { self.thread = thread }

    /// Starts `body` on a new thread that ends when `body` returns and that nothing joins. False when the system
    /// refuses a thread.
    @discardableResult
    public static func detached(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        start(name: name, detached: true, body) != nil
    }

    /// Starts `body` on a new thread that `join()` waits for; nil when the system refuses a thread.
    public static func joinable(name: String, _ body: @escaping @Sendable () -> Void) -> SystemThread? {
        start(name: name, detached: false, body).map(SystemThread.init)
    }

    /// Whether the caller is this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Waits for the thread to end. Called on the thread itself (which cannot wait for itself) it detaches it instead,
    /// and the thread's resources go when it ends. Only the first call does anything.
    public func join() {
        let first = joined.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        if isCurrent {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    private static func start(name: String, detached: Bool, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { pointer in
                let body = Unmanaged<Body>.fromOpaque(pointer!).takeRetainedValue()
                _ = CBase_nameThisThread(body.name)
                body.run()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

    private final class Body {
        /// The name cut to the kernel's 15 bytes on a character boundary.
        let name: String
        let run: @Sendable () -> Void

        init(name: String, run: @escaping @Sendable () -> Void) {
            var kept = ""
            for character in name {
                guard kept.utf8.count + character.utf8.count <= 15 else { break }
                kept.append(character)
            }
            self.name = kept
            self.run = run
        }
    }
}
