import Foundation
import Glibc
import Testing

/// Under systemd, standard error is the journal's stream (`JOURNAL_STREAM` names its device and inode): each line
/// then starts with its priority, so the journal files failures as errors. Anywhere else the lines are as they were.
@Suite struct JournalTests {
    @Test func aFailureCarriesTheErrorPriorityOnlyOnTheJournalsStream() throws {
        let journal = try SwiftcamRun()
        var info = stat()
        try #require(fstat(journal.errors.fileHandleForWriting.fileDescriptor, &info) == 0)
        journal.extraEnvironment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        let failed = try journal.run(["run", "no-such-config-for-the-journal"])
        #expect(failed.status == 66)
        #expect(failed.err.hasPrefix("<3>swiftcam: "), "\(failed.err)")
        #expect(!failed.err.contains("\n<3>") && failed.err.split(separator: "\n").count == 1, "\(failed.err)")

        let terminal = try SwiftcamRun()
        let plain = try terminal.run(["run", "no-such-config-for-the-journal"])
        #expect(plain.err.hasPrefix("swiftcam: "), "\(plain.err)")

        // Another stream's numbers (stdout's pipe is not stderr's): nothing added.
        let other = try SwiftcamRun()
        try #require(fstat(other.output.fileHandleForWriting.fileDescriptor, &info) == 0)
        other.extraEnvironment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        let elsewhere = try other.run(["run", "no-such-config-for-the-journal"])
        #expect(elsewhere.err.hasPrefix("swiftcam: "), "\(elsewhere.err)")
    }
}
