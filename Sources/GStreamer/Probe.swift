import CGStreamer
import Synchronization

/// A running tally of buffers crossing a pad, kept by a pad probe; reading it never blocks the stream.
public final class BufferCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// A counter at zero (for a branch that has none yet).
    public init() {}

    /// Buffers seen so far.
    public var value: Int { count.load(ordering: .relaxed) }

    /// Counts one more, from Swift code that hands buffers on itself.
    public func record() {
        count.add(1, ordering: .relaxed)
    }

}

/// Calls a closure for each buffer passing a pad.
private final class BufferHandler: Sendable {
    let handler: @Sendable (UInt64?) -> Void
    init(_ handler: @escaping @Sendable (UInt64?) -> Void) { self.handler = handler }
}

/// Says whether a buffer may pass a pad.
private final class BufferGate: Sendable {
    let passes: @Sendable () -> Bool
    init(_ passes: @escaping @Sendable () -> Bool) { self.passes = passes }
}

/// Calls a closure for each upstream request for a key frame.
private final class KeyFrameRequestHandler: Sendable {
    let handler: @Sendable () -> Void
    init(_ handler: @escaping @Sendable () -> Void) { self.handler = handler }
}

/// Calls a closure with each buffer passing a pad, writable.
private final class WritableBufferHandler: Sendable {
    let handler: @Sendable (inout WritableBuffer) -> Void
    init(_ handler: @escaping @Sendable (inout WritableBuffer) -> Void) { self.handler = handler }
}

extension Pad {
    /// Counts every buffer (and buffer list) that passes this pad from now on, until `removeProbe`.
    /// Calls `gst_pad_add_probe`.
    public func countBuffers() -> (counter: BufferCounter, probe: UInt) {
        let counter = BufferCounter()
        let context = CallbackRegistry.register(counter)
        let types = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        let id = gst_pad_add_probe(
            pointer, types,
            { _, info, userData in
                guard let info, let counter = CallbackRegistry.lookup(userData, as: BufferCounter.self) else { return GST_PAD_PROBE_OK }
                if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
                    counter.record()
                } else if let list = info.pointee.data {
                    for _ in 0..<gst_buffer_list_length(OpaquePointer(list)) { counter.record() }
                }
                return GST_PAD_PROBE_OK
            }, context, { userData in CallbackRegistry.remove(userData) })
        return (counter, UInt(id))
    }

    /// Calls `handler` on the streaming thread for every buffer that passes, with the buffer's offset
    /// (v4l2src puts the V4L2 sequence number there; nil when unset). Returns the probe id.
    /// Calls `gst_pad_add_probe`.
    @discardableResult
    public func onBuffer(_ handler: @escaping @Sendable (_ offset: UInt64?) -> Void) -> UInt {
        let context = CallbackRegistry.register(BufferHandler(handler))
        let id = gst_pad_add_probe(
            pointer, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, userData in
                guard let info, let handler = CallbackRegistry.lookup(userData, as: BufferHandler.self) else { return GST_PAD_PROBE_OK }
                let offset = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self).pointee.offset
                handler.handler(offset.flatMap { $0 == UInt64.max ? nil : UInt64($0) })
                return GST_PAD_PROBE_OK
            }, context, { userData in CallbackRegistry.remove(userData) })
        return UInt(id)
    }

    /// Calls `handler` on the streaming thread with every buffer that passes, made writable first (a copy when it is
    /// shared), so the closure may change its bytes; the changed buffer goes on downstream. Returns the probe id.
    /// Calls `gst_pad_add_probe` and `gst_mini_object_make_writable`.
    @discardableResult
    public func onWritableBuffer(_ handler: @escaping @Sendable (inout WritableBuffer) -> Void) -> UInt {
        let context = CallbackRegistry.register(WritableBufferHandler(handler))
        let id = gst_pad_add_probe(
            pointer, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, userData in
                guard let info, let data = info.pointee.data,
                    let handler = CallbackRegistry.lookup(userData, as: WritableBufferHandler.self)
                else { return GST_PAD_PROBE_OK }
                // The probe owns the reference in `info`: take it, make it writable, hand the result back in `info`.
                var buffer = WritableBuffer(Buffer(adopting: data.assumingMemoryBound(to: GstBuffer.self)))
                handler.handler(&buffer)
                info.pointee.data = UnsafeMutableRawPointer(buffer.release())
                return GST_PAD_PROBE_OK
            }, context, { userData in CallbackRegistry.remove(userData) })
        return UInt(id)
    }

    /// Lets a buffer (or buffer list) pass only while `passes` says so and drops it otherwise; events always pass.
    /// `passes` runs on the streaming thread for every buffer: keep it to a lock and a flag. Returns the probe id.
    /// Calls `gst_pad_add_probe`.
    @discardableResult
    public func dropBuffers(unless passes: @escaping @Sendable () -> Bool) -> UInt {
        let context = CallbackRegistry.register(BufferGate(passes))
        let types = GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        let id = gst_pad_add_probe(
            pointer, types,
            { _, _, userData in
                guard let gate = CallbackRegistry.lookup(userData, as: BufferGate.self) else { return GST_PAD_PROBE_DROP }
                return gate.passes() ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
            }, context, { userData in CallbackRegistry.remove(userData) })
        return UInt(id)
    }

    /// Calls `handler` on the sending thread for every upstream request for a key frame that reaches this pad (the
    /// `GstForceKeyUnit` event an RTP session sends for a receiver's PLI or FIR); the event goes on. Returns the probe id.
    /// Calls `gst_pad_add_probe` and `gst_video_event_is_force_key_unit`.
    @discardableResult
    public func onKeyFrameRequest(_ handler: @escaping @Sendable () -> Void) -> UInt {
        let context = CallbackRegistry.register(KeyFrameRequestHandler(handler))
        let id = gst_pad_add_probe(
            pointer, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
            { _, info, userData in
                guard let info, let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                    gst_video_event_is_force_key_unit(event) != 0,
                    let handler = CallbackRegistry.lookup(userData, as: KeyFrameRequestHandler.self)
                else { return GST_PAD_PROBE_OK }
                handler.handler()
                return GST_PAD_PROBE_OK
            }, context, { userData in CallbackRegistry.remove(userData) })
        return UInt(id)
    }

    /// Removes a probe added by `countBuffers`, `onBuffer`, `onWritableBuffer`, `dropBuffers` or `onKeyFrameRequest`.
    /// Calls `gst_pad_remove_probe`.
    public func removeProbe(_ id: UInt) {
        gst_pad_remove_probe(pointer, gulong(id))
    }
}

extension Bin {
    /// Parses a partial graph into a bin whose unlinked pads become ghost pads ("sink", "src").
    /// Calls `gst_parse_bin_from_description`.
    public static func parseBin(_ description: String) throws(GStreamerError) -> Bin {
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        let bin = gst_parse_bin_from_description(description, 1, &error)
        if error != nil || bin == nil {
            if let bin { gst_object_unref(UnsafeMutableRawPointer(bin)) }
            throw .parse(GLibError(consuming: &error))
        }
        guard let bin else { throw .parse(GLibError(consuming: &error)) }
        return Bin(sinking: UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstElement.self))
    }
}
