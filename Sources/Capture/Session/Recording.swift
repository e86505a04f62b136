import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// Where the session's recording stands. `starting` and `stopping` hold the slot while the recording
/// pipeline changes state, so no lock is held across that change and a second `record` is refused.
enum RecordingSlot: Sendable {
    case idle
    case starting
    case active(Recorder)
    case stopping(path: String)
}

extension CaptureSession {
    /// Starts recording into a new file while everything else keeps running; returns its path.
    @discardableResult
    public func startRecording() throws -> String {
        _ = try running()
        let directory = config.record?.directory ?? "recordings"
        try claimRecording()
        var path: String?
        do {
            try StillWriter.createDirectory(directory)
            // Segments are named to the millisecond, so two cut within one second still sort by time.
            let base = "\(name)-\(timestamp(milliseconds: config.record?.segment != nil))", ext = builder.recordExtension
            try StillWriter.requireSpace(in: directory, for: "\(directory)/\(base).\(ext)")
            let claimed = try Self.createExclusively(in: directory, base: base, extension: ext)
            path = claimed
            let started = try beginRecording(at: claimed)
            if activeRecorder?.encoderElement == "openh264enc" {
                emit(
                    .notice(
                        "recording H.264 with openh264enc (x264enc, Debian package gstreamer1.0-plugins-ugly, is absent or "
                            + "failed), whose library prints a harmless 'cmInitParaError' when a file ends"))
            }
            return started
        } catch {
            recording.withLock { $0 = .idle }
            // The name this start claimed, if nothing was written into it.
            if let path, let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.size] as? UInt == 0
            {
                try? FileManager.default.removeItem(atPath: path)
            }
            // Every failed start counts toward `run`'s exit code and is told on the host, like a failed still
            // (an encoder the muxer refuses used to leave `run` at 0); only a session that cannot record at all
            // (not running, a launch line without a tee) is just the reply.
            switch error {
            case SessionError.notRunning, SessionError.missingElement: break
            default:
                recordFailure("recording failed: \(error)", unprompted: false, kind: FailureKind(of: error))
                // The event is printed as "recording failed: …": without the error's own prefix.
                if case let SessionError.recordingFailed(reason) = error {
                    emit(.recordingFailed(reason))
                } else {
                    emit(.recordingFailed("\(error)"))
                }
            }
            throw error
        }
    }

    /// Creates `directory/base.ext`, or `base-2.ext`, `base-3.ext`… if taken, with O_EXCL: the name is this
    /// process's before the muxer opens it, so two hosts on one config and folder starting in the same second get
    /// two files, never one with the frames of both (a name checked first and created later can be taken between).
    static func createExclusively(in directory: String, base: String, extension ext: String) throws -> String {
        for attempt in 1...10_000 {
            let path = "\(directory)/\(base)\(attempt == 1 ? "" : "-\(attempt)").\(ext)"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                close(descriptor)
                return path
            }
            guard errno == EEXIST else { throw SessionError.writeFailure(path: path) }
        }
        throw SessionError.cannotWrite(path: directory, reason: "no free file name for \(base).\(ext)")
    }

    /// Takes the idle slot for a new recording, or says why not.
    func claimRecording() throws {
        let busy: String? = recording.withLock { slot in
            switch slot {
            case .idle:
                slot = .starting
                return nil
            case .starting: return "a recording that is starting"
            case let .active(recorder): return recorder.path
            case let .stopping(path): return "\(path) (finishing)"
            }
        }
        if let busy { throw SessionError.alreadyRecording(path: busy) }
    }

    /// Attaches a recording branch writing `path` (after recovery: the next part) into the claimed slot. With
    /// `record.segment`, `path` is the first segment and later ones are `NAME-DATE.ext` beside it (`SegmentFiles`).
    func beginRecording(at path: String) throws -> String {
        let graph = try running()
        guard let tee = graph.pipeline.element(named: PipelineBuilder.Names.tee) else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "record")
        }
        let builder = builder
        var segmenting: RecordingStages.Segmenting?
        if config.record?.segment != nil {
            let folder = path.folder
            let files = SegmentFiles(
                first: path, directory: folder.isEmpty ? "." : folder, base: name,
                extension: builder.recordExtension,
                onCut: { [weak self] in self?.storage?.check() },
                onWarning: { [weak self] warning in self?.emit(.warning("recording: \(warning)")) })
            segmenting = RecordingStages.Segmenting(files: files, splitter: { try builder.segmentSplitter() })
        }
        let recorder = try Recorder(
            pipeline: graph.pipeline, tee: tee, choice: builder.recordEncoders, path: path,
            graph: { builder.recordingGraph(location: path, encoder: $0) }, segmenting: segmenting,
            onWarning: { [weak self] warning in self?.emit(.warning("recording: \(warning)")) }
        ) {
            [weak self] reason in
            // On the recording's bus thread: end it elsewhere, since ending it waits for that thread.
            guard let session = self else { return }
            session.failureQueue.async { session.recordingFailed(path: path, reason: reason) }
        }
        recording.withLock { $0 = .active(recorder) }
        state.withLock { $0.recordingFailure = nil }
        return path
    }

    /// A recording's first write or encoder error: detach it from the tee, keep what was written (an empty
    /// file is removed), and say so at once, in `stats`, as an event and in the next reply.
    private func recordingFailed(path: String, reason: String) {
        guard
            let recorder = recording.withLock({ slot -> Recorder? in
                guard case let .active(recorder) = slot, recorder.path == path else { return nil }
                slot = .stopping(path: path)
                return recorder
            })
        else { return }
        recorder.finish(timeout: 1)
        carryCounts(of: recorder)
        recording.withLock { $0 = .idle }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.size] as? UInt == 0 {
            try? FileManager.default.removeItem(atPath: path)
        }
        let text = "\(path): \(reason)"
        state.withLock { $0.recordingFailure = text }
        recordFailure("recording failed: \(text)", unprompted: true)
        emit(.recordingFailed(text))
    }

    /// Finalizes the recording (EOS down its branch only) and returns its path.
    @discardableResult
    public func stopRecording() throws -> String {
        guard let recorder = takeRecorder() else { throw SessionError.notRecording }
        defer { recording.withLock { $0 = .idle } }
        let finished = recorder.finish()
        carryCounts(of: recorder)
        guard finished else {
            let reason = recorder.failureReason ?? "its end was not written in time"
            throw SessionError.recordingFailed(reason: "\(recorder.currentFile): \(reason)")
        }
        return recorder.currentFile
    }

    /// Ends the recording, if any, waiting at most `timeout` seconds for its file to be finished; returns its path.
    @discardableResult
    func finishRecording(timeout: Double = 5) -> String? {
        guard let recorder = takeRecorder() else { return nil }
        recorder.finish(timeout: timeout)
        carryCounts(of: recorder)
        recording.withLock { $0 = .idle }
        return recorder.currentFile
    }

    /// Keeps an ended recording's drops, frames, bytes and files in the session's counts (the stats count those of
    /// the active one). Its bytes are those of all its segments.
    private func carryCounts(of recorder: Recorder) {
        let dropped = recorder.droppedFrames(finished: true), frames = recorder.framesEncoded.value, bytes = recorder.bytesWritten
        let segments = recorder.segments?.now.finished ?? 0
        state.withLock { state in
            state.carried.queueDrops += dropped
            state.carried.recordedFrames += frames
            state.carried.recordingBytes += bytes
            state.carried.recordingsWritten += recorder.segments == nil ? (bytes > 0 ? 1 : 0) : segments
            state.carried.segments += segments
        }
        storage?.check()
    }

    /// Moves the active recorder out of the slot (which says `stopping` until the caller sets it idle).
    private func takeRecorder() -> Recorder? {
        recording.withLock { slot in
            guard case let .active(recorder) = slot else { return nil }
            slot = .stopping(path: recorder.currentFile)
            return recorder
        }
    }

    /// The file being recorded, if any (of a segmented recording, the segment being written).
    public var recordingPath: String? {
        recording.withLock { slot in
            if case let .active(recorder) = slot { return recorder.currentFile }
            return nil
        }
    }

    /// The recorder, for stats.
    var activeRecorder: Recorder? {
        recording.withLock { slot in
            if case let .active(recorder) = slot { return recorder }
            return nil
        }
    }
}
