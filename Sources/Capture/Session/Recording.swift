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

/// The session's recording: at most one at a time, on a branch of the running tee into a pipeline of its own
/// (`Recorder`), ended on request, at a failure, at stop, or continued in a next part after recovery. Its own lock holds
/// only the slot; no lock is held while a recording's pipeline starts or finishes.
final class SessionRecordings: Sendable {
    private let core: SessionCore
    private let builder: PipelineBuilder
    private let storage: StorageBudget?
    /// Shared with the storage budget, which reads the open files from it (`RecordingSlot.openFiles`).
    private let recording: Locked<RecordingSlot>
    /// Ends failed recordings (off the recording's bus thread, which ending one waits for).
    private let failureQueue: DispatchQueue

    init(core: SessionCore, builder: PipelineBuilder, slot: Locked<RecordingSlot>, storage: StorageBudget?) {
        self.core = core
        self.builder = builder
        self.storage = storage
        recording = slot
        failureQueue = DispatchQueue(label: "swiftcam.failures.\(core.name)")
    }

    private var config: RecordConfig? { builder.config.record }
    private var name: String { core.name }

    /// Starts recording into a new file while everything else keeps running; returns its path.
    func start() throws -> String {
        _ = try core.running()
        let directory = config?.directory ?? "recordings"
        try claim()
        var path: String?
        do {
            try StillWriter.createDirectory(directory)
            // Segments are named to the millisecond, so two cut within one second still sort by time.
            let base = "\(name)-\(timestamp(milliseconds: config?.segment != nil))", ext = builder.recordExtension
            try StillWriter.requireSpace(in: directory, for: "\(directory)/\(base).\(ext)")
            let claimed = try Self.createExclusively(in: directory, base: base, extension: ext)
            path = claimed
            let started = try begin(at: claimed)
            if active?.encoderElement == "openh264enc" {
                core.emit(
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
                core.recordFailure("recording failed: \(error)", unprompted: false, kind: FailureKind(of: error))
                // The event is printed as "recording failed: …": without the error's own prefix.
                if case let SessionError.recordingFailed(reason) = error {
                    core.emit(.recordingFailed(reason))
                } else {
                    core.emit(.recordingFailed("\(error)"))
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
    private func claim() throws {
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
    private func begin(at path: String) throws -> String {
        let graph = try core.running()
        guard let tee = graph.pipeline.element(named: PipelineBuilder.Names.tee) else {
            throw SessionError.missingElement(name: PipelineBuilder.Names.tee, command: "record")
        }
        let builder = builder
        var segmenting: RecordingStages.Segmenting?
        if config?.segment != nil {
            let folder = path.folder
            let files = SegmentFiles(
                first: path, directory: folder.isEmpty ? "." : folder, base: name,
                extension: builder.recordExtension,
                onCut: { [storage] in storage?.check() },
                onWarning: { [core] warning in core.emit(.warning("recording: \(warning)")) })
            segmenting = RecordingStages.Segmenting(files: files, splitter: { try builder.segmentSplitter() })
        }
        let recorder = try Recorder(
            pipeline: graph.pipeline, tee: tee, choice: builder.recordEncoders, path: path,
            graph: { builder.recordingGraph(location: path, encoder: $0) }, segmenting: segmenting,
            onWarning: { [core] warning in core.emit(.warning("recording: \(warning)")) }
        ) {
            [weak self] reason in
            // On the recording's bus thread: end it elsewhere, since ending it waits for that thread.
            guard let self else { return }
            self.failureQueue.async { self.failed(path: path, reason: reason) }
        }
        recording.withLock { $0 = .active(recorder) }
        core.setRecordingFailure(nil)
        return path
    }

    /// A recording's first write or encoder error: detach it from the tee, keep what was written (an empty
    /// file is removed), and say so at once, in `stats`, as an event and in the next reply.
    private func failed(path: String, reason: String) {
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
        core.setRecordingFailure(text)
        core.recordFailure("recording failed: \(text)", unprompted: true)
        core.emit(.recordingFailed(text))
    }

    /// Finalizes the recording (EOS down its branch only) and returns its path.
    func stop() throws -> String {
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
    func finish(timeout: Double = 5) -> String? {
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
        core.carry { carried in
            carried.queueDrops += dropped
            carried.recordedFrames += frames
            carried.recordingBytes += bytes
            carried.recordingsWritten += recorder.segments == nil ? (bytes > 0 ? 1 : 0) : segments
            carried.segments += segments
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
    var path: String? {
        recording.withLock { slot in
            if case let .active(recorder) = slot { return recorder.currentFile }
            return nil
        }
    }

    /// The recorder, for stats.
    var active: Recorder? {
        recording.withLock { slot in
            if case let .active(recorder) = slot { return recorder }
            return nil
        }
    }

    /// `name-DATE.mkv` → `name-DATE-part2.mkv`, `…-part2.mkv` → `…-part3.mkv`, skipping names in use.
    static func nextPart(after path: String) -> String {
        let dot = path.lastIndex(of: ".") ?? path.endIndex
        var stem = String(path[..<dot])
        let ext = String(path[dot...])
        var number = 2
        if let range = stem.ranges(of: "-part").last, let current = Int(stem[range.upperBound...]) {
            number = current + 1
            stem = String(stem[..<range.lowerBound])
        }
        var candidate = "\(stem)-part\(number)\(ext)"
        while FileManager.default.fileExists(atPath: candidate) {
            number += 1
            candidate = "\(stem)-part\(number)\(ext)"
        }
        return candidate
    }

    /// After recovery: the recording that ended with the old graph (`recordedPath`) continues in `planned` (the part the
    /// status announced, unless that file exists) or the next part after it. Returns the new part's path.
    func continueAfterRecovery(planned: String?, after recordedPath: String) throws -> String {
        try claim()
        do {
            return try begin(at: planned ?? Self.nextPart(after: recordedPath))
        } catch {
            recording.withLock { $0 = .idle }
            throw error
        }
    }
}

extension RecordingSlot {
    /// The files being written, and the growth to reserve for them: what the storage budget must not delete.
    var openFiles: (paths: Set<String>, reserve: Int) {
        switch self {
        case let .active(recorder): recorder.openFiles
        case let .stopping(path): ([path], 0)
        case .idle, .starting: ([], 0)
        }
    }
}

extension CaptureSession {
    /// Starts recording into a new file while everything else keeps running; returns its path.
    @discardableResult
    public func startRecording() throws -> String {
        try recordings.start()
    }

    /// Finalizes the recording (EOS down its branch only) and returns its path.
    @discardableResult
    public func stopRecording() throws -> String {
        try recordings.stop()
    }

    /// The file being recorded, if any (of a segmented recording, the segment being written).
    public var recordingPath: String? { recordings.path }
}
