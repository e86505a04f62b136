public import CGStreamer
import Glibc
import Synchronization

/// A pipeline's message bus. Holds one reference.
public final class Bus: @unchecked Sendable {
    /// The wrapped bus; valid for this object's lifetime.
    public let pointer: UnsafeMutablePointer<GstBus>

    /// Takes over an owned reference (transfer full).
    public init(adopting pointer: UnsafeMutablePointer<GstBus>) {
        self.pointer = pointer
    }

    deinit {
        gst_object_unref(pointer)
    }

    /// Takes the next message of the given types, waiting at most `timeout` seconds (negative: forever).
    /// Messages of other types are dropped. Calls `gst_bus_timed_pop_filtered`.
    public func pop(timeout: Double, types: MessageTypes = .all) -> Message? {
        guard let raw = gst_bus_timed_pop_filtered(pointer, clockTime(seconds: timeout), GstMessageType(rawValue: types.rawValue)) else {
            return nil
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }
        return Message(borrowing: raw)
    }

    /// Waits for end-of-stream or an error, at most `timeout` seconds.
    public func waitForEnd(timeout: Double) -> Message? {
        pop(timeout: timeout, types: .terminal)
    }

    /// Calls `handler` with every message on a thread of its own, without a GLib main loop,
    /// until the returned watch is cancelled or released. Only one consumer should take messages from a bus.
    public func watch(_ handler: @escaping @Sendable (Message) -> Void) -> BusWatch {
        BusWatch(bus: self, handler: handler)
    }

    /// Every message as an async sequence; ends when the consuming task stops iterating.
    public var messages: AsyncStream<Message> {
        AsyncStream { continuation in
            let watch = self.watch { continuation.yield($0) }
            continuation.onTermination = { _ in watch.cancel() }
        }
    }

    /// Posts an application message; wakes a watch. Calls `gst_bus_post`.
    func postWake(_ name: String) {
        let structure = gst_structure_new_empty(name)
        if let message = gst_message_new_application(nil, structure) {
            gst_bus_post(pointer, message)
        }
    }
}

/// A running bus watch: a thread blocked in `gst_bus_timed_pop`, stopped by `cancel()` or `deinit`.
public final class BusWatch: @unchecked Sendable {
    private let state: WatchState
    private var thread = pthread_t()
    private let started: Bool

    fileprivate init(bus: Bus, handler: @escaping @Sendable (Message) -> Void) {
        state = WatchState(bus: bus, handler: handler)
        // The thread owns one retain of the state and releases it when its loop ends.
        let context = Unmanaged.passRetained(state)
        var thread = pthread_t()
        started = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<WatchState>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context.toOpaque()) == 0
        if started {
            self.thread = thread
        } else {
            context.release()
        }
    }

    /// Stops the watch after the messages already queued and waits for its thread.
    public func cancel() {
        guard state.stopped.exchange(true, ordering: .acquiringAndReleasing) == false, started else { return }
        state.bus.postWake(state.wakeName)
        if pthread_equal(pthread_self(), thread) == 0 {
            pthread_join(thread, nil)
        } else {
            pthread_detach(thread) // cancelled from inside its own handler
        }
    }

    deinit {
        cancel()
    }
}

/// What the watch thread needs.
private final class WatchState: @unchecked Sendable {
    let bus: Bus
    let handler: @Sendable (Message) -> Void
    let stopped = Atomic<Bool>(false)
    let wakeName: String

    init(bus: Bus, handler: @escaping @Sendable (Message) -> Void) {
        self.bus = bus
        self.handler = handler
        wakeName = "swiftcam-bus-watch-\(UInt(bitPattern: Unmanaged.passUnretained(bus).toOpaque().hashValue))"
    }

    /// Blocks on the bus until our own wake-up message arrives.
    func run() {
        while true {
            guard let raw = gst_bus_timed_pop(bus.pointer, GstClockTime.max) else { continue }
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }
            if raw.pointee.type == GST_MESSAGE_APPLICATION, let structure = gst_message_get_structure(raw),
               gst_structure_has_name(structure, wakeName) != 0 {
                return
            }
            handler(Message(borrowing: raw))
        }
    }
}
