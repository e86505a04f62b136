import Capture
import Foundation
import Glibc
import Testing

/// What the CLI prints and exits with where issue 27 found it wrong: JSON for programs, text from files escaped
/// before it reaches a terminal, outputs checked before the work, failures counted where they are told.
@Suite("CLI output and exits")
struct ExitAndOutputTests {
    /// `ctl NAME stats --json` printed `ok {…}`, which `jq` refuses: with --json the reply is the JSON alone.
    @Test func ctlStatsJSONIsBareJSON() throws {
        let run = try SwiftcamRun()
        try run.start(["run", "switch", "--quiet"])
        _ = try run.socket(for: "switch")
        let ctl = try SwiftcamRun(directory: run.directory).run(["ctl", "switch", "stats", "--json"])
        let plain = try SwiftcamRun(directory: run.directory).run(["ctl", "switch", "stats"])
        #expect(run.terminate() == 0)
        #expect(ctl.status == 0, "\(ctl.err)")
        let object = try JSONSerialization.jsonObject(with: Data(ctl.out.utf8)) as? [String: Any]
        #expect(object?["status"] != nil, "not bare JSON: \(ctl.out)")
        #expect(plain.out.hasPrefix("ok "), "without --json the reply line stays: \(plain.out)")
    }

    /// `bench --json /proc/nope.json` ran the whole benchmark, then failed: the path is checked first.
    @Test func benchChecksItsJSONPathBeforeRunning() throws {
        let result = try SwiftcamRun().run(["bench", "--quick", "--json", "/proc/nope.json"], timeout: 300)
        #expect(result.status == 73, "\(result.err)")
        #expect(result.err.contains("cannot write the bench results to /proc/nope.json"), "\(result.err)")
        #expect(!result.err.contains("bench ["), "the benchmark ran: \(result.err)")
        #expect(result.out.isEmpty, "a table was printed: \(result.out)")
    }
}
