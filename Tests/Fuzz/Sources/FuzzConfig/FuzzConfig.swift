import Base
import Capture
import Config
import Dispatch
import Foundation
import FuzzSupport
import GStreamer

// The config loader (`ConfigLoader.load(data:file:overrides:)`). The input is a config file as `run` reads
// it, after any number of leading `--set KEY=VALUE` lines (the overrides, as given on the command line):
//
//     --set sources.0.pattern=snow
//     {"sources": [{"kind": "test"}]}
//
// Loading never traps. A refusal is a ConfigError naming this file, with a JSON path and a reason, on one
// line (the CLI prints it as the one line of a failure). A config that loads prints its gst-launch line, and its
// numbers go through the steps `run` takes with them (no pipeline starts): the `duration` deadline and the wait
// on it, the periodic still timer's interval and its schedule. A value that validates never traps there.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let (overrides, json) = splitOverrides(fuzzBytes(data, size))
    let config: PipelineConfig
    do {
        config = try ConfigLoader.load(data: json, file: "fuzz.json", overrides: overrides)
    } catch {
        require(error.file == "fuzz.json", "the error names \(shown(error.file)), not fuzz.json")
        require(!error.reason.isEmpty, "an error without a reason at \(shown(error.path))")
        require(isOneLine(error.description), "the error is not one line: \(shown(error.description))")
        return 0
    }
    let builder = PipelineBuilder(config: config, hasDisplay: false)
    require(!builder.launchDescription.isEmpty, "a loaded config prints no launch line")
    _ = builder.launchCommand
    let timing = SessionTiming(config)
    let now = MonotonicClock.now
    let deadline = timing.deadline(from: now)
    require(deadline >= now, "a duration that validates ends before it starts: \(deadline) < \(now)")
    // `waitUntilDone`'s wait, with a result at once: the deadline's conversion runs, nothing blocks.
    require(Condition(0).wait(until: deadline) { _ in 1 } == 1, "a wait with its result at hand did not return it")
    if let interval = timing.stillInterval {
        _ = DispatchTime.now() + interval
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + interval, repeating: interval)
        // Resumed before it is cancelled and released: libdispatch traps on releasing a suspended source.
        timer.resume()
        timer.cancel()
    }
    return 0
}

/// Leading `--set KEY=VALUE` lines, then the file's bytes.
func splitOverrides(_ bytes: [UInt8]) -> (overrides: [String], json: Data) {
    let prefix = Array("--set ".utf8)
    var overrides: [String] = []
    var start = 0
    while bytes.count - start >= prefix.count, Array(bytes[start..<start + prefix.count]) == prefix {
        let valueStart = start + prefix.count
        let end = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        overrides.append(String(decoding: bytes[valueStart..<end], as: UTF8.self))
        start = min(end + 1, bytes.count)
    }
    return (overrides, Data(bytes[start...]))
}
