import Base
import GStreamer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One live subscriber's handle. Cancel it when the viewer leaves; the last cancel stops the encoder.
public final class LiveSubscription: Sendable {
    /// The callback (released at cancel, so a callback that refers to its own subscription makes no cycle)
    /// and whether a key frame has been delivered yet; held while the callback runs.
    private struct Delivery {
        var handler: (@Sendable (Sample) -> Void)?
        var sawKeyFrame = false
    }

    /// The codec of the samples this subscription gets: the encoder's when it subscribed. A fallback to another
    /// codec ends the subscription (it gets nothing more); a consumer built for another codec subscribes again.
    public let codec: LiveCodec
    private let active = Atomic(true)
    private let delivery: Locked<Delivery>
    /// The thread inside the callback now (`pthread_self`), 0 when none.
    private let deliveringThread = Atomic<UInt>(0)
    private let count = BufferCounter()
    private let onCancel: @Sendable (LiveSubscription) -> Void
    private let onKeyFrameRequest: @Sendable () -> Void

    init(
        codec: LiveCodec, handler: @escaping @Sendable (Sample) -> Void, onKeyFrameRequest: @escaping @Sendable () -> Void = {},
        onCancel: @escaping @Sendable (LiveSubscription) -> Void
    ) {
        self.codec = codec
        delivery = Locked(Delivery(handler: handler))
        self.onKeyFrameRequest = onKeyFrameRequest
        self.onCancel = onCancel
    }

    /// Samples handed to the subscriber.
    public var delivered: Int { count.value }

    /// Asks the shared encoder for a key frame (a viewer's PLI or FIR: it lost a frame and cannot decode on without
    /// one). Every subscriber gets it; the encoder forces at most one per half second, and a request inside that time
    /// is served at its end. From any thread; nothing after `cancel`.
    public func requestKeyFrame() {
        guard active.load(ordering: .acquiring) else { return }
        onKeyFrameRequest()
    }

    /// Stops the deliveries: none runs after this returns (a delivery under way on another thread is waited
    /// for; it is one push into the subscriber's own queue), and the callback is released. Idempotent; safe
    /// from any thread, the subscriber's own callback included.
    public func cancel() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if deliveringThread.load(ordering: .acquiring) != UInt(pthread_self()) {
            delivery.withLock { $0.handler = nil }
        }  // else: inside the callback, which releases it when it returns
        onCancel(self)
    }

    /// Hands `sample` on, from the first key frame; on the encoder's streaming thread.
    func deliver(_ sample: Sample, isKeyFrame: Bool) {
        delivery.withLock { state in
            guard active.load(ordering: .acquiring), let handler = state.handler else { return }
            if !state.sawKeyFrame {
                guard isKeyFrame else { return }
                state.sawKeyFrame = true
            }
            deliveringThread.store(UInt(pthread_self()), ordering: .releasing)
            handler(sample)
            deliveringThread.store(0, ordering: .releasing)
            count.record()
            if !active.load(ordering: .acquiring) { state.handler = nil }  // cancelled from inside the callback
        }
    }
}
