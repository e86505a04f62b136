import Base
import GStreamer

/// Counts frames the camera driver dropped before v4l2src saw them, from gaps in the V4L2 sequence numbers.
///
/// v4l2src (1.22) copies each V4L2 buffer's `sequence` into the buffer offset and posts a lost-frames QoS
/// message with the lost time (not a count) when it jumps; reading the offsets on its src pad gives the
/// count directly. A pad probe on the streaming thread: it only compares integers under a pthread mutex;
/// the probe holds this counter until the pad goes.
final class SequenceGaps: Sendable {
    private let state = Locked((last: UInt64?.none, lost: 0))

    /// Frames lost so far.
    var lost: Int { state.withLock { $0.lost } }

    /// Watches the buffers leaving `pad` (a v4l2src's src pad).
    func watch(_ pad: Pad) {
        pad.onBuffer { [self] offset in
            if let offset { record(offset: offset) }
        }
    }

    /// Adds the gap between the previous offset and this one; offsets that go back (a restart) start over.
    func record(offset: UInt64) {
        state.withLock { state in
            if let last = state.last, offset > last + 1, offset - last - 1 < 1_000_000 {
                state.lost += Int(offset - last - 1)
            }
            state.last = offset
        }
    }
}
