import Analysis
import Base
import Config
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// Keeps the capture folders within a `StorageConfig`: captures older than `maxAge` go, then the oldest recordings
/// (segments) and stills until they take at most `maxBytes` together and the file system has `minFree` left.
/// A file being written is never deleted: the session names its open files, and any file changed in the last
/// `openWindow` seconds counts as open too (another host's recording in the same folder writes every second).
/// Each deletion is one line through `log` (the file and why) and counted.
///
/// Checks run on a queue of their own: when a segment is cut, after a still, and on a timer every `interval`
/// seconds (for one long recording and for other writers on the disk). The open recording may grow by up to its
/// largest finished segment before the next cut, so that much (`reserve`) is kept free beyond each limit.
final class StorageBudget: Sendable {
    /// What the budget saw at its last check, and what it deleted since it started.
    struct Counts: Sendable, Equatable {
        /// Bytes the captures in the folders take.
        var usedBytes = 0
        /// Bytes free on the file system that holds them (the least, over the folders).
        var freeBytes = 0
        /// Files deleted.
        var deletions = 0
    }

    /// A capture on disk.
    struct Capture {
        let path: String
        let bytes: Int
        let modified: Double
    }

    /// Seconds since its last change within which a file counts as being written.
    static let openWindow = 2.0
    /// Seconds between timed checks.
    static let interval = 2.0

    let limits: StorageConfig
    let directories: [String]
    private let counts = Locked(Counts())
    private let queue: DispatchQueue
    private let timer: RepeatingTimer
    private let log: @Sendable (String) -> Void
    private let openFiles: @Sendable () -> (paths: Set<String>, reserve: Int)

    /// `openFiles` names the files the session is writing and the bytes the open one may still grow by.
    init(
        limits: StorageConfig, directories: [String], label: String, log: @escaping @Sendable (String) -> Void,
        openFiles: @escaping @Sendable () -> (paths: Set<String>, reserve: Int)
    ) {
        self.limits = limits
        var seen = Set<String>()
        self.directories = directories.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }
        self.log = log
        self.openFiles = openFiles
        queue = DispatchQueue(label: "swiftcam.storage.\(label)")
        timer = RepeatingTimer(queue: queue)
    }

    /// The counts of the last check.
    var now: Counts { counts.withLock { $0 } }

    /// Checks at once and then every `interval` seconds until `stop`.
    func start() {
        timer.start(every: SessionTiming.interval(Self.interval), after: .seconds(0)) { [weak self] in self?.enforce() }
    }

    /// Stops the timed checks.
    func stop() {
        timer.stop()
    }

    /// Asks for a check soon, from any thread (a streaming thread at a cut): never waits.
    func check() {
        queue.async { [weak self] in self?.enforce() }
    }

    /// Checks now and returns the counts; waits for a check under way.
    @discardableResult
    func checkNow() -> Counts {
        queue.sync { enforce() }
        return now
    }

    /// One check, on `queue`.
    private func enforce() {
        let (open, reserve) = openFiles()
        let now = Date().timeIntervalSince1970
        let captures = directories.flatMap(Self.captures(in:))
        var used = captures.reduce(0) { $0 + $1.bytes }
        // Oldest first; what is open (ours, or changed just now) is never a candidate.
        var candidates = captures.filter { !open.contains($0.path) && now - $0.modified >= Self.openWindow }
            .sorted { ($0.modified, $0.path) < ($1.modified, $1.path) }
        var deleted = 0

        func delete(_ capture: Capture, _ reason: String) -> Bool {
            guard unlink(capture.path) == 0 || errno == ENOENT else {
                log("storage: cannot delete \(capture.path) (\(reason)): \(SystemError.message(errno))")
                return false
            }
            log("storage: deleted \(capture.path) (\(reason))")
            // An event's sidecar (`FILE.event.json`) goes with its capture.
            unlink(capture.path + EventSidecar.suffix)
            used -= capture.bytes
            deleted += 1
            return true
        }
        // A sidecar whose capture is gone (deleted by hand, or by a budget before sidecars went with their captures).
        for directory in directories {
            for orphan in Self.orphanSidecars(in: directory) where now - orphan.modified >= Self.openWindow {
                unlink(orphan.path)
            }
        }

        if let maxAge = limits.maxAge {
            let expired = candidates.filter { now - $0.modified > maxAge }
            for capture in expired { _ = delete(capture, "older than maxAge \(Self.seconds(maxAge))") }
            candidates.removeAll { now - $0.modified > maxAge }
        }
        // Each reason states the comparison that held, the open recording's room included.
        let growth = reserve > 0 ? " and the open recording may grow by \(reserve)" : ""
        if let maxBytes = limits.maxBytes {
            while used + reserve > maxBytes, !candidates.isEmpty {
                let oldest = candidates.removeFirst()
                _ = delete(oldest, "captures take \(used) bytes\(growth), over maxBytes \(maxBytes)")
            }
        }
        var free = directories.compactMap(Self.freeBytes(in:)).min() ?? 0
        if let minFree = limits.minFree {
            let room = reserve > 0 ? " with \(reserve) kept for the open recording to grow" : ""
            while free < minFree + reserve, !candidates.isEmpty {
                let oldest = candidates.removeFirst()
                _ = delete(oldest, "\(free) bytes free, under minFree \(minFree)\(room)")
                free = directories.compactMap(Self.freeBytes(in:)).min() ?? 0
            }
        }
        counts.withLock { counts in
            counts.usedBytes = used
            counts.freeBytes = free
            counts.deletions += deleted
        }
    }

    /// The recordings and stills in `directory` (the gallery's file kinds; hidden and half-written files are not).
    static func captures(in directory: String) -> [Capture] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { name -> Capture? in
            guard !name.hasPrefix("."), Gallery.kind(of: name) != nil else { return nil }
            return regularFile("\(directory)/\(name)")
        }
    }

    /// The file at `path` with its size and time, when it is a regular file (not a link, folder or socket).
    private static func regularFile(_ path: String) -> Capture? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return Capture(path: path, bytes: Int(info.st_size), modified: modified)
    }

    /// The event sidecars in `directory` whose capture is not there.
    static func orphanSidecars(in directory: String) -> [Capture] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let present = Set(names)
        return names.compactMap { name -> Capture? in
            guard name.hasSuffix(EventSidecar.suffix), !present.contains(String(name.dropLast(EventSidecar.suffix.count))) else {
                return nil
            }
            return regularFile("\(directory)/\(name)")
        }
    }

    /// Bytes an unprivileged writer may still use on the file system holding `directory`; nil when it cannot be asked.
    /// A folder not made yet (nothing captured into it so far) is asked of its nearest parent that exists, the file
    /// system it will be made on.
    static func freeBytes(in directory: String) -> Int? {
        var info = statvfs()
        var path = directory
        while statvfs(path, &info) != 0 {
            guard errno == ENOENT, let parent = Self.parent(of: path) else { return nil }
            path = parent
        }
        let (bytes, overflow) = Int(clamping: info.f_bavail).multipliedReportingOverflow(by: Int(clamping: info.f_frsize))
        return overflow ? Int.max : bytes
    }

    /// The folder holding `path` ("." for a name without one), nil for the root and ".".
    static func parent(of path: String) -> String? {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard trimmed != "/", trimmed != "." else { return nil }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// "3600 s" for a log line.
    private static func seconds(_ value: Double) -> String {
        "\(fmt(value, value.rounded() == value ? 0 : 1)) s"
    }
}
