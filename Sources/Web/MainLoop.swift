import CGStreamer
import CSoup
import Dispatch
import Foundation

/// A GLib main context running on a thread of its own: libsoup's server lives there, and everything that
/// touches the server (responses, WebSocket sends) is handed to it with `invoke`.
final class MainLoop: @unchecked Sendable {
    /// The context; valid for this object's lifetime.
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let finished = DispatchSemaphore(value: 0)
    private let name: String

    init(name: String) {
        self.name = name
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Starts the thread: `setup` runs on it with the context as its thread default (so sources libsoup
    /// creates attach here), then the loop runs until `stop`. Returns what `setup` returned or threw.
    func start<T>(_ setup: @escaping () throws -> T) throws -> T {
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, any Error>?
        nonisolated(unsafe) let context = context, loop = loop
        nonisolated(unsafe) let setup = setup
        let finished = finished
        let thread = Thread {
            g_main_context_push_thread_default(context)
            outcome = Result { try setup() }
            let failed = if case .failure = outcome { true } else { false }
            ready.signal()
            if !failed { g_main_loop_run(loop) }
            g_main_context_pop_thread_default(context)
            finished.signal()
        }
        thread.name = name
        thread.start()
        ready.wait()
        return try outcome!.get()
    }

    /// Runs `work` on the loop's thread (at once when called there). Calls `g_main_context_invoke_full`.
    func invoke(_ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        g_main_context_invoke_full(context, 0, { data in
            guard let data else { return 0 }
            Unmanaged<WorkBox>.fromOpaque(data).takeUnretainedValue().work()
            return 0  // G_SOURCE_REMOVE
        }, box, { data in
            guard let data else { return }
            Unmanaged<WorkBox>.fromOpaque(data).release()
        })
    }

    /// Runs `work` on the loop's thread and waits for it (never call from the loop's thread).
    func sync<T>(_ work: @escaping () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: T?
        invoke {
            result = work()
            done.signal()
        }
        done.wait()
        return result!
    }

    /// Quits the loop and waits for its thread to leave it.
    func stop() {
        invoke { [loop] in g_main_loop_quit(loop) }
        finished.wait()
    }
}

private final class WorkBox {
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}
