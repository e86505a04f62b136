import Base
import FoundationEssentials
import GStreamer
import Glibc

/// One side of a bench row as measured: milliseconds per frame after the baseline, or why there are none.
public struct BenchmarkMeasurement: Sendable, Equatable, Codable {
    /// The variant's label, e.g. "coloreffects preset=sepia".
    public var label: String
    /// The gst-launch text between appsrc and fakesink; nil for memcpy.
    public var pipeline: String?
    /// The format pushed, e.g. "NV12".
    public var input: String
    /// "measured", "skipped" or "failed".
    public var status: String
    /// Why it was skipped or failed.
    public var reason: String?
    /// Median milliseconds per frame, baseline taken off.
    public var medianMs: Double?
    /// Half the range of the repetitions, in milliseconds per frame.
    public var spreadMs: Double?
    /// Every repetition, milliseconds per frame, baseline taken off.
    public var samplesMs: [Double]?
    /// The baseline taken off each repetition (0 for memcpy).
    public var baselineMs: Double?

    /// A measurement from an outcome; `baseline` (ms/frame) is subtracted from every repetition.
    public init(_ variant: BenchmarkVariant, outcome: BenchmarkOutcome, baseline: Double) {
        label = variant.label
        pipeline = variant.pipeline
        input = variant.input
        switch outcome {
        case let .measured(raw):
            let statistics = raw.subtracting(baseline)
            status = "measured"
            medianMs = statistics.median.rounded(places: 6)
            spreadMs = statistics.spread.rounded(places: 6)
            samplesMs = statistics.samples.map { $0.rounded(places: 6) }
            baselineMs = baseline.rounded(places: 6)
        case let .skipped(why):
            status = "skipped"
            reason = why
        case let .failed(why):
            status = "failed"
            reason = why
        }
    }

    /// Whether there are numbers.
    public var isMeasured: Bool { status == "measured" }
}

/// A row of the table at one size.
public struct BenchmarkRow: Sendable, Equatable, Codable {
    /// The case's stable key, e.g. "sepia".
    public var id: String
    /// The case's title, e.g. "sepia vs coloreffects".
    public var title: String
    /// The size's name, e.g. "1080p".
    public var size: String
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The SwiftCam column (for scaling rows: all cores).
    public var swiftcam: BenchmarkMeasurement?
    /// The C column (for scaling rows: one thread).
    public var c: BenchmarkMeasurement?
    /// C time over SwiftCam time: how many times faster SwiftCam is.
    public var speedUp: Double?
    /// The SwiftCam time (or the C time in rows without a SwiftCam side) over a memcpy of the same frame.
    public var timesMemcpy: Double?
    /// Why a side has no numbers: an element is not installed.
    public var skipped: String?
    /// Why a side has no numbers: it ran and broke.
    public var failed: String?
    /// For a row about memory (the pre-roll ring): the most bytes held.
    public var heldBytes: Int?

    /// Assembles a row; `memcpy` is the median ms/frame of copying one frame of the row's format.
    public init(
        _ benchCase: BenchmarkCase, size: BenchmarkSize, swiftcam: BenchmarkMeasurement?,
        c: BenchmarkMeasurement?, memcpy: Double?
    ) {
        id = benchCase.id
        title = benchCase.title
        self.size = size.name
        width = size.width
        height = size.height
        self.swiftcam = swiftcam
        self.c = c
        if let fast = swiftcam?.medianMs, let slow = c?.medianMs, fast > 0 {
            speedUp = (slow / fast).rounded(places: 3)
        }
        if let time = (swiftcam ?? c)?.medianMs, let memcpy, memcpy > 0 {
            timesMemcpy = (time / memcpy).rounded(places: 3)
        }
        let sides = [swiftcam, c].compactMap { $0 }
        skipped = sides.first { $0.status == "skipped" }?.reason
        failed = sides.first { $0.status == "failed" }.map { "\($0.label): \($0.reason ?? "failed")" }
    }
}

/// The cost of `appsrc ! identity ! fakesink` that every pipeline variant has had taken off.
public struct BenchmarkBaseline: Sendable, Equatable, Codable {
    /// The size's name.
    public var size: String
    /// The format pushed.
    public var input: String
    /// Median milliseconds per frame.
    public var medianMs: Double
    /// Half the range of the repetitions.
    public var spreadMs: Double

    /// The baseline of `input` frames at `size`.
    public init(size: BenchmarkSize, input: String, statistics: BenchmarkStatistics) {
        self.size = size.name
        self.input = input
        medianMs = statistics.median.rounded(places: 6)
        spreadMs = statistics.spread.rounded(places: 6)
    }
}

/// Everything one `swiftcam bench` run measured: what `--json` writes and the table prints.
public struct BenchmarkReport: Sendable, Equatable, Codable {
    /// UTC day of the run, `date -u +%F`.
    public var date: String
    /// Where it ran.
    public var machine: BenchmarkMachine
    /// "release" or "debug": debug numbers say nothing about speed.
    public var build: String
    /// Frames timed per repetition.
    public var frames: Int
    /// Repetitions per variant.
    public var repetitions: Int
    /// The rows, size by size in case order.
    public var rows: [BenchmarkRow]
    /// The identity baselines subtracted.
    public var baselines: [BenchmarkBaseline]

    /// A report; `build` is this binary's own configuration.
    public init(
        date: String, machine: BenchmarkMachine, frames: Int, repetitions: Int,
        rows: [BenchmarkRow], baselines: [BenchmarkBaseline]
    ) {
        self.date = date
        self.machine = machine
        build = Self.isReleaseBuild ? "release" : "debug"
        self.frames = frames
        self.repetitions = repetitions
        self.rows = rows
        self.baselines = baselines
    }

    /// Whether this code was compiled optimized (`swift build -c release`).
    public static var isReleaseBuild: Bool {
        #if DEBUG
        false
        #else
        true
        #endif
    }

    /// Today in UTC as YYYY-MM-DD. Calls `time` and `gmtime_r`.
    public static var today: String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    /// The report as pretty-printed JSON with sorted keys.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Reads a report written by `json()`.
    public static func decode(json text: String) throws -> BenchmarkReport {
        try JSONDecoder().decode(BenchmarkReport.self, from: Data(text.utf8))
    }

    /// Writes the JSON to `path` whole or not at all: a temporary file beside it, renamed over it.
    public func writeJSON(to path: String) throws {
        let text = try json()
        let temporary = path + ".tmp-\(getpid())"
        guard let file = fopen(temporary, "w") else { throw BenchmarkError.cannotWrite(path: path, reason: errnoText) }
        let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        let closed = fclose(file)
        guard written == text.utf8.count, closed == 0 else {
            let reason = errnoText
            unlink(temporary)
            throw BenchmarkError.cannotWrite(path: path, reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = errnoText
            unlink(temporary)
            throw BenchmarkError.cannotWrite(path: path, reason: reason)
        }
    }

    /// Checks before a run that `writeJSON(to:)` will be able to write `path`: its temporary file beside it is
    /// created and removed, and `path` is not a directory. So a bad `--json` fails at once, not after the benchmark.
    public static func checkWritable(_ path: String) throws {
        if let reason = FileCreation.problem(replacing: path) { throw BenchmarkError.cannotWrite(path: path, reason: reason) }
    }

    private var errnoText: String { SystemError.message(errno) }
}

/// What `swiftcam bench` can fail with besides GStreamer itself.
public enum BenchmarkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON file could not be written.
    case cannotWrite(path: String, reason: String)

    /// One sentence a user can act on.
    public var description: String {
        switch self {
        case let .cannotWrite(path, reason): "cannot write the bench results to \(path): \(reason)"
        }
    }
}

extension Double {
    func rounded(places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
