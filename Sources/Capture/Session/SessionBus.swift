import Base
import GStreamer

extension CaptureSession {
    /// Runs on the bus thread. An error becomes a status in words (GStreamer's own text goes to the debug log); a
    /// camera's recoverable failure starts recovery, which says what comes next (`beginRecovery`).
    static func handle(_ message: Message, state: Condition<SessionState>, context: FailureContext) {
        switch message {
        case let .error(source, text, debug, reason):
            DebugLog.warning("\(source): \(text) [\(reason)]\(debug.map { " (\($0))" } ?? "")")
            // A source in a child process: how the child ended says what happened (its socket closed as it died).
            let child = state.withLock { $0.graph?.sourceProcesses[source] }
            let status =
                child.map { $0.status(asked: context.sources[source]?.asked) }
                ?? context.status(source: source, message: text, debug: debug, reason: reason, next: .stopping)
            // The first error is the driver's; the source's follow-up flow error ("Internal data stream error") is not news.
            let (ignore, recover) = state.withLock { state -> (Bool, (@Sendable (CameraFailure) -> Void)?) in
                if state.lastFailure == nil { state.lastFailure = status }
                if state.recovering || state.ended { return (true, nil) }
                // While `start` builds the graph it reports a failure itself (its `StartError`): no event twice.
                if state.graph == nil && state.transitioning {
                    state.status = status
                    state.ended = true
                    return (true, nil)
                }
                // Recovery sets the status, with what it will do next.
                if let recover = state.recover, let failure = status.failure, failure.isRecoverable, !state.stopping {
                    state.recovering = true
                    return (false, recover)
                }
                state.status = status
                state.ended = true
                return (false, nil)
            }
            guard !ignore else { return }
            if let recover, let failure = status.failure {
                recover(failure)
            } else {
                emit(.failed(status), state: state)
            }
        case .eos:
            let recovering = state.withLock { state -> Bool in
                if !state.recovering { state.ended = true }
                return state.recovering
            }
            if !recovering { emit(.endOfStream, state: state) }
        case let .warning(source, text, debug):
            DebugLog.warning("\(source) warns: \(text)\(debug.map { " (\($0))" } ?? "")")
            emit(.warning("\(source): \(text)"), state: state)
        default:
            break
        }
    }

    private static func emit(_ event: SessionEvent, state: Condition<SessionState>) {
        SessionCore(name: "", state: state).emit(event)
    }
}
