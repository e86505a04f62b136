import Base
import CGStreamer
import Synchronization

/// A Swift handler connected to a GObject signal, disconnected when this value is dropped (or at `disconnect`).
///
/// The handler lives in a box that GLib frees through the connection's destroy notify, once no emission holds
/// it: when the handler is disconnected, or when the object is finalized first. The trampoline finds the box by
/// number (`CallbackRegistry`), and a box whose connection was disconnected answers nothing: an emission that looks
/// for the handler after `disconnect` (one GLib had already started on another thread) does not call it, and one
/// already inside the handler holds the box, so whatever the handler captured stays alive until it returns. The
/// connection holds the object only weakly: it never keeps an object alive.
///
/// The trampoline is the caller's: a `@convention(c)` function with the signal's own C arguments, whose last
/// argument is the `user_data` it hands to `SignalConnection.handler(_:as:)`.
/// Unchecked Sendable: its fields are immutable after init, the handler id is behind `Locked`, the connected flag is
/// an atomic, and the `GWeakRef` is only read and cleared through GLib's thread-safe weak-reference calls.
public final class SignalConnection: @unchecked Sendable {
    private let object: UnsafeMutablePointer<GWeakRef>
    private let connected: ConnectedFlag
    private let handlerID = Locked<gulong>(0)
    /// The signal, for messages.
    public let signal: String

    /// Connects `handler` to `signal` on `object` through `trampoline`. Throws `signalNotFound` when the object's
    /// type has no such signal. Calls `g_signal_parse_name` and `g_signal_connect_data`.
    public init<Handler: Sendable, Trampoline>(
        to object: UnsafeMutableRawPointer, signal: String, after: Bool = false,
        handler: Handler, trampoline: Trampoline
    ) throws(GStreamerError) {
        self.signal = signal
        let box = HandlerBox(handler)
        connected = box.connected
        self.object = .allocate(capacity: 1)
        self.object.initialize(to: GWeakRef())
        g_weak_ref_init(self.object, object)
        let id = try Self.connect(object, signal: signal, after: after, box: box, trampoline: trampoline)
        handlerID.withLock { $0 = id }
    }

    /// Connects `handler` for the rest of `object`'s life: nothing disconnects it, and GLib frees the box when the
    /// object is finalized. For objects made and ended by a library on its own threads (an RTSP client, a media),
    /// whose handler must stay safe to call however late it comes. Throws like `init`.
    public static func forLifetime<Handler: Sendable, Trampoline>(
        of object: UnsafeMutableRawPointer, signal: String,
        after: Bool = false, handler: Handler,
        trampoline: Trampoline
    ) throws(GStreamerError) {
        _ = try connect(object, signal: signal, after: after, box: HandlerBox(handler), trampoline: trampoline)
    }

    private static func connect<Handler: Sendable, Trampoline>(
        _ object: UnsafeMutableRawPointer, signal: String,
        after: Bool, box: HandlerBox<Handler>,
        trampoline: Trampoline
    ) throws(GStreamerError) -> gulong {
        var signalID: guint = 0, detail: GQuark = 0
        let type = CGStreamer_object_class(object).pointee.g_type_class.g_type
        guard g_signal_parse_name(signal, type, &signalID, &detail, 1) != 0 else {
            throw .signalNotFound(type: String(cString: g_type_name(type)), signal: signal)
        }
        let data = CallbackRegistry.register(box)
        // The registry's number stands for the box; the destroy notify drops it (GLib calls it once no emission
        // holds the closure), and with it the handler and whatever the handler captured.
        return g_signal_connect_data(
            object, signal, unsafeBitCast(trampoline, to: GCallback.self), data,
            { data, _ in CallbackRegistry.remove(data) },
            after ? CGStreamer_connect_after : CGStreamer_connect_default)
    }

    deinit {
        disconnect()
        g_weak_ref_clear(object)
        object.deallocate()
    }

    /// The handler behind a trampoline's `user_data`, or nil once its connection was disconnected. Never traps.
    public static func handler<Handler: Sendable>(_ data: UnsafeMutableRawPointer?, as type: Handler.Type) -> Handler? {
        guard let box = CallbackRegistry.lookup(data, as: HandlerBox<Handler>.self), box.connected.isSet else {
            return nil
        }
        return box.handler
    }

    /// Whether the handler is still connected.
    public var isConnected: Bool { handlerID.withLock { $0 != 0 } }

    /// Disconnects the handler (idempotent; a no-op when the object is already gone). No emission looks the handler
    /// up successfully after this returns. Calls `g_weak_ref_get` and `g_signal_handler_disconnect`.
    public func disconnect() {
        let id = handlerID.withLock { id in
            defer { id = 0 }
            return id
        }
        guard id != 0 else { return }
        connected.clear()
        guard let instance = g_weak_ref_get(object) else { return }
        g_signal_handler_disconnect(instance, id)
        g_object_unref(instance)
    }
}

/// Whether a connection still stands: shared by the connection and its box, so the box alone goes with the destroy
/// notify.
private final class ConnectedFlag: Sendable {
    private let value = Atomic<Bool>(true)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func clear() { value.store(false, ordering: .releasing) }
}

/// A handler and its connection's flag; GLib frees it through the destroy notify.
private final class HandlerBox<Handler: Sendable>: Sendable {
    let handler: Handler
    let connected = ConnectedFlag()
    init(_ handler: Handler) { self.handler = handler }
}
