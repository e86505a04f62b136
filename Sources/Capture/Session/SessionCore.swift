import Base
import GStreamer

/// What the session's parts (stills, recordings, controls) may ask of the session, and nothing more: the playing
/// graph, telling the host, and the outputs' failures and counts. A part holds this, never the session, so it cannot
/// reach another part's state, and dropping a session frees its parts.
struct SessionCore: Sendable {
    /// The config's name, which file names and queue labels carry.
    let name: String
    /// The state the bus thread, the commands and the waits share (SessionState.swift).
    let state: Condition<SessionState>

    /// The playing graph, or nil.
    var graph: RunningGraph? { state.withLock { $0.graph } }

    /// The playing graph; throws when the session is not running.
    func running() throws -> RunningGraph {
        let (graph, ended) = state.withLock { ($0.graph, $0.ended) }
        guard let graph, !ended else { throw SessionError.notRunning }
        return graph
    }

    /// Tells the host `event` (on the caller's thread).
    func emit(_ event: SessionEvent) {
        state.withLock { $0.onEvent }?(event)
    }

    /// Counts a failed still or recording; `unprompted` ones are also told in the next reply.
    func recordFailure(_ text: String, unprompted: Bool, kind: FailureKind = .ioError) {
        state.withLock { state in
            state.failedOutputs += 1
            state.firstOutputFailure = state.firstOutputFailure ?? kind
            if unprompted { state.unreported.append(text) }
        }
    }

    /// A still or recording was written: `stats` names it as the last capture.
    func captured(_ path: String) {
        state.withLock { $0.lastCapture = path }
    }

    /// Why the last recording failed (`PATH: REASON`), or nil when one starts.
    func setRecordingFailure(_ text: String?) {
        state.withLock { $0.recordingFailure = text }
    }

    /// Adds an ended output's counts to those the stats carry.
    func carry(_ update: (inout Carried) -> Void) {
        state.withLock { update(&$0.carried) }
    }
}
