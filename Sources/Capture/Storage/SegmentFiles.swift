import Base
import FoundationEssentials
import GStreamer
import Glibc

/// The files of one segmented recording. The first is the name `record start` claimed; each later one is created
/// exclusively at its cut as `NAME-YYYYMMDD-HHMMSS.mmm.EXT` (`-2`, `-3`… when taken), so segments sort by time
/// and two hosts on one folder never write into the same file.
final class SegmentFiles: Sendable {
    /// What a recording has written so far: files opened and finished, and their bytes.
    struct Progress: Sendable {
        /// The file being written now, and the one before it (its end may still be being written).
        var current: String?
        var previous: String?
        /// Whether `current` was finished too (the recording ended).
        var currentFinished = false
        /// Files finished (closed by the muxer), their bytes, and the largest one's.
        var finished = 0
        var finishedBytes = 0
        var largest = 0
    }

    let first: String
    private let directory: String
    private let base: String
    private let fileExtension: String
    private let progress = Locked(Progress())
    private let onCut: @Sendable () -> Void
    private let onWarning: @Sendable (String) -> Void
    private let clock: @Sendable () -> String

    /// `first` is the claimed name of the first file; later names are `base-TIMESTAMP.ext` in `directory`.
    /// `onCut` runs (on a streaming thread: it must not block) each time a new file is about to open; `clock` stamps names.
    init(
        first: String, directory: String, base: String, extension fileExtension: String,
        clock: @escaping @Sendable () -> String = { timestamp(milliseconds: true) },
        onCut: @escaping @Sendable () -> Void, onWarning: @escaping @Sendable (String) -> Void
    ) {
        (self.clock, self.first, self.directory, self.base) = (clock, first, directory, base)
        (self.fileExtension, self.onCut, self.onWarning) = (fileExtension, onCut, onWarning)
    }

    /// The file the splitmuxsink's fragment `fragment` goes into, created exclusively; on its streaming thread.
    /// Fragment 0 is the claimed first file (again, when an encoder that failed before writing was replaced).
    /// A name that cannot be created is told, and the folder itself is named, so the file sink fails to open it and the
    /// recording ends with an error rather than overwriting the previous segment.
    func name(fragment: Int) -> String {
        var path = first
        if fragment > 0 {
            do {
                path = try SessionRecordings.createExclusively(in: directory, base: "\(base)-\(clock())", extension: fileExtension)
            } catch {
                onWarning("cannot start the next segment: \(error)")
                return directory + "/"
            }
        }
        progress.withLock { progress in
            if fragment == 0 {
                progress = Progress()
            } else {
                progress.previous = progress.current
            }
            progress.current = path
            progress.currentFinished = false
        }
        onCut()
        return path
    }

    /// The muxer finished `path` (splitmuxsink's `splitmuxsink-fragment-closed` message).
    func closed(_ path: String) {
        let bytes = Self.size(of: path)
        progress.withLock { progress in
            progress.finished += 1
            progress.finishedBytes += bytes
            progress.largest = max(progress.largest, bytes)
            if progress.previous == path { progress.previous = nil }
            if progress.current == path { progress.currentFinished = true }
        }
    }

    /// The recording's progress now.
    var now: Progress { progress.withLock { $0 } }

    /// The files that may still be written into: never deleted by the storage budget.
    var openFiles: Set<String> {
        let progress = now
        return Set([progress.current, progress.previous].compactMap { $0 })
    }

    /// Bytes of everything written so far, the open file's too.
    var bytesWritten: Int {
        let progress = now
        guard let current = progress.current, !progress.currentFinished else { return progress.finishedBytes }
        return progress.finishedBytes + Self.size(of: current)
    }

    /// The size of a file, 0 when it is gone.
    static func size(of path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int(info.st_size)
    }
}
