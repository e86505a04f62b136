public import CGStreamer

/// An `appsink`: the pipeline's frames handed to Swift.
/// Unchecked Sendable: it adds no stored property to `Element`, and appsink's calls are thread-safe (it guards its
/// queue and callbacks with its own lock).
public final class AppSink: Element, @unchecked Sendable {
    /// The GType this wrapper stands for.
    override public class var gType: GType { gst_app_sink_get_type() }

    /// A new appsink. Calls `gst_element_factory_make("appsink")`.
    public static func make(name: String? = nil) throws(GStreamerError) -> AppSink {
        try AppSink.make("appsink", name: name)
    }

    var sinkPointer: UnsafeMutablePointer<GstAppSink> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstAppSink.self)
    }

    /// Waits at most `timeout` seconds for the next sample; nil on timeout or end-of-stream.
    /// Calls `gst_app_sink_try_pull_sample`.
    public func pullSample(timeout: Double) -> Sample? {
        gst_app_sink_try_pull_sample(sinkPointer, clockTime(seconds: timeout)).map { Sample(adopting: $0) }
    }

    /// Whether end-of-stream was reached and no samples are left. Calls `gst_app_sink_is_eos`.
    public var isEndOfStream: Bool { gst_app_sink_is_eos(sinkPointer) != 0 }

    /// How many samples the sink queues before it blocks or drops (0 = unlimited). The `max-buffers` property.
    public var maxBuffers: Int {
        get { (try? get("max-buffers", as: Int.self)) ?? 0 }
        set { try? set("max-buffers", newValue) }
    }

    /// Whether old samples are dropped when the queue is full (instead of blocking). The `drop` property.
    public var dropsOldSamples: Bool {
        get { (try? get("drop", as: Bool.self)) ?? false }
        set { try? set("drop", newValue) }
    }

    /// Calls `handler` on the streaming thread for every sample, replacing pulling; nil removes it.
    /// The handler must return quickly. Calls `gst_app_sink_set_callbacks`.
    public func onSample(_ handler: (@Sendable (Sample) -> Void)?) {
        guard let handler else {
            var none = GstAppSinkCallbacks()
            gst_app_sink_set_callbacks(sinkPointer, &none, nil, nil)
            return
        }
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = { sink, userData in
            guard let sink, let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
            let owned = Sample(adopting: sample)
            CallbackRegistry.lookup(userData, as: SampleHandler.self)?.handler(owned)
            return GST_FLOW_OK
        }
        // The registry holds the handler until GStreamer's destroy notify drops it.
        gst_app_sink_set_callbacks(sinkPointer, &callbacks, CallbackRegistry.register(SampleHandler(handler))) { userData in
            CallbackRegistry.remove(userData)
        }
    }
}

private final class SampleHandler: Sendable {
    let handler: @Sendable (Sample) -> Void
    init(_ handler: @escaping @Sendable (Sample) -> Void) { self.handler = handler }
}

/// An `appsrc`: Swift-made buffers fed into a pipeline.
/// Unchecked Sendable: it adds no stored property to `Element`, and appsrc's calls are thread-safe (it guards its
/// queue and caps with its own lock).
public final class AppSrc: Element, @unchecked Sendable {
    /// The GType this wrapper stands for.
    override public class var gType: GType { gst_app_src_get_type() }

    /// A new appsrc in time format. Calls `gst_element_factory_make("appsrc")`.
    public static func make(name: String? = nil, caps: Caps? = nil, isLive: Bool = false) throws(GStreamerError) -> AppSrc {
        let source = try AppSrc.make("appsrc", name: name)
        try source.set("format", "time")
        try source.set("is-live", isLive)
        if let caps { source.caps = caps }
        return source
    }

    var sourcePointer: UnsafeMutablePointer<GstAppSrc> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstAppSrc.self)
    }

    /// The caps of the buffers pushed. Calls `gst_app_src_set_caps`.
    public var caps: Caps? {
        get { gst_app_src_get_caps(sourcePointer).map { Caps(adopting: $0) } }
        set { gst_app_src_set_caps(sourcePointer, newValue?.pointer) }
    }

    /// Queues a buffer we made: the source takes over our reference, so downstream gets it still writable
    /// (an element can work in place). Throws when the pipeline is flushing, ended or failed.
    /// Calls `gst_app_src_push_buffer`.
    public func push(_ buffer: consuming WritableBuffer) throws(GStreamerError) {
        try check(gst_app_src_push_buffer(sourcePointer, buffer.release()))
    }

    /// Queues a shared buffer (pushed again and again, or held elsewhere): the source takes a reference of
    /// its own, and elements downstream copy before they write. Calls `gst_app_src_push_buffer`.
    public func push(_ buffer: consuming Buffer) throws(GStreamerError) {
        try check(gst_app_src_push_buffer(sourcePointer, gst_buffer_ref(buffer.pointer)))
    }

    private func check(_ result: GstFlowReturn) throws(GStreamerError) {
        guard result == GST_FLOW_OK else {
            throw .pushFailed(flow: String(borrowingCString: gst_flow_get_name(result)) ?? "\(result.rawValue)")
        }
    }

    /// Signals that no more buffers come. Calls `gst_app_src_end_of_stream`.
    public func endOfStream() {
        _ = gst_app_src_end_of_stream(sourcePointer)
    }
}
