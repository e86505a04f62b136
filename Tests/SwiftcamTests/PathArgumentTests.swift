import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// Paths a user names: each one that cannot be used is said at once, in one line naming it, with the documented exit
/// code; nothing is created outside the folder asked for, and a file SwiftCam cannot read is named, not its decoder.
@Suite("Paths from the user")
struct PathArgumentTests {
    /// `run --dot /nonexistent/y.dot` ran the whole session and exited 0; `gallery /nonexistent` listed nothing, exit 0;
    /// `bench --json /proc/version` said "No such file or directory" of a file that exists.
    @Test(
        arguments: [
            (
                ["run", "demo", "--dot", "/nonexistent-swiftcam/y.dot", "--no-control"], 73,
                "--dot: cannot write the graph to /nonexistent-swiftcam/y.dot"
            ),
            (["gallery", "/nonexistent-swiftcam"], 66, "gallery: no such folder /nonexistent-swiftcam"),
            (["bench", "--quick", "--json", "/proc/version"], 73, "/proc takes no new files")
        ] as [([String], Int32, String)])
    func aPathThatCannotBeUsedIsSaidFirst(arguments: [String], status: Int32, says: String) throws {
        let result = try SwiftcamRun().run(arguments, timeout: 120)
        #expect(result.status == status, "\(result.status): \(result.err)")
        #expect(result.err.contains(says), "\(result.err)")
        // One line for it (a debug build's bench also warns that its numbers say nothing of speed).
        #expect(result.err.split(separator: "\n").filter { !$0.contains("debug build") }.count == 1, "\(result.err)")
        #expect(!result.out.contains("running ") && !result.err.contains("bench ["), "the work ran: \(result.out)")
    }

    /// A file that exists is written in place: `--dot /dev/null` is fine, as any writable file is.
    @Test func aWritableFileThatExistsIsTaken() throws {
        let result = try SwiftcamRun().run(["run", "demo", "--dot", "/dev/null", "--frames", "3", "--no-control", "--quiet"], timeout: 60)
        #expect(result.status == 0, "\(result.err)")
    }

    /// `snap /nonexistent/dir` made /nonexistent and /nonexistent/dir at the root; `snap /proc` said "No such file or
    /// directory"; `ctl snap "dir with space"` was a usage error. A client's folder is made only as its last part.
    @Test func snapFoldersFromAClient() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        let socket = try run.socket(for: "switch")
        let root = "/nonexistent-swiftcam-\(UUID().uuidString.prefix(8))"
        let deep = try run.ctl("snap \(root)/dir", socket: socket)
        #expect(deep == .error("cannot write \(root)/dir: no such folder \(root) (only the last folder of the path is made)"), "\(deep)")
        #expect(access(root, F_OK) != 0, "\(root) was created")
        let proc = try run.ctl("snap /proc", socket: socket)
        #expect(proc.description.contains("/proc takes no new files"), "\(proc)")
        // With spaces, through the command line client as a user types it.
        let spaced = run.directory.appendingPathComponent("dir with space").path
        let ctl = try SwiftcamRun(directory: run.directory).run(["ctl", "switch", "snap", spaced])
        #expect(ctl.status == 0, "\(ctl.err)")
        let written = try FileManager.default.contentsOfDirectory(atPath: spaced)
        #expect(written.count == 1 && written[0].hasPrefix("switch-"), "\(written)")
        #expect(run.terminate() == 74, "the failed stills count for the exit code")
    }

    /// A `file` source that is not a video said "decodebin0: This appears to be a text file" (or "typefind: …"):
    /// the failure names the file. With --verbose into a file, GStreamer's lines come without colour codes.
    @Test func aFileThatIsNotAVideoIsNamed() throws {
        let run = try SwiftcamRun()
        let text = run.directory.appendingPathComponent("notes.mkv")
        try Data("not a video\n".utf8).write(to: text)
        let config = run.directory.appendingPathComponent("text.json")
        try Data(#"{"sources": [{"kind": "file", "path": "notes.mkv"}], "preview": "none"}"#.utf8).write(to: config)
        let result = try run.run(["run", config.path, "--no-control", "--verbose"], timeout: 60)
        #expect(result.status != 0 && result.status < 128, "\(result.status)")
        let status = try #require(result.err.split(separator: "\n").first { $0.hasPrefix("swiftcam: status ") }, "\(result.err)")
        #expect(status == "swiftcam: status failed: file notes.mkv: is not a video file GStreamer can play (its type is not one it knows)")
        #expect(!result.err.contains("\u{1B}"), "colour codes in a file: \(result.err.debugDescription)")
        #expect(result.err.contains("WARN"), "--verbose showed GStreamer's own lines: \(result.err)")
    }
}
