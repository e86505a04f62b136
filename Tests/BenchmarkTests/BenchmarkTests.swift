import Filters
import GStreamer
import SwiftFilterElement
import Testing

@testable import Benchmark

/// `swiftcam bench`'s pieces: statistics, formatting, JSON, skipping, and one tiny real run.
/// No test asserts a wall-clock time: only that numbers exist and are positive.
@Suite("bench")
struct BenchmarkTests {
    init() { SwiftFilterElement.register() }

    // MARK: statistics

    @Test func medianOfOddAndEvenCounts() throws {
        let odd = try #require(BenchmarkStatistics(samples: [5, 1, 3]))
        #expect(odd.median == 3)
        #expect(odd.spread == 2)
        let even = try #require(BenchmarkStatistics(samples: [4, 1, 3, 2]))
        #expect(even.median == 2.5)
        #expect(even.spread == 1.5)
        let single = try #require(BenchmarkStatistics(samples: [7]))
        #expect(single.median == 7 && single.spread == 0)
        #expect(single.samples == [7])
    }

    @Test func noOrBrokenSamplesGiveNoStatistics() {
        #expect(BenchmarkStatistics(samples: []) == nil)
        #expect(BenchmarkStatistics(samples: [1, .nan]) == nil)
        #expect(BenchmarkStatistics(samples: [.infinity]) == nil)
    }

    @Test func baselineIsTakenOffEachRepetitionNeverBelowZero() throws {
        let raw = try #require(BenchmarkStatistics(samples: [3, 5, 0.5]))
        let net = raw.subtracting(1)
        #expect(net.samples == [2, 4, 0])
        #expect(net.median == 2)
        #expect(net.spread == 2)
    }

    // MARK: cases

    @Test func factoriesSkipCapsAndQuotedChains() {
        let variant = BenchmarkVariant(
            "x", input: "NV12",
            pipeline:
                "videoconvert ! video/x-raw,format=RGBA ! swiftfilter n-threads=1 chain=\"sepia | vignette ! x\" ! videoconvert")
        #expect(variant.factories == ["videoconvert", "swiftfilter"])
        #expect(BenchmarkVariant.memcpy("RGBA").factories.isEmpty)
    }

    @Test func standardCasesCoverTheIssue() {
        let cases = BenchmarkCase.standard(cores: 2)
        let ids = Set(cases.map(\.id))
        for id in [
            "sepia", "colorcontrols", "vignette", "blur", "blur-conversion", "edges", "chain3", "chain6",
            "nv12-roundtrip", "nv12-c-chain", "memcpy-rgba", "scaling-chain3", "scaling-blur", "scaling-edges",
            "scaling-zoom", "scaling-pixelate", "scaling-sharpen", "scaling-mirror", "scaling-nv12-chain3", "scaling-memcpy"
        ] {
            #expect(ids.contains(id), "missing case \(id)")
        }
        #expect(ids.count == cases.count, "case ids are unique")
        let nv12 = cases.filter { $0.id.hasPrefix("nv12") }.flatMap(\.variants)
        #expect(nv12.allSatisfy { $0.input == "NV12" })
    }

    // MARK: skipping

    @Test func missingElementIsSkippedNotFailed() throws {
        let frames = try BenchmarkFrames.rgba(width: 32, height: 16, count: 1)
        let variant = BenchmarkVariant("nope", input: "RGBA", pipeline: "videoconvert ! swiftcam-no-such-element-xyz")
        #expect(BenchmarkRunner.missingElement(variant)?.contains("swiftcam-no-such-element-xyz not installed") == true)
        let runner = BenchmarkRunner(
            configuration: BenchmarkConfiguration(
                sizes: [BenchmarkSize(name: "tiny", width: 32, height: 16)], frames: 1, repetitions: 1, warmUpFrames: 0, cases: []))
        guard case let .skipped(reason) = runner.measure(variant, frames: frames) else {
            Issue.record("a missing element must give .skipped")
            return
        }
        #expect(reason.contains("not installed"))
        let row = BenchmarkRow(
            BenchmarkCase(id: "nope", title: "nope", subject: .memcpy("RGBA"), reference: variant),
            size: .hd720, swiftcam: nil,
            c: BenchmarkMeasurement(variant, outcome: .skipped(reason), baseline: 0), memcpy: 1)
        #expect(row.skipped == reason)
        #expect(row.failed == nil)
        #expect(row.speedUp == nil)
    }

    // MARK: formatting

    static func sampleReport() throws -> BenchmarkReport {
        let size = BenchmarkSize.hd1080
        let swift = BenchmarkVariant.swiftfilter("sepia", input: "RGBA")
        let c = BenchmarkVariant("coloreffects preset=sepia", input: "RGBA", pipeline: "coloreffects preset=sepia")
        let frei0r = BenchmarkVariant("frei0r-filter-vignette", input: "RGBA", pipeline: "frei0r-filter-vignette")
        let fast = try #require(BenchmarkStatistics(samples: [1.5, 1.0, 2.0]))
        let slow = try #require(BenchmarkStatistics(samples: [12.5, 13.5, 13.0]))
        return BenchmarkReport(
            date: "2025-01-02",
            machine: BenchmarkMachine(
                cores: 2, cpu: "Test CPU", gstreamer: "GStreamer 1.22.0",
                simdPath: "AVX2", availablePaths: ["portable", "SSE2", "AVX2"]),
            frames: 10, repetitions: 3,
            rows: [
                BenchmarkRow(
                    BenchmarkCase(id: "sepia", title: "sepia vs coloreffects", subject: swift, reference: c), size: size,
                    swiftcam: BenchmarkMeasurement(swift, outcome: .measured(fast), baseline: 0.5),
                    c: BenchmarkMeasurement(c, outcome: .measured(slow), baseline: 0.5), memcpy: 0.25),
                BenchmarkRow(
                    BenchmarkCase(id: "vignette", title: "vignette vs frei0r vignette", subject: swift, reference: frei0r),
                    size: size, swiftcam: BenchmarkMeasurement(swift, outcome: .measured(fast), baseline: 0.5),
                    c: BenchmarkMeasurement(frei0r, outcome: .skipped("frei0r-filter-vignette not installed"), baseline: 0),
                    memcpy: 0.25)
            ], baselines: [BenchmarkBaseline(size: size, input: "RGBA", statistics: fast)])
    }

    @Test func rowComputesSpeedUpAndMemcpyRatio() throws {
        let row = try Self.sampleReport().rows[0]
        #expect(row.swiftcam?.medianMs == 1.0)
        #expect(row.c?.medianMs == 12.5)
        #expect(row.speedUp == 12.5)
        #expect(row.timesMemcpy == 4)
        #expect(row.skipped == nil)
    }

    @Test func tableShowsEveryColumnAndSkippedReasons() throws {
        let table = try Self.sampleReport().table()
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("2025-01-02") && lines[0].contains("2 cores") && lines[0].contains("Test CPU"))
        let header = try #require(lines.first { $0.hasPrefix("1080p (1920x1080)") })
        #expect(header.contains("SwiftCam ms") && header.contains("C ms") && header.contains("speed-up") && header.contains("x memcpy"))
        let sepia = try #require(lines.first { $0.hasPrefix("sepia vs coloreffects") })
        #expect(sepia.contains("1.00 ±0.500"))
        #expect(sepia.contains("12.5 ±0.500"))
        #expect(sepia.contains("12.5x"))
        #expect(sepia.hasSuffix("4.00"))
        let vignette = try #require(lines.first { $0.hasPrefix("vignette vs frei0r vignette") })
        #expect(vignette.contains("skipped"))
        #expect(table.contains("1080p vignette: skipped: frei0r-filter-vignette not installed"))
    }

    @Test(arguments: [
        (0.1234, "0.123"), (1.234, "1.23"), (12.34, "12.3"), (123.4, "123"), (0, "0.000"), (9.999, "10.00"),
        (-1.5, "-1.50")
    ])
    func numbersKeepThreeSignificantDigits(value: Double, text: String) {
        #expect(BenchmarkReport.number(value) == text)
    }

    @Test func jsonRoundTripsAndCarriesSkippedReasons() throws {
        let report = try Self.sampleReport()
        let text = try report.json()
        #expect(text.contains("\"speedUp\" : 12.5"))
        #expect(text.contains("\"skipped\" : \"frei0r-filter-vignette not installed\""))
        #expect(text.contains("\"medianMs\" : 1"))
        let decoded = try BenchmarkReport.decode(json: text)
        #expect(decoded == report)
    }

    /// scripts/bench-doc.py prints the machine line from these fields; a report written without them still reads.
    @Test func jsonCarriesTheSIMDPathAndOlderReportsStillRead() throws {
        let report = try Self.sampleReport()
        let text = try report.json()
        #expect(text.contains("\"simdPath\" : \"AVX2\""))
        #expect(text.contains("\"availablePaths\" : ["))
        var older = report
        older.machine.simdPath = nil
        older.machine.availablePaths = nil
        let olderText = try older.json()
        #expect(!olderText.contains("simdPath") && !olderText.contains("availablePaths"))
        #expect(try BenchmarkReport.decode(json: olderText) == older)
    }

    @Test func sizesParse() {
        #expect(BenchmarkSize(parsing: "1080p") == .hd1080)
        #expect(BenchmarkSize(parsing: "720P") == .hd720)
        #expect(BenchmarkSize(parsing: "64x48") == BenchmarkSize(name: "64x48", width: 64, height: 48))
        for bad in ["", "x", "64x", "1x1", "99999x10", "big"] {
            #expect(BenchmarkSize(parsing: bad) == nil, "\(bad)")
        }
    }

    // MARK: a real run

    @Test func tinyRealRunGivesPositiveNumbers() throws {
        let benchCase = BenchmarkCase(
            id: "sepia", title: "sepia vs identity",
            subject: .swiftfilter("sepia", input: "RGBA"),
            reference: BenchmarkVariant("videoconvert", input: "RGBA", pipeline: "videoconvert ! videoflip method=horizontal-flip"))
        let memcpy = BenchmarkCase(id: "memcpy-rgba", title: "memcpy", subject: .memcpy("RGBA"), reference: nil)
        let configuration = BenchmarkConfiguration(
            sizes: [BenchmarkSize(name: "64x48", width: 64, height: 48)],
            frames: 5, repetitions: 2, warmUpFrames: 1, distinctFrames: 2,
            cases: [benchCase, memcpy], stallTimeout: 30)
        var steps: [BenchmarkProgress] = []
        let report = try BenchmarkRunner(configuration: configuration).run { steps.append($0) }
        #expect(steps.count == 6)  // memcpy, baseline, two variants set up, then two rounds
        #expect(steps.last.map { $0.done + 1 == $0.total } == true)
        #expect(report.rows.count == 2)
        let row = report.rows[0]
        #expect(row.failed == nil && row.skipped == nil)
        let swift = try #require(row.swiftcam)
        #expect(swift.isMeasured)
        #expect(swift.samplesMs?.count == 2)
        #expect((swift.baselineMs ?? 0) > 0)
        #expect((swift.medianMs ?? -1) >= 0)
        #expect(report.baselines.count == 1)
        let copy = try #require(report.rows[1].swiftcam?.medianMs)
        #expect(copy > 0)
        #expect(report.rows[1].timesMemcpy == 1)
    }

    /// The repetitions take turns, one of every variant a round (each round starting one further on), so a slow spell
    /// of the machine cannot fall on one variant alone; a variant that breaks leaves the later rounds and is failed, the
    /// others go on; all are finished.
    @Test func repetitionsTakeTurns() {
        final class Fake: BenchmarkTimer {
            let name: String, failsAt: Int?, log: Log
            var calls = 0, finished = false
            init(_ name: String, failsAt: Int? = nil, log: Log) { (self.name, self.failsAt, self.log) = (name, failsAt, log) }
            func repetition() throws -> Double {
                calls += 1
                log.entries.append(name)
                if calls == failsAt { throw GStreamerError.timedOut("\(name) broke") }
                return Double(calls)
            }
            func finish() throws { finished = true }
        }
        final class Log { var entries: [String] = [] }
        let log = Log()
        let timers = [Fake("a", log: log), Fake("b", failsAt: 2, log: log), Fake("c", log: log)]
        var rounds: [Int] = []
        let outcomes = BenchmarkRunner.takeTurns(timers, repetitions: 3) { rounds.append($0) }
        #expect(log.entries == ["a", "b", "c", "b", "c", "a", "c", "a"])
        #expect(rounds == [0, 1, 2])
        #expect(outcomes[0].statistics?.samples == [1, 2, 3])
        #expect(outcomes[2].statistics?.samples == [1, 2, 3])
        guard case let .failed(reason) = outcomes[1] else {
            Issue.record("the broken timer must be failed, got \(outcomes[1])")
            return
        }
        #expect(reason.contains("b broke"))
        #expect(timers.map(\.finished) == [true, true, true])
    }

    /// A libyuv reference is timed on its own (or skipped with the reason), never read off the memcpy of the same
    /// frames: both have no pipeline, and the variant key once dropped the libyuv function.
    @Test func libyuvIsTimedNotTheMemcpy() throws {
        let gray = BenchmarkCase(
            id: "libyuv-gray", title: "mono vs libyuv gray",
            subject: .swiftfilter("mono", input: "RGBA"), reference: .libyuv("ARGBGray"))
        let memcpy = BenchmarkCase(id: "memcpy-rgba", title: "memcpy", subject: .memcpy("RGBA"), reference: nil)
        let configuration = BenchmarkConfiguration(
            sizes: [BenchmarkSize(name: "64x48", width: 64, height: 48)],
            frames: 5, repetitions: 3, warmUpFrames: 1, distinctFrames: 2,
            cases: [gray, memcpy], stallTimeout: 30)
        var steps: [BenchmarkProgress] = []
        let report = try BenchmarkRunner(configuration: configuration).run { steps.append($0) }
        #expect(steps.map(\.label).contains { $0.contains("libyuv ARGBGray") }, "\(steps.map(\.label))")
        let libyuv = try #require(report.rows[0].c)
        let copy = try #require(report.rows[1].swiftcam)
        if let reason = report.rows[0].skipped {
            #expect(reason.contains("libyuv"), "\(reason)")
        } else {
            #expect(libyuv.isMeasured)
            #expect(libyuv.samplesMs != copy.samplesMs, "the libyuv row carries the memcpy's samples")
        }
    }

    /// The memory's own scaling row: a copy in row bands is timed by itself on every format the cases push (an NV12 or
    /// I420 frame's planes as Filters frames), not read off the plain memcpy.
    @Test(arguments: ["RGBA", "NV12", "I420"])
    func bandedCopyIsTimedOnItsOwn(format: String) throws {
        let banded = BenchmarkCase(
            id: "scaling-memcpy", title: "memcpy 2 row bands vs 1",
            subject: .memcpy(format, threads: 2), reference: .memcpy(format))
        let configuration = BenchmarkConfiguration(
            sizes: [BenchmarkSize(name: "64x48", width: 64, height: 48)],
            frames: 5, repetitions: 3, warmUpFrames: 1, distinctFrames: 2,
            cases: [banded], stallTimeout: 30)
        var steps: [BenchmarkProgress] = []
        let report = try BenchmarkRunner(configuration: configuration).run { steps.append($0) }
        #expect(steps.map(\.label).contains("\(format) memcpy in 2 row bands"), "\(steps.map(\.label))")
        let row = try #require(report.rows.first)
        #expect(row.failed == nil && row.skipped == nil, "\(row.failed ?? row.skipped ?? "")")
        let bands = try #require(row.swiftcam), plain = try #require(row.c)
        #expect(bands.isMeasured && plain.isMeasured)
        #expect(bands.samplesMs != plain.samplesMs, "the banded copy carries the memcpy's samples")
    }

    /// `swiftcam bench --paths`: a row per SIMD path this machine has for each main filter, each chain run on the path
    /// its row names (its own samples, not another path's or the memcpy's).
    @Test func everySIMDPathHasItsRow() throws {
        let cases = BenchmarkCase.paths()
        #expect(Set(cases.map(\.id)).count == cases.count)
        for name in ["sepia", "mono", "colorcontrols", "vignette", "blur", "edges", "chain3", "chain6"] {
            let paths = cases.filter { $0.id.hasPrefix("path-\(name)-") }.compactMap { $0.subject?.simdPath }
            #expect(paths == SIMDPath.available.map(\.description), "\(name): \(paths)")
        }
        let chain3 = cases.filter { $0.id.hasPrefix("path-chain3-") }
        let configuration = BenchmarkConfiguration(
            sizes: [BenchmarkSize(name: "64x48", width: 64, height: 48)],
            frames: 3, repetitions: 2, warmUpFrames: 1, distinctFrames: 2,
            cases: chain3, stallTimeout: 30)
        var steps: [BenchmarkProgress] = []
        let report = try BenchmarkRunner(configuration: configuration).run { steps.append($0) }
        for path in SIMDPath.available {
            #expect(steps.map(\.label).contains("RGBA Filters \(BenchmarkCase.chain3) on \(path)"), "\(steps.map(\.label))")
        }
        #expect(report.rows.count == chain3.count)
        for row in report.rows {
            #expect(row.failed == nil && row.skipped == nil, "\(row.failed ?? row.skipped ?? "")")
            let subject = try #require(row.swiftcam)
            #expect(subject.isMeasured && subject.samplesMs?.count == 2)
        }
    }
}
