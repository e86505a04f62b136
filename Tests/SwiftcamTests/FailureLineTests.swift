import Foundation
import Testing

/// What `swiftcam run` prints when its graph fails: one line in words; GStreamer's own text only with `--verbose`.
@Suite struct FailureLineTests {
    /// A graph that links but cannot negotiate (a colour JPEG decoded into grey): GStreamer posts "Internal data stream
    /// error." with "streaming stopped, reason not-negotiated (-4)"; `run` says what happened in one line, and
    /// `--verbose` adds GStreamer's words for whoever debugs it.
    @Test func aFailedRunIsOneLineAndVerboseAddsGStreamersText() throws {
        let harness = try SwiftcamRun()
        let config = harness.directory.appendingPathComponent("refused.json").path
        try Data(
            """
            { "launch": "videotestsrc name=source0 ! video/x-raw,width=64,height=48 ! jpegenc ! jpegdec ! video/x-raw,format=GRAY8 ! fakesink" }
            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        let plain = try harness.run(["run", config, "--frames", "5", "--no-control", "--quiet"])
        let lines = plain.err.split(separator: "\n")
        #expect(plain.status == 70, "\(plain)")
        #expect(lines == ["swiftcam: status failed: source0: could not agree on a video format with the elements next to it"], "\(lines)")
        for text in ["poll error", "gstbasesrc.c", "reason not-negotiated", "Internal data stream error"] {
            #expect(!plain.err.contains(text), "\(plain.err)")
        }

        let verbose = try SwiftcamRun(directory: harness.directory).run([
            "run", config, "--frames", "5", "--no-control", "--quiet", "--verbose"
        ])
        #expect(verbose.status == 70)
        #expect(verbose.err.contains("reason not-negotiated") && verbose.err.contains("Internal data stream error"), "\(verbose.err)")
        #expect(verbose.err.contains("swiftcam: status failed: source0: could not agree on a video format"), "\(verbose.err)")
    }
}
