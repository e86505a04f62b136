import Base
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Capture

@Suite("Segments")
struct SegmentTests {
    /// `record.segment` cuts one recording into files at key frames: each file decodes alone, together they hold every
    /// frame the session counted into the recording, once, and (in Matroska) their timestamps run on across each cut.
    @Test(arguments: ["matroska", "mp4"])
    func aSegmentedRecordingCutsAtKeyFramesIntoFilesThatEachPlay(container: String) throws {
        // H.264 makes a key frame every second here unless asked: cuts at 1.5 s must ask for one. MJPEG (every frame a
        // key frame) into Matroska where no H.264 encoder is installed; MP4 holds only H.264.
        let encoder = Element.factoryExists("x264enc") ? "x264enc" : "mjpeg"
        guard container == "matroska" || encoder == "x264enc" else {
            print("skipped: MP4 segments need x264enc (Debian package gstreamer1.0-plugins-ugly)")
            return
        }
        let (session, folder) = try scratchSession(
            """
            { "sources": [{ "kind": "test" }], "caps": { "width": 160, "height": 120, "framerate": "30/1" }, "preview": "none",
              "record": { "encoder": "\(encoder)", "container": "\(container)", "directory": "DIR", "segment": 1.5 } }
            """, name: "seg")
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start()
        defer { session.stop() }
        let first = try session.startRecording()
        // 8.5 seconds of frames: five cuts.
        #expect(session.waitForFrames(255, timeout: 600) >= 255)
        // The segment being written, as `kill -9` would leave it now: it plays up to its last cluster or fragment.
        let open = try #require(session.recordingPath)
        let snapshot = folder.path + "-open." + (open as NSString).pathExtension
        try FileManager.default.copyItem(atPath: open, toPath: snapshot)
        defer { try? FileManager.default.removeItem(atPath: snapshot) }
        let unfinished = try DecodedSegment(snapshot)
        #expect(unfinished.endedCleanly && unfinished.frames > 0, "the open segment \(open) as a crash leaves it: \(unfinished)")
        let last = try session.stopRecording()
        let stats = session.stats

        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { "\(folder.path)/\($0)" }
        #expect(files.count >= 5, "\(files)")
        #expect(files.first == first && files.last == last, "files \(files), first \(first), last \(last)")
        #expect(stats.segmentsWritten == files.count, "stats count \(stats.segmentsWritten ?? -1) files, \(files.count) on disk")
        var frames = 0
        var previous: DecodedSegment?
        for file in files {
            let segment = try DecodedSegment(file)
            #expect(segment.endedCleanly && segment.frames > 0, "\(file): \(segment)")
            // Segments of 1.5 s: a cut waits for the first key frame after it, asked for at the cut (the next one
            // the encoder makes by itself would come at 2 s).
            if let start = segment.start, let last = segment.last, file != files.last {
                #expect(last - start > 1_300_000_000 && last - start < 1_700_000_000, "\(file): \(segment)")
            }
            if container == "mp4" {
                // An MP4 file's clock starts at 0 in every file (its time of day is in its name).
                #expect(segment.start == 0, "\(file): \(segment)")
            } else if let previous, let last = previous.last, let start = segment.start {
                // The next file's first frame follows the last one's by one frame (33 ms at 30 fps): no gap (a lost
                // frame), no overlap (a repeated one). A loaded machine may drop frames before the recording (the
                // branch's leaky queue, counted): then only the order is certain.
                let step = Int64(start) - Int64(last)
                #expect(
                    step > 16_000_000 && (step < 50_000_000 || stats.queueDrops > 0),
                    "\(file) starts at \(start) ns, the last frame before it is at \(last) ns")
            } else if previous == nil {
                #expect(segment.start == 0, "the first file starts at 0: \(segment)")
            }
            frames += segment.frames
            previous = segment
        }
        #expect(
            frames == stats.recordedFrames, "\(frames) frames decode from \(files.count) files, stats counted \(stats.recordedFrames ?? -1)"
        )
        #expect(stats.recordingBytes == files.reduce(0) { $0 + SegmentFiles.size(of: $1) })
    }

    /// Segment names are created exclusively: a name another host already holds is never written into, and the
    /// open files are the one being written and the one before it.
    @Test func aSegmentNameTakenByAnotherHostGetsTheNext() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("segnames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stamp = Locked("20260101-120000.000")
        let files = SegmentFiles(
            first: "\(folder.path)/cam-first.mkv", directory: folder.path, base: "cam", extension: "mkv",
            clock: { stamp.withLock { $0 } }, onCut: {}, onWarning: { Issue.record("\($0)") })
        #expect(files.name(fragment: 0) == "\(folder.path)/cam-first.mkv")
        let theirs = "\(folder.path)/cam-20260101-120000.000.mkv"
        #expect(FileManager.default.createFile(atPath: theirs, contents: Data("theirs".utf8)))
        #expect(files.name(fragment: 1) == "\(folder.path)/cam-20260101-120000.000-2.mkv")
        #expect(try String(contentsOfFile: theirs, encoding: .utf8) == "theirs")
        stamp.withLock { $0 = "20260101-120001.000" }
        #expect(files.name(fragment: 2) == "\(folder.path)/cam-20260101-120001.000.mkv")
        #expect(files.openFiles == ["\(folder.path)/cam-20260101-120000.000-2.mkv", "\(folder.path)/cam-20260101-120001.000.mkv"])
        // Names sort by time.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.last == "cam-20260101-120001.000.mkv", "\(names)")
    }

    /// The gallery (`swiftcam gallery`, the page) lists a recording's segments by time, newest first, stills among
    /// them; segments finished in the same instant (a coarse clock) by their names, which carry their times.
    @Test func theGalleryListsSegmentsByTime() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = [
            ("cam-20260101-120000.000.mkv", 30), ("cam-20260101-120000-0001.jpg", 20), ("cam-20260101-120001.500.mkv", 20),
            ("cam-20260101-120003.000.mkv", 10), ("cam-20260101-120001.000.mkv", 20)
        ]
        let now = Date().timeIntervalSince1970
        for (name, age) in files {
            let path = folder.appendingPathComponent(name).path
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
            var times = [timeval(tv_sec: Int(now) - age, tv_usec: 0), timeval(tv_sec: Int(now) - age, tv_usec: 0)]
            #expect(utimes(path, &times) == 0)
        }
        let listed = Gallery.items(in: [folder.path]).map { ($0.path as NSString).lastPathComponent }
        #expect(
            listed == [
                "cam-20260101-120003.000.mkv", "cam-20260101-120001.500.mkv", "cam-20260101-120001.000.mkv",
                "cam-20260101-120000-0001.jpg", "cam-20260101-120000.000.mkv"
            ])
    }
}

/// One recording file decoded alone to its end: frames, the first and the last frame's time.
struct DecodedSegment: CustomStringConvertible {
    var frames = 0
    var start: UInt64?
    var last: UInt64?
    var endedCleanly = false

    init(_ path: String) throws {
        let decode = try Pipeline.parse("filesrc location=\"\(path)\" ! decodebin ! appsink name=out sync=false")
        guard let sink = decode.element(named: "out", as: AppSink.self) else { return }
        try decode.setState(.playing)
        defer { try? decode.setState(.null) }
        while let sample = sink.pullSample(timeout: 10) {
            frames += 1
            guard let buffer = sample.buffer, let pts = buffer.pts else { continue }
            if start == nil { start = pts }
            last = pts
        }
        endedCleanly = sink.isEndOfStream
    }

    var description: String {
        "\(frames) frames from \(start.map(String.init) ?? "?") to \(last.map(String.init) ?? "?") ns\(endedCleanly ? "" : ", not ended cleanly")"
    }
}
