import Base
import GStreamer

/// What the bus thread, the commands and the waits share.
struct SessionState: Sendable {
    var status: CameraStatus = .configured
    /// The playing graph (nil before start, after stop, and while recovery rebuilds it).
    var graph: RunningGraph?
    /// Start, stop or recovery owns the graph now.
    var transitioning = false
    var ended = false
    /// A source failed and the session is bringing it back; errors and EOS of the old graph are ignored.
    var recovering = false
    /// `stop` was called: recovery gives up.
    var stopping = false
    /// `requestStop` or `stop` was called: `waitUntilDone` returns.
    var stopRequested = false
    var onEvent: (@Sendable (SessionEvent) -> Void)?
    /// Starts recovery after a camera's failure (set by `start` for v4l2 configs); called on the bus or watchdog thread.
    var recover: (@Sendable (CameraFailure) -> Void)?
    /// The last error's status as the bus thread read it (with GStreamer's code), even while starting or recovering:
    /// what a failed state change reports instead of GStreamer's text. Cleared before each graph plays.
    var lastFailure: CameraStatus?
    /// Counts from graphs replaced while recovering, added to the live ones.
    var carried = Carried()
    /// The stats when the pipeline stopped.
    var finalStats: SessionStats?
    var lastCapture: String?
    /// Why the last recording failed (`PATH: REASON`), until the next one starts.
    var recordingFailure: String?
    /// Stills and recordings that failed (a run with any exits 74, or 77 when the first was not permitted).
    var failedOutputs = 0
    /// The kind of the first of them.
    var firstOutputFailure: FailureKind?
    /// The recording bytes `metrics` last reported: a counter never goes back, also not in the moment between a
    /// recording leaving the slot and its bytes joining the finished ones.
    var recordingBytesReported = 0
    /// Failures no command reply has mentioned yet (see `takeUnreported`).
    var unreported: [String] = []

    /// Frames that left the filter, across recoveries.
    var framesFiltered: Int { carried.framesOut + (graph?.filterOut.value ?? 0) }
}

/// Counts carried over from graphs replaced during recovery.
struct Carried: Sendable {
    /// Frames the recordings that ended encoded, and the segments they finished (each is also a recording file).
    var recordedFrames = 0, segments = 0
    /// Frames into and out of the filters of replaced graphs.
    var framesIn = 0, framesOut = 0
    /// Frames dropped: a branch fell behind (queue), late before filtering (qos), the driver's sequence gaps (source).
    var queueDrops = 0, qosDrops = 0, sourceDrops = 0
    /// Graphs rebuilt after a camera failed or stalled.
    var recoveries = 0
    /// Frames the filters of replaced graphs processed and the seconds they took.
    var filterFrames = 0, filterSeconds = 0.0
    /// Bytes of the recording files finished, and how many there are.
    var recordingBytes = 0, recordingsWritten = 0
}
