import Base
import Dispatch

/// An appsink on the filtered stream: the latest frame on demand, or every frame to a Swift closure on
/// its own queue. The streaming thread never waits for Swift: frames beyond the backlog are dropped and counted.
public final class FrameTap: Sendable {
    /// The appsink to link into a graph (or found by name in a parsed one).
    public let sink: AppSink
    private let state = Condition(TapState())
    private let queue: DispatchQueue
    private let backlog: Int

    private struct TapState {
        var latest: Sample?
        var handler: (@Sendable (Sample) -> Void)?
        var pending = 0
        var delivered = 0
        var dropped = 0
        var received = 0
        /// Threads blocked in `frame(after:until:)`.
        var waiters = 0
    }

    /// A tap around a new appsink. `backlog` bounds the frames waiting for the handler.
    public convenience init(name: String? = nil, backlog: Int = 4) throws(GStreamerError) {
        try self.init(sink: AppSink.make(name: name), backlog: backlog)
    }

    /// A tap around an existing appsink (for example one named in a launch string).
    public init(sink: AppSink, backlog: Int = 4) throws(GStreamerError) {
        self.sink = sink
        self.backlog = max(1, backlog)
        queue = DispatchQueue(label: "swiftcam.frametap.\(sink.name)")
        try sink.set("sync", false)
        try sink.set("max-buffers", 1)
        try sink.set("drop", true)
        sink.onSample { [weak self] sample in self?.receive(sample) }
    }

    deinit {
        sink.onSample(nil)
    }

    /// Runs on the streaming thread: keep the newest, hand to the handler unless its backlog is full.
    private func receive(_ sample: Sample) {
        let handler: (@Sendable (Sample) -> Void)? = state.withLock { state in
            state.received += 1
            state.latest = sample
            guard let handler = state.handler else { return nil }
            guard state.pending < backlog else {
                state.dropped += 1
                return nil
            }
            state.pending += 1
            return handler
        }
        guard let handler else { return }
        queue.async { [weak self] in
            handler(sample)
            self?.state.withLock {
                $0.pending -= 1
                $0.delivered += 1
            }
        }
    }

    /// Waits for a frame newer than the `received` count given (see `counts`), until `deadline` (monotonic
    /// seconds); nil when none came in time. The shutter's wait: a frame that arrives after the press.
    public func frame(after received: Int, until deadline: Double) -> Sample? {
        state.withLock { $0.waiters += 1 }
        defer { state.withLock { $0.waiters -= 1 } }
        return state.wait(until: deadline) { state in state.received > received ? state.latest : nil }
    }

    /// Blocks until some thread waits in `frame(after:until:)`, or until `deadline`; returns whether one
    /// does. Lets a caller (a test) act while a shutter press is known to be waiting for its frame.
    public func waitForWaiter(until deadline: Double) -> Bool {
        state.wait(until: deadline) { $0.waiters > 0 ? true : nil } ?? false
    }

    /// Stops taking frames and lets go of the ones held. A frame keeps its buffer pool alive, and a
    /// v4l2src pool holds its own handle on the camera: a graph being torn down calls this so the device
    /// can close. Calls `gst_app_sink_set_callbacks` (clearing them).
    public func close() {
        sink.onSample(nil)
        state.withLock { state in
            state.latest = nil
            state.handler = nil
        }
    }

    /// The newest frame seen, without waiting; nil before the first.
    public var latestFrame: Sample? {
        state.withLock { $0.latest }
    }

    /// Calls `handler` with each frame on the tap's own serial queue; nil stops delivery.
    public func onFrame(_ handler: (@Sendable (Sample) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// Frames that arrived, were handed to the handler, and were dropped because the handler fell behind.
    public var counts: (received: Int, delivered: Int, dropped: Int) {
        state.withLock { ($0.received, $0.delivered, $0.dropped) }
    }

    /// Waits until the handler queue has run everything given to it so far.
    public func drain() {
        queue.sync {}
    }
}
