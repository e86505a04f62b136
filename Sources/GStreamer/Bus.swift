import Base
public import CGStreamer
import Glibc
import Synchronization

/// A pipeline's message bus. Holds one reference.
/// Unchecked Sendable: `pointer` is immutable after init, and the `GstBus` it wraps is thread-safe (GStreamer makes
/// posting and popping its messages safe from any thread).
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
    /// Messages of other types are dropped. Not on a bus a watch owns: the watch would miss what this takes.
    /// Calls `gst_bus_timed_pop_filtered`.
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
    /// until the returned watch is cancelled or released. The watch owns the bus: nothing else should
    /// take messages from it (`Element.setState` asks the watch for errors instead of popping them).
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
}

/// A running bus watch: a thread waiting in `gst_bus_timed_pop`, stopped by `cancel()` or `deinit`.
public final class BusWatch: Sendable {
    private let state: WatchState
    private let thread: SystemThread?

    fileprivate init(bus: Bus, handler: @escaping @Sendable (Message) -> Void) {
        let state = WatchState(bus: bus, handler: handler)
        self.state = state
        WatchRegistry.add(state)
        // The thread holds the state until its loop ends.
        thread = SystemThread.joinable(name: "swiftcam-bus") { state.run() }
        if thread == nil { WatchRegistry.remove(state) }
    }

    /// Stops the watch after the messages already queued and waits for its thread. Returns also when the
    /// bus is flushing (its pipeline is in NULL) and drops the wake-up: the thread's timed pop sees the stop.
    /// Calls `gst_bus_post`.
    public func cancel() {
        guard state.cancelled.exchange(true, ordering: .acquiringAndReleasing) == false, let thread else { return }
        // Wake first, then raise the flag: a timed pop that finds the queue empty with the flag up proves the
        // wake-up was dropped (flushed), so the thread never leaves its wake-up behind on the bus.
        _ = state.postWake()
        state.stopRequested.store(true, ordering: .releasing)
        thread.join()  // cancelled from inside its own handler: detached instead
    }

    deinit {
        cancel()
    }
}

/// The watches running now, by bus, so `setState` can ask the one that owns a bus for its errors.
private enum WatchRegistry {
    private static let watches = Locked<[UInt: [WatchState]]>([:])

    static func add(_ state: WatchState) {
        watches.withLock { $0[state.busKey, default: []].append(state) }
    }

    static func remove(_ state: WatchState) {
        watches.withLock { all in
            all[state.busKey]?.removeAll { $0 === state }
            if all[state.busKey]?.isEmpty == true { all[state.busKey] = nil }
        }
    }

    static func watch(on bus: UnsafeMutablePointer<GstBus>) -> WatchState? {
        watches.withLock { $0[UInt(bitPattern: bus)]?.first }
    }
}

/// What the watch thread needs, and the errors it has seen.
private final class WatchState: Sendable {
    /// How long one pop waits before the thread looks at the stop flag: the bound on `cancel()` when the
    /// bus dropped the wake-up (a flushing bus drops every post).
    static let popDeadline: GstClockTime = 100_000_000

    private static let nextID = Atomic<UInt>(1)

    let bus: Bus
    let handler: @Sendable (Message) -> Void
    let cancelled = Atomic<Bool>(false)
    let stopRequested = Atomic<Bool>(false)
    /// This watch's own wake-up; a wake-up left by an earlier watch of the same bus is skipped.
    let wakeName: String
    let errors = ErrorLog()
    /// The watch thread, once running (0 before).
    private let threadID = Atomic<UInt>(0)

    init(bus: Bus, handler: @escaping @Sendable (Message) -> Void) {
        self.bus = bus
        self.handler = handler
        wakeName = "\(Self.wakePrefix)\(Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)"
    }

    static let wakePrefix = "swiftcam-bus-watch-"

    var busKey: UInt { UInt(bitPattern: bus.pointer) }

    /// Whether the caller is the watch thread itself (which cannot wait for its own messages).
    var isCurrentThread: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_self(), pthread_t(id)) != 0
    }

    /// Posts the application message that ends `run`; false when the bus is flushing. Calls `gst_bus_post`.
    func postWake() -> Bool {
        guard let structure = gst_structure_new_empty(wakeName),
            let message = gst_message_new_application(nil, structure)
        else { return false }
        return gst_bus_post(bus.pointer, message) != 0
    }

    /// Waits on the bus until our wake-up arrives, or until a pop finds nothing after `cancel()`.
    func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        defer { WatchRegistry.remove(self) }
        while true {
            guard let raw = gst_bus_timed_pop(bus.pointer, Self.popDeadline) else {
                if stopRequested.load(ordering: .acquiring) { return }
                continue
            }
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }
            if raw.pointee.type == GST_MESSAGE_APPLICATION, let structure = gst_message_get_structure(raw),
                let name = String(borrowingCString: gst_structure_get_name(structure)), name.hasPrefix(Self.wakePrefix)
            {
                if name == wakeName { return }
                continue
            }
            let message = Message(borrowing: raw)
            if case .error = message { errors.append(message) }
            handler(message)
        }
    }
}

/// The errors a watch took from its bus, numbered from 0, for `setState` to wait on.
final class ErrorLog: Sendable {
    private struct Errors: Sendable {
        /// Errors seen so far; only the last `kept` are kept.
        var count = 0
        var recent: [Message] = []
    }
    private static let kept = 16
    private let errors = Condition(Errors())

    /// The number of errors seen so far: `first(since:)` of it waits for the next one.
    var mark: Int { errors.withLock { $0.count } }

    func append(_ message: Message) {
        errors.withLock { errors in
            errors.count += 1
            errors.recent.append(message)
            if errors.recent.count > Self.kept { errors.recent.removeFirst(errors.recent.count - Self.kept) }
        }
    }

    /// The first error numbered `mark` or later, waiting at most `seconds` for it to arrive.
    func first(since mark: Int, waiting seconds: Double) -> Message? {
        errors.wait(until: MonotonicClock.now + max(seconds, 0)) { errors -> Message? in
            guard errors.count > mark else { return nil }
            // The oldest kept error at or after `mark` (older ones may have been dropped).
            let firstKept = errors.count - errors.recent.count
            return errors.recent[max(mark - firstKept, 0)]
        }
    }
}

/// The errors of the watch that owns a bus, from a moment on: what `setState` reads instead of popping
/// messages the watch owns.
struct WatchedErrors {
    private let log: ErrorLog
    private let mark: Int
    private let onWatchThread: Bool

    /// The errors of the watch that owns `bus` from now on; nil when no watch runs on it.
    init?(bus: UnsafeMutablePointer<GstBus>) {
        guard let watch = WatchRegistry.watch(on: bus) else { return nil }
        log = watch.errors
        mark = log.mark
        onWatchThread = watch.isCurrentThread
    }

    /// The first error since this was made, waiting at most `seconds` for it (not at all on the watch's
    /// own thread, where nothing new arrives while its handler runs).
    func first(waiting seconds: Double) -> Message? {
        log.first(since: mark, waiting: onWatchThread ? 0 : seconds)
    }
}
