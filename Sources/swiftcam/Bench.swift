import Benchmark
import Glibc

/// `swiftcam bench`: SwiftCam's filters against GStreamer's C elements, measured in one run.
enum Bench {
    static let usage = """
        usage: swiftcam bench [--quick] [--paths] [--json FILE] [--repetitions N] [--frames N] [--sizes 1080p,720p] [--cases ID,...]

        Times SwiftCam's swiftfilter against GStreamer's own C elements on identical pre-made frames pushed
        through appsrc, each case as 'appsrc ! CASE ! fakesink sync=false' with the identity baseline taken off,
        and prints ms/frame (median ± half range), speed-up and cost relative to a memcpy of the frame. The
        repetitions take turns (one of every variant, then the next), so the machine's slow spells fall on all alike.
        Elements that are not installed are reported as skipped. Build with 'swift build -c release' first.

        options:
          --quick            few frames and repetitions: under a minute, for CI (default: 20 frames x 15)
          --paths            instead of the C elements: the main filters on every SIMD path this machine has
                             (portable, SSE2, AVX2, AVX-512), run in this process, each against SSE2, sepia against libyuv
          --json FILE        also write the results as JSON to FILE
          --repetitions N    repetitions per case (median and spread are over these)
          --frames N         frames timed per repetition
          --sizes LIST       comma-separated: 1080p, 720p, 480p or WIDTHxHEIGHT (default: 1080p,720p)
          --cases LIST       only these case ids (as in the JSON), e.g. sepia,chain3 (for profiling one kernel)
        """

    static func run(_ arguments: [String]) -> Int32 {
        var configuration = BenchmarkConfiguration.full
        var jsonPath: String?
        var frames: Int?, repetitions: Int?, sizes: [BenchmarkSize]?, caseIDs: [String]?
        var index = 0
        func value(_ option: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let option = arguments[index]
            switch option {
            case "--help", "-h":
                print(usage)
                return ExitCode.ok
            case "--quick":
                let cases = configuration.cases
                configuration = .quick
                configuration.cases = cases
            case "--paths":
                configuration.cases = BenchmarkCase.paths()
            case "--json":
                guard let path = value(option), !path.isEmpty else { return usageError("--json needs a file name") }
                jsonPath = path
            case "--repetitions", "--frames":
                guard let text = value(option), let count = Int(text), (1...10_000).contains(count) else {
                    return usageError("\(option) needs a whole number from 1 to 10000")
                }
                if option == "--frames" { frames = count } else { repetitions = count }
            case "--sizes":
                guard let text = value(option) else { return usageError("--sizes needs a list such as 1080p,720p") }
                var parsed: [BenchmarkSize] = []
                for name in text.split(separator: ",") {
                    guard let size = BenchmarkSize(parsing: String(name)) else {
                        return usageError("unknown size '\(name)'; use 1080p, 720p, 480p or WIDTHxHEIGHT")
                    }
                    parsed.append(size)
                }
                guard !parsed.isEmpty else { return usageError("--sizes needs at least one size") }
                sizes = parsed
            case "--cases":
                guard let text = value(option) else { return usageError("--cases needs a list such as sepia,chain3") }
                let known = configuration.cases.map(\.id)
                let wanted = text.split(separator: ",").map(String.init)
                if let unknown = wanted.first(where: { !known.contains($0) }) {
                    return usageError("unknown case '\(unknown)'; cases: \(known.joined(separator: ","))")
                }
                guard !wanted.isEmpty else { return usageError("--cases needs at least one case id") }
                caseIDs = wanted
            default:
                return usageError("unknown option '\(option)'")
            }
            index += 1
        }
        if let frames { configuration.frames = frames }
        if let repetitions { configuration.repetitions = repetitions }
        if let sizes { configuration.sizes = sizes }
        if let caseIDs { configuration.cases = configuration.cases.filter { caseIDs.contains($0.id) } }
        if !BenchmarkReport.isReleaseBuild {
            printError("warning: this is a debug build; its numbers say nothing about speed (use swift build -c release)")
        }
        if let jsonPath {
            // Before the run, not after it: a path that cannot be written costs a moment, not the whole benchmark.
            do { try BenchmarkReport.checkWritable(jsonPath) } catch {
                printError("\(error)")
                return ExitCode.cantCreate
            }
        }
        let progress = ProgressLine()
        let report: BenchmarkReport
        do {
            report = try BenchmarkRunner(configuration: configuration).run { step in
                progress.show("bench [\(step.done + 1)/\(step.total)] \(step.size.name) \(step.label)")
            }
        } catch {
            progress.finish()
            printError("bench: \(error)")
            return ExitCode.unavailable
        }
        progress.finish()
        print(report.table(), terminator: "")
        if let jsonPath {
            do {
                try report.writeJSON(to: jsonPath)
            } catch {
                printError("\(error)")
                return ExitCode.cantCreate
            }
        }
        if let broken = report.rows.first(where: { $0.failed != nil }) {
            printError("bench: \(broken.size) \(broken.id) failed: \(broken.failed ?? "")")
            return ExitCode.software
        }
        return ExitCode.ok
    }

    private static func usageError(_ reason: String) -> Int32 {
        printError("bench: \(reason); see 'swiftcam bench --help'")
        return ExitCode.usage
    }
}

/// One progress line on stderr: rewritten in place on a terminal, a line per step otherwise.
final class ProgressLine {
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var width = 0

    func show(_ text: String) {
        let line = String(text.prefix(110))
        if isTerminal {
            write("\r" + line + String(repeating: " ", count: max(width - line.count, 0)))
            width = line.count
        } else {
            write(line + "\n")
        }
    }

    func finish() {
        if isTerminal, width > 0 { write("\r" + String(repeating: " ", count: width) + "\r") }
        width = 0
    }

    private func write(_ text: String) {
        _ = text.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}
