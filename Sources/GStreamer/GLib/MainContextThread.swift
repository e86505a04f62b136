import Base
import CGStreamer

/// A GLib main context running on a thread of its own, the one place SwiftCam runs a `GMainLoop`: libsoup's server,
/// the RTSP servers and their timers live there, and everything that touches them is handed over with `invoke`.
///
/// `start` runs a set-up closure on the thread with the context as its thread default (so the sources a library
/// creates there attach to it), then runs the loop until `stop`, which returns once the thread has left the loop.
/// Unchecked Sendable: the context and loop pointers are immutable and GLib makes them safe to use from any thread,
/// and the phase is behind the `state` condition.
public final class MainContextThread: @unchecked Sendable {
    /// The context (`GMainContext *`); valid for this value's lifetime.
    public let context: OpaquePointer
    private let loop: OpaquePointer
    private let name: String
    private let state = Condition(Phase.idle)

    private enum Phase: Sendable {
        case idle, running, finished
    }

    /// A context and loop for a thread named `name`; nothing runs until `start`.
    /// Calls `g_main_context_new` and `g_main_loop_new`.
    public init(name: String) {
        self.name = name
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        stop()
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Starts the thread, runs `setup` on it with the context as its thread default, then the loop until `stop`.
    /// Returns what `setup` returned; when `setup` throws, the thread ends at once and the error is rethrown here.
    /// Calls `g_main_context_push_thread_default` and `g_main_loop_run`.
    public func start<T: Sendable>(_ setup: @escaping () throws -> T) throws -> T {
        let ready = Condition<Result<T, any Error>?>(nil)
        nonisolated(unsafe) let setup = setup
        let loop = Loop(context: context, loop: loop), state = state
        guard
            state.withLock({ phase in
                guard case .idle = phase else { return false }
                phase = .running
                return true
            })
        else { throw MainContextError.alreadyStarted(name: name) }
        let started = SystemThread.detached(name: name) {
            g_main_context_push_thread_default(loop.context)
            let outcome = Result { try setup() }
            let failed = if case .failure = outcome { true } else { false }
            ready.withLock { $0 = outcome }
            if !failed { g_main_loop_run(loop.loop) }
            g_main_context_pop_thread_default(loop.context)
            state.withLock { $0 = .finished }
        }
        guard started else {
            state.withLock { $0 = .finished }
            throw MainContextError.noThread(name: name)
        }
        return try ready.wait { $0 }!.get()
    }

    /// Starts the thread with nothing to set up.
    public func start() {
        // A set-up that cannot throw leaves two failures: started twice, or no thread (then `isRunning` is false).
        _ = try? start { () }
    }

    /// Whether the thread is running (started, and not yet past the end of its loop).
    public var isRunning: Bool {
        state.withLock { phase in
            if case .running = phase { return true }
            return false
        }
    }

    /// Whether the caller is on this context's thread (or holds the context). Calls `g_main_context_is_owner`.
    public var isCurrent: Bool { g_main_context_is_owner(context) != 0 }

    /// Runs `work` on the thread: at once when called there, else from the loop's next iteration. Work handed over
    /// before `start` waits for the loop; after `stop` it never runs, and goes with the context.
    /// Calls `g_main_context_invoke_full`.
    public func invoke(_ work: @escaping @Sendable () -> Void) {
        let data = CallbackRegistry.register(Closure(work))
        g_main_context_invoke_full(
            context, 0,
            { data in
                CallbackRegistry.lookup(data, as: Closure<@Sendable () -> Void>.self)?.body()
                return 0  // G_SOURCE_REMOVE
            }, data, { data in CallbackRegistry.remove(data) })
    }

    /// Runs `work` on the thread and waits for its result. Never call it from a closure the loop is running for
    /// another thread that waits on this one.
    public func sync<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let result = Condition<T?>(nil)
        invoke { result.withLock { $0 = work() } }
        return result.wait { $0 }!
    }

    /// Runs `work` on the thread every `seconds` seconds until it returns false or the returned source is cancelled.
    /// Calls `g_timeout_source_new` and `g_source_attach`.
    public func repeating(every seconds: Double, _ work: @escaping @Sendable () -> Bool) -> MainContextSource {
        let milliseconds = guint(min(max(seconds * 1000, 0), Double(UInt32.max)))
        let source = g_timeout_source_new(milliseconds)!
        g_source_set_callback(
            source,
            { data in
                (CallbackRegistry.lookup(data, as: Closure<@Sendable () -> Bool>.self)?.body() ?? false) ? 1 : 0
            }, CallbackRegistry.register(Closure(work)), { data in CallbackRegistry.remove(data) })
        g_source_attach(source, context)
        return MainContextSource(adopting: source)
    }

    /// Quits the loop and waits for the thread to leave it (returns at once when it never started or already
    /// stopped). The quit goes in as an idle source, so a stop asked for while `setup` still runs is not lost.
    /// Calls `g_main_loop_quit` from the context's own thread.
    public func stop() {
        guard isRunning else { return }
        let idle = g_idle_source_new()!
        g_source_set_callback(
            idle,
            { loop in
                if let loop { g_main_loop_quit(OpaquePointer(loop)) }
                return 0  // G_SOURCE_REMOVE
            }, UnsafeMutableRawPointer(g_main_loop_ref(loop)),
            { loop in
                if let loop { g_main_loop_unref(OpaquePointer(loop)) }
            })
        g_source_attach(idle, context)
        g_source_unref(idle)
        // Called from the loop's own thread, waiting would never end: the loop quits once this returns.
        guard !isCurrent else { return }
        _ = state.wait { phase in
            if case .finished = phase { return true }
            return nil
        }
    }
}

/// A source attached to a main context (a timer), destroyed when this value is dropped or at `cancel`.
/// Unchecked Sendable: its one field is an immutable pointer, and `g_source_destroy` is thread-safe in GLib.
public final class MainContextSource: @unchecked Sendable {
    private let source: UnsafeMutablePointer<GSource>

    /// Takes over a reference to an attached source.
    init(adopting source: UnsafeMutablePointer<GSource>) {
        self.source = source
    }

    deinit {
        cancel()
        g_source_unref(source)
    }

    /// Removes the source from its context; its callback runs no more. Idempotent. Calls `g_source_destroy`.
    public func cancel() {
        g_source_destroy(source)
    }
}

/// Why a main-context thread could not start.
public enum MainContextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `start` was called on a thread that had already started.
    case alreadyStarted(name: String)
    /// The system gave no thread (its limit of threads or memory reached).
    case noThread(name: String)

    /// One sentence naming the thread.
    public var description: String {
        switch self {
        case let .alreadyStarted(name): "the main-context thread \(name) was started twice"
        case let .noThread(name): "the main-context thread \(name) could not be started: the system has no thread to spare"
        }
    }
}

/// The context and loop handed to the thread (GLib's main contexts and loops are thread-safe).
/// Unchecked Sendable: its two pointers are immutable, and GLib's main contexts and loops are thread-safe.
private struct Loop: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
}

/// A closure the registry holds for a C callback.
private final class Closure<Body: Sendable>: Sendable {
    let body: Body
    init(_ body: Body) { self.body = body }
}
