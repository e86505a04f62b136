/// The last seconds of an encoded stream, always starting at a key frame, bounded by bytes and by time: what a
/// recording that begins before its trigger (picamera2's circular output) is cut from. Only encoded data is held.
///
/// Whole groups of pictures leave from the front: the ring drops its first group once the next key frame is itself at
/// least `seconds` old, and drops groups while it holds more than `maxBytes` (keeping the newest group however large).
/// Not thread-safe: the owner locks it.
public struct KeyFrameRing<Payload> {
    /// One encoded frame.
    public struct Entry {
        /// Presentation time, nanoseconds.
        public let time: UInt64
        /// The encoded frame's size, counted against the ring's `maxBytes`.
        public let bytes: Int
        /// Whether a decoder can start here.
        public let isKeyFrame: Bool
        /// What the owner keeps for the frame (its buffer).
        public let payload: Payload

        /// One frame of `bytes` at `time`, a key frame or not, carrying `payload`.
        public init(time: UInt64, bytes: Int, isKeyFrame: Bool, payload: Payload) {
            (self.time, self.bytes, self.isKeyFrame, self.payload) = (time, bytes, isKeyFrame, payload)
        }
    }

    /// How far back the ring must reach, nanoseconds.
    public let span: UInt64
    /// The most bytes held, but for the newest group of pictures however large.
    public let maxBytes: Int
    /// The entries, oldest first; the first is a key frame (or the ring is empty).
    public private(set) var entries: [Entry] = []
    /// Bytes held now, and the most ever held.
    public private(set) var bytes = 0
    /// The most bytes ever held at once.
    public private(set) var peakBytes = 0
    private var head = 0

    /// A ring reaching `seconds` back (at least), holding at most `maxBytes`.
    public init(seconds: Double, maxBytes: Int) {
        span = UInt64(min(max(seconds, 0), 1e9) * 1e9)
        self.maxBytes = max(0, maxBytes)
    }

    /// The frames held, oldest first (from a key frame).
    public var frames: ArraySlice<Entry> { entries[head...] }

    /// Adds the newest frame. Frames before the first key frame are not kept: nothing could decode them.
    public mutating func append(_ entry: Entry) {
        if head == entries.count, !entry.isKeyFrame { return }
        entries.append(entry)
        bytes += entry.bytes
        trim(now: entry.time)
        peakBytes = max(peakBytes, bytes)
        // Compact now and then, so dropping from the front stays cheap.
        if head > 256, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    /// The frames from the last key frame at or before `time` (the first one held if none is that old), oldest first.
    public func frames(from time: UInt64) -> ArraySlice<Entry> {
        var start = head
        for index in head..<entries.count where entries[index].isKeyFrame && entries[index].time <= time { start = index }
        return entries[start...]
    }

    /// Empties the ring (the stream restarted: what is held cannot continue into what comes).
    public mutating func removeAll() {
        entries = []
        head = 0
        bytes = 0
    }

    private mutating func trim(now: UInt64) {
        while let next = nextKeyFrame(after: head) {
            let old = now >= entries[next].time && now - entries[next].time >= span
            guard old || bytes > maxBytes else { break }
            for index in head..<next { bytes -= entries[index].bytes }
            head = next
        }
    }

    private func nextKeyFrame(after index: Int) -> Int? {
        var next = index + 1
        while next < entries.count {
            if entries[next].isKeyFrame { return next }
            next += 1
        }
        return nil
    }
}

extension KeyFrameRing: Sendable where Payload: Sendable {}
extension KeyFrameRing.Entry: Sendable where Payload: Sendable {}
