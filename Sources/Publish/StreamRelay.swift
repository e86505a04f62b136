import Base
import GStreamer
import Synchronization

/// Hands one subscription's frames to the appsrcs of small pipelines of our own (an RTSP media, a push),
/// restamped on each pipeline's own clock: subscribed while any appsrc is attached, cancelled after the last.
/// Runs on the encoder's thread and never blocks there: each appsrc is leaky and drops its oldest frame.
final class StreamRelay: Sendable {
    private struct Attached: Sendable {
        let source: AppSrc
        var lastCaps: Caps?
    }

    private struct State: Sendable {
        var attached: [UInt: Attached] = [:]
        var subscription: (any LiveStreamSubscription)?
        /// Which subscription's frames are delivered (a key-frame request subscribes anew, then cancels the old one).
        var generation = 0
        var closed = false
    }

    let stream: any LiveStream
    private let state = Locked(State())
    /// Frames pushed into some appsrc.
    let delivered = Atomic<Int>(0)
    /// Subscriptions made (the first, and one per key-frame request).
    let subscriptions = Atomic<Int>(0)

    init(stream: any LiveStream) {
        self.stream = stream
    }

    /// Starts feeding `source` under `key` (subscribing when it is the first). The appsrc should be leaky.
    func attach(_ source: AppSrc, key: UInt) throws {
        let needsSubscription = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.attached[key] = Attached(source: source)
            return state.subscription == nil
        }
        if needsSubscription { try resubscribe() }
    }

    /// Stops feeding the appsrc under `key`; the last one cancels the subscription.
    func detach(key: UInt) {
        let cancelled = state.withLock { state -> (any LiveStreamSubscription)? in
            state.attached[key] = nil
            guard state.attached.isEmpty else { return nil }
            defer { state.subscription = nil }
            state.generation += 1
            return state.subscription
        }
        cancelled?.cancel()
    }

    /// Whether any appsrc is fed.
    var isFeeding: Bool { state.withLock { !$0.attached.isEmpty } }

    /// Asks the encoder for a key frame now (a client joined mid-stream), by subscribing anew before
    /// cancelling the old subscription, so the encoder never stops in between.
    func requestKeyFrame() {
        guard state.withLock({ $0.subscription != nil && !$0.closed }) else { return }
        try? resubscribe()
    }

    /// Detaches everything and cancels the subscription; nothing is fed afterwards.
    func close() {
        let cancelled = state.withLock { state -> (any LiveStreamSubscription)? in
            state.closed = true
            state.attached = [:]
            state.generation += 1
            defer { state.subscription = nil }
            return state.subscription
        }
        cancelled?.cancel()
    }

    private func resubscribe() throws {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        let subscription = try stream.subscribe { [weak self] sample in self?.deliver(sample, generation: generation) }
        subscriptions.add(1, ordering: .relaxed)
        let old = state.withLock { state -> (any LiveStreamSubscription)?? in
            // Closed, detached or superseded meanwhile: this subscription is not wanted.
            guard state.generation == generation, !state.closed, !state.attached.isEmpty else { return .none }
            defer { state.subscription = subscription }
            return .some(state.subscription)
        }
        switch old {
        case .none: subscription.cancel()
        case let .some(previous): previous?.cancel()
        }
    }

    /// On the encoder's thread: never blocks, never traps.
    private func deliver(_ sample: Sample, generation: Int) {
        guard let buffer = sample.buffer else { return }
        let caps = sample.caps
        let targets = state.withLock { state -> [AppSrc] in
            guard state.generation == generation else { return [] }
            var targets: [AppSrc] = []
            for (key, var attached) in state.attached {
                if let caps, attached.lastCaps.map({ !$0.isEqual(to: caps) }) ?? true {
                    attached.source.caps = caps
                    attached.lastCaps = caps
                    state.attached[key] = attached
                }
                targets.append(attached.source)
            }
            return targets
        }
        for source in targets {
            var copy = WritableBuffer(buffer)  // a copy of the metadata (the memory stays shared) to restamp
            // Unset (appsrc's do-timestamp stamps it) until the pipeline has a clock and a base time behind it.
            let now = source.clockAndBaseTime.flatMap { times in
                times.now != UInt64.max && times.base != UInt64.max && times.now >= times.base ? times.now - times.base : nil
            }
            copy.pts = now
            copy.dts = now
            if (try? source.push(copy)) != nil { delivered.add(1, ordering: .relaxed) }
        }
    }
}
