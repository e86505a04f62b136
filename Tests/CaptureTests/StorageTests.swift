import Base
import Config
import Dispatch
import Foundation
import GStreamer
import Glibc
import TestSupport
import Testing

@testable import Capture

@Suite("Storage")
struct StorageTests {
    /// A folder of captures with set ages (seconds old) and sizes.
    private func folder(_ files: [(name: String, bytes: Int, age: Double)]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let now = Date().timeIntervalSince1970
        for file in files {
            let path = folder.appendingPathComponent(file.name).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: file.bytes)))
            let time = now - file.age
            var times = [timeval(tv_sec: Int(time), tv_usec: 0), timeval(tv_sec: Int(time), tv_usec: 0)]
            #expect(utimes(path, &times) == 0)
        }
        return folder
    }

    private func remaining(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Over `maxBytes`, the oldest captures go first, stills and segments alike; files that are not captures, the file
    /// being written, and a file changed just now (another host may be writing it) stay, and each deletion is one line.
    @Test func theOldestCapturesGoFirstAndNeverAFileBeingWritten() throws {
        let folder = try folder([
            ("a-old.mkv", 400_000, 500), ("b.jpg", 400_000, 400), ("c.mkv", 400_000, 300),
            ("open.mkv", 400_000, 600), ("notes.txt", 900_000, 900), ("d.mkv", 400_000, 200),
            ("theirs.mkv", 400_000, 0)
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = Locked<[String]>([])
        let budget = StorageBudget(
            limits: StorageConfig(maxBytes: 1_300_000), directories: [folder.path, folder.path], label: "t",
            log: { line in lines.withLock { $0.append(line) } },
            openFiles: { (["\(folder.path)/open.mkv"], 0) })
        let counts = budget.checkNow()
        // 2.4 MB of captures: a-old, b and c (oldest first, open.mkv skipped) bring them to 1.2 MB.
        #expect(remaining(folder) == ["d.mkv", "notes.txt", "open.mkv", "theirs.mkv"])
        #expect(
            counts == StorageBudget.Counts(usedBytes: 1_200_000, freeBytes: StorageBudget.freeBytes(in: folder.path) ?? -1, deletions: 3))
        let logged = lines.withLock { $0 }
        #expect(
            logged.count == 3
                && logged[0].hasPrefix("storage: deleted \(folder.path)/a-old.mkv (captures take 2400000 bytes, over maxBytes 1300000)"),
            "\(logged)")
    }

    /// A capture folder not made yet (nothing captured so far) reports the free space of the file system it will be
    /// made on, not 0: /metrics said `swiftcam_storage_free_bytes 0` until the first recording.
    @Test func aFolderNotMadeYetHasItsParentsFreeSpace() throws {
        let folder = try folder([])
        defer { try? FileManager.default.removeItem(at: folder) }
        let free = try #require(StorageBudget.freeBytes(in: folder.path))
        #expect(free > 0)
        let later = try #require(StorageBudget.freeBytes(in: folder.path + "/recordings/cam/"))
        #expect(abs(later - free) < 64 << 20, "\(later) against \(free)")
        #expect(
            StorageBudget.parent(of: "captures") == "." && StorageBudget.parent(of: "/srv") == "/"
                && StorageBudget.parent(of: "a/b/") == "a" && StorageBudget.parent(of: "/") == nil && StorageBudget.parent(of: ".") == nil)
        let counts = StorageBudget(
            limits: StorageConfig(maxBytes: 1 << 20), directories: [folder.path + "/recordings"], label: "t",
            log: { _ in }, openFiles: { ([], 0) }
        ).checkNow()
        #expect(counts.freeBytes > 0)
    }

    /// `maxAge` deletes what is older, whatever the space; `minFree` deletes the oldest while the disk has less free.
    @Test func maxAgeAndMinFreeDeleteTheOldest() throws {
        let folder = try folder([("old.png", 10, 7200), ("new.png", 10, 60), ("older.mkv", 10, 9000)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let aged = StorageBudget(
            limits: StorageConfig(maxAge: 3600), directories: [folder.path], label: "t", log: { _ in }, openFiles: { ([], 0) })
        #expect(aged.checkNow().deletions == 2)
        #expect(remaining(folder) == ["new.png"])
        // More free space wanted than the disk has: everything not open goes.
        let full = StorageBudget(
            limits: StorageConfig(minFree: StorageConfig.maxByteCount), directories: [folder.path], label: "t",
            log: { _ in }, openFiles: { ([], 0) })
        #expect(full.checkNow().deletions == 1)
        #expect(remaining(folder).isEmpty)
    }

    /// An event's sidecar (`FILE.event.json`) is deleted with its capture; one whose capture is already gone is
    /// deleted too; the sidecar of a capture that stays, stays.
    @Test func eventSidecarsGoWithTheirCaptures() throws {
        let folder = try folder([
            ("old.mkv", 10, 9000), ("old.mkv.event.json", 10, 9000), ("new.jpg", 10, 60),
            ("new.jpg.event.json", 10, 60), ("gone.jpg.event.json", 10, 60)
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let budget = StorageBudget(
            limits: StorageConfig(maxAge: 3600), directories: [folder.path], label: "t", log: { _ in }, openFiles: { ([], 0) })
        #expect(budget.checkNow().deletions == 1)
        #expect(remaining(folder) == ["new.jpg", "new.jpg.event.json"])
    }

    /// A long run on a small disk of its own (a tmpfs that one unbudgeted recording would fill), 1 s segments: at
    /// every second the captures take at most `maxBytes`, the disk keeps `minFree`, and the recording never fails (a
    /// full disk or a deleted open file would end it); no deletion names the file being written.
    /// `SWIFTCAM_STORAGE_SECONDS` makes it longer (`make storage-soak`).
    @Test func aBudgetKeepsALongSegmentedRecordingOnASmallDisk() throws {
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root")
            return
        }
        let seconds = ProcessInfo.processInfo.environment["SWIFTCAM_STORAGE_SECONDS"].flatMap(Int.init) ?? 12
        let disk = FileManager.default.temporaryDirectory.appendingPathComponent("budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: disk) }
        // 1.2 MB: about 10 s of this recording (about 115 KB/s); the budget keeps 1 MiB and 128 KiB free.
        #expect(Self.shell("mount -t tmpfs -o size=1200k tmpfs '\(disk.path)'") == 0)
        defer { _ = Self.shell("umount '\(disk.path)'") }
        let config = try ConfigLoader.load(
            data: Data(
                """
                { "sources": [{ "kind": "test" }], "caps": { "width": 160, "height": 120, "framerate": "30/1" }, "preview": "none",
                  "record": { "encoder": "mjpeg", "directory": "\(disk.path)", "segment": 1 },
                  "storage": { "maxBytes": "1M", "minFree": "128K" } }
                """.utf8), file: "budget.json")
        let session = CaptureSession(name: "budget", config: config, builder: PipelineBuilder(config: config, hasDisplay: false))
        let failures = Locked<[String]>([]), deletedOpen = Locked<[String]>([]), deletions = Locked(0)
        let reasons = Locked<[String]>([])
        session.onEvent { event in
            switch event {
            case let .recordingFailed(reason): failures.withLock { $0.append(reason) }
            case let .notice(line) where line.hasPrefix("storage: deleted "):
                deletions.withLock { $0 += 1 }
                reasons.withLock { $0.append(line) }
                if let open = session.recordingPath, line.hasPrefix("storage: deleted \(open) ") {
                    deletedOpen.withLock { $0.append(line) }
                }
            default: break
            }
        }
        try session.start()
        defer { session.stop() }
        try session.startRecording()
        var written = 0, worst = 0, leastFree = Int.max
        for _ in 0..<seconds {
            #expect(session.waitForFrames(30, timeout: 600) >= 30)
            let captures = StorageBudget.captures(in: disk.path)
            let used = captures.reduce(0) { $0 + $1.bytes }
            worst = max(worst, used)
            leastFree = min(leastFree, StorageBudget.freeBytes(in: disk.path) ?? 0)
            #expect(used <= 1 << 20, "the captures take \(used) bytes: \(captures.map { "\($0.path) \($0.bytes)" })")
            if let open = session.recordingPath { #expect(FileManager.default.fileExists(atPath: open), "\(open) was deleted") }
        }
        try session.stopRecording()
        // The stop's own check: with nothing open, what is left keeps both limits (it was over them at the exit).
        session.stop()
        let left = StorageBudget.captures(in: disk.path).reduce(0) { $0 + $1.bytes }
        #expect(left <= 1 << 20, "\(left) bytes left after the stop, over maxBytes")
        #expect((StorageBudget.freeBytes(in: disk.path) ?? 0) >= 128 << 10, "under minFree after the stop")
        // Every reason a deletion gives states a comparison that held (they said "951036 bytes, over maxBytes 1048576").
        for line in reasons.withLock({ $0 }) { #expect(Self.reasonHolds(line), "\(line)") }
        let stats = session.stats
        written = stats.recordingBytes ?? 0
        print(
            "storage run: \(seconds) s, \(written) bytes written, at most \(worst) bytes kept, at least \(leastFree) free, "
                + "\(stats.storageDeletions ?? -1) deletions, \(stats.segmentsWritten ?? -1) segments")
        #expect(written > 1200 << 10 || seconds < 12, "the run wrote \(written) bytes: not more than the disk holds")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(deletedOpen.withLock { $0 }.isEmpty, "\(deletedOpen.withLock { $0 })")
        #expect(leastFree >= 128 << 10, "the disk had \(leastFree) bytes free")
        #expect((stats.storageDeletions ?? 0) > 0 && stats.storageDeletions == deletions.withLock { $0 })
        // What is left plays: the newest segments, each to its end.
        for capture in StorageBudget.captures(in: disk.path) {
            let segment = try DecodedSegment(capture.path)
            #expect(segment.endedCleanly && segment.frames > 0, "\(capture.path): \(segment)")
        }
    }

    /// The keys are checked where they are read, and every value that passes is safe later.
    @Test(arguments: [
        (#""segment": 0.5"#, "record.segment"), (#""segment": 1e20"#, "record.segment"),
        (#""segment": "1""#, "record.segment")
    ])
    func badSegmentsAreRefused(key: String, path: String) throws {
        let json = #"{ "sources": [{ "kind": "test" }], "record": { \#(key) } }"#
        #expect { try ConfigLoader.load(data: Data(json.utf8), file: "s.json") } throws: { error in
            "\(error)".hasPrefix("s.json: \(path):")
        }
    }

    @Test(arguments: [
        (#"{ "maxBytes": "lots" }"#, "storage.maxBytes"), (#"{ "maxBytes": 1000 }"#, "storage.maxBytes"),
        (#"{ "maxBytes": "9999999T" }"#, "storage.maxBytes"), (#"{ "maxBytes": 1e30 }"#, "storage.maxBytes"),
        (#"{ "minFree": -1 }"#, "storage.minFree"), (#"{ "maxAge": "7x" }"#, "storage.maxAge"),
        (#"{ "maxAge": 1e300 }"#, "storage.maxAge"), (#"{ "maxAge": 0 }"#, "storage.maxAge"),
        (#"{ "maxbytes": 5 }"#, "storage.maxbytes"), (#"{}"#, "storage")
    ])
    func badBudgetsAreRefused(storage: String, path: String) throws {
        let json = #"{ "sources": [{ "kind": "test" }], "record": {}, "storage": \#(storage) }"#
        #expect { try ConfigLoader.load(data: Data(json.utf8), file: "s.json") } throws: { error in
            "\(error)".hasPrefix("s.json: \(path)")
        }
    }

    @Test func budgetsReadSizesAndAges() throws {
        let json =
            #"{ "sources": [{ "kind": "test" }], "still": {}, "storage": { "maxBytes": "1.5G", "minFree": "500MiB", "maxAge": "7d" } }"#
        let storage = try #require(try ConfigLoader.load(data: Data(json.utf8), file: "s.json").storage)
        #expect(storage == StorageConfig(maxBytes: 1_610_612_736, maxAge: 604_800, minFree: 524_288_000))
        let bare = #"{ "sources": [{ "kind": "test" }], "storage": { "maxAge": 60 } }"#
        #expect { try ConfigLoader.load(data: Data(bare.utf8), file: "s.json") } throws: {
            "\($0)".contains("needs \"record\" or \"still\"")
        }
    }

    /// Whether a deletion's reason is true: `captures take U bytes[ and the open recording may grow by R], over
    /// maxBytes M` means U + R > M; `F bytes free, under minFree M[ with R kept for the open recording to grow]` means
    /// F < M + R.
    static func reasonHolds(_ line: String) -> Bool {
        func number(after label: String) -> Int? {
            guard let range = line.range(of: label) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        let reserve = number(after: "may grow by ") ?? number(after: "with ") ?? 0
        if let used = number(after: "captures take "), let most = number(after: "over maxBytes ") {
            return used + reserve > most
        }
        if let free = number(after: "("), let least = number(after: "under minFree ") {
            return free < least + reserve
        }
        return line.contains("older than maxAge")
    }

    @Test func deletionReasonsAreReadAsComparisons() {
        #expect(Self.reasonHolds("storage: deleted /d/a.mkv (captures take 2400000 bytes, over maxBytes 1300000)"))
        #expect(!Self.reasonHolds("storage: deleted /d/a.mkv (captures take 951036 bytes, over maxBytes 1048576)"))
        #expect(
            Self.reasonHolds(
                "storage: deleted /d/a.mkv (captures take 951036 bytes and the open recording may grow by 120000, over maxBytes 1048576)"))
        #expect(!Self.reasonHolds("storage: deleted /d/a.mkv (1142784 bytes free, under minFree 1048576)"))
        #expect(
            Self.reasonHolds(
                "storage: deleted /d/a.mkv (1142784 bytes free, under minFree 1048576 with 120000 kept for the open recording to grow)"))
    }

    private static func shell(_ command: String) -> Int32 {
        (try? ChildProcess.run(["/bin/sh", "-c", command]).status) ?? -1
    }
}
