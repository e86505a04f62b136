import Foundation
import Glibc
import TestSupport
import Testing

/// Under systemd, standard error is the journal's stream (`JOURNAL_STREAM` names its device and inode): each line
/// then starts with its priority, so the journal files failures as errors. Anywhere else the lines are as they were.
@Suite struct JournalTests {
    @Test func aFailureCarriesTheErrorPriorityOnlyOnTheJournalsStream() throws {
        let journal = try SwiftcamRun()
        journal.journalStream = .errors
        let failed = try journal.run(["run", "no-such-config-for-the-journal"])
        #expect(failed.status == 66)
        #expect(failed.err.hasPrefix("<3>swiftcam: "), "\(failed.err)")
        #expect(!failed.err.contains("\n<3>") && failed.err.split(separator: "\n").count == 1, "\(failed.err)")

        let terminal = try SwiftcamRun()
        let plain = try terminal.run(["run", "no-such-config-for-the-journal"])
        #expect(plain.err.hasPrefix("swiftcam: "), "\(plain.err)")

        // Another stream's numbers (stdout's pipe is not stderr's): nothing added.
        let other = try SwiftcamRun()
        other.journalStream = .output
        let elsewhere = try other.run(["run", "no-such-config-for-the-journal"])
        #expect(elsewhere.err.hasPrefix("swiftcam: "), "\(elsewhere.err)")
    }
}
