import CSoup

/// A timer that runs `fire` once, `milliseconds` from now, on the calling thread's default main context (the thread
/// that runs the server's loop). What `fire` captures stays alive until the source is destroyed: fired, or destroyed
/// early by the caller (`g_source_destroy`). Returns the attached source with a reference the caller owns and unrefs.
func oneShotTimer(milliseconds: guint, _ fire: @escaping () -> Void) -> UnsafeMutablePointer<GSource> {
    final class Action {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    let source = g_timeout_source_new(milliseconds)!
    g_source_set_callback(
        source,
        { data in
            if let data { Unmanaged<Action>.fromOpaque(data).takeUnretainedValue().run() }
            return 0  // G_SOURCE_REMOVE
        }, Unmanaged.passRetained(Action(fire)).toOpaque()
    ) { data in
        if let data { Unmanaged<Action>.fromOpaque(data).release() }
    }
    g_source_attach(source, g_main_context_get_thread_default())
    return source
}
