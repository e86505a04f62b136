import CBase
import Glibc

/// A thread of the process's own (POSIX), for loops that block: bus watches, sockets, stdin, a child's pipes.
/// It runs `body` once and ends; nothing joins it.
public enum DetachedThread {
    /// Starts `body` on a new detached thread named `name` (the kernel keeps its first 15 bytes, which `top -H` and a
    /// debugger show). Returns false, with `body` never run, when the system refuses a thread (its limit of threads or
    /// memory reached): a caller serving a client then refuses that client rather than the process stopping.
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
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
            return false
        }
        return true
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
