import Filters
import GStreamer
import Glibc
import SwiftFilterElement

/// What measuring one variant gave.
public enum BenchmarkOutcome: Sendable, Equatable {
    /// Milliseconds per frame, before any baseline is taken off.
    case measured(BenchmarkStatistics)
    /// Not run: an element is not installed; the reason says which and where to get it.
    case skipped(String)
    /// Ran and broke (negotiation, a stall, an element error); the reason is GStreamer's.
    case failed(String)

    /// The statistics, when measured.
    public var statistics: BenchmarkStatistics? {
        if case let .measured(statistics) = self { return statistics }
        return nil
    }
}

/// Where a run is, for the progress line.
public struct BenchmarkProgress: Sendable {
    /// Variants measured so far, this one excluded.
    public var done: Int
    /// Variants in the whole run.
    public var total: Int
    /// The size being measured.
    public var size: BenchmarkSize
    /// The variant starting now.
    public var label: String
}

/// Times every case of a configuration in this process: pre-made frames pushed through
/// `appsrc ! <variant> ! fakesink sync=false`, timed from the first buffer pushed to the last one
/// at the sink's pad, per frame, the `identity` baseline taken off.
public struct BenchmarkRunner: Sendable {
    /// What to run.
    public var configuration: BenchmarkConfiguration

    /// A runner for `configuration`.
    public init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    /// Runs every case at every size. A missing element gives a skipped case and a broken one a failed case;
    /// only when the test frames themselves cannot be made does the run throw.
    ///
    /// At each size every variant is set up first (a pipeline playing and warmed up), then the repetitions take
    /// turns: one of every variant, then the next round, so a slow spell of the machine falls on all of them alike.
    public func run(progress: (BenchmarkProgress) -> Void = { _ in }) throws -> BenchmarkReport {
        SwiftFilterElement.register()
        let load = BenchmarkMachine.loadAverage
        let inputs = orderedInputs
        let variants = uniqueVariants
        let perSize = inputs.count * 2 + variants.count + configuration.repetitions
        let total = perSize * configuration.sizes.count
        var done = 0
        var rows: [BenchmarkRow] = []
        var baselines: [BenchmarkBaseline] = []
        for size in configuration.sizes {
            let rgba = try BenchmarkFrames.rgba(width: size.width, height: size.height, count: configuration.distinctFrames)
            var frames: [String: BenchmarkFrames] = [:]
            for input in inputs { frames[input] = try rgba.converted(to: input) }
            // Each input's memcpy and identity baseline, then every variant once (one pipeline under two labels is
            // one variant).
            var order: [BenchmarkVariant] = inputs.flatMap { [BenchmarkVariant.memcpy($0), .baseline($0)] }
            for variant in variants where !order.contains(where: { $0.key == variant.key }) { order.append(variant) }
            var raw: [BenchmarkVariant: BenchmarkOutcome] = [:]
            var held: [BenchmarkVariant: Int] = [:]
            var timers: [(key: BenchmarkVariant, timer: any BenchmarkTimer)] = []
            for variant in order {
                progress(BenchmarkProgress(done: done, total: total, size: size, label: "\(variant.input) \(variant.label)"))
                done += 1
                guard let input = frames[variant.input] else { continue }
                switch prepare(variant, frames: input) {
                case let .ready(timer): timers.append((variant.key, timer))
                case let .unavailable(outcome): raw[variant.key] = outcome
                }
            }
            done += variants.count + inputs.count * 2 - order.count
            let outcomes = Self.takeTurns(timers.map(\.timer), repetitions: configuration.repetitions) { round in
                progress(
                    BenchmarkProgress(
                        done: done, total: total, size: size,
                        label: "repetition \(round + 1) of \(configuration.repetitions), every variant in turn"))
                done += 1
            }
            for ((key, timer), outcome) in zip(timers, outcomes) {
                raw[key] = outcome
                if let ring = timer as? PreRollTimer { held[key] = ring.heldBytes }
            }
            var floor: [String: Double] = [:]
            var baseline: [String: Double] = [:]
            for input in inputs {
                // As the memcpy row shows it, so its ratio is exactly 1.
                floor[input] = raw[BenchmarkVariant.memcpy(input).key]?.statistics?.median.rounded(places: 6)
                if let statistics = raw[BenchmarkVariant.baseline(input).key]?.statistics {
                    baseline[input] = statistics.median
                    baselines.append(BenchmarkBaseline(size: size, input: input, statistics: statistics))
                }
            }
            for benchCase in configuration.cases {
                func result(_ variant: BenchmarkVariant?) -> BenchmarkMeasurement? {
                    guard let variant else { return nil }
                    let outcome = raw[variant.key] ?? .failed("not measured")
                    let subtract = variant.pipeline == nil ? 0 : baseline[variant.input] ?? 0
                    return BenchmarkMeasurement(variant, outcome: outcome, baseline: subtract)
                }
                let memcpy = (benchCase.subject ?? benchCase.reference).flatMap { floor[$0.input] }
                var row = BenchmarkRow(
                    benchCase, size: size, swiftcam: result(benchCase.subject),
                    c: result(benchCase.reference), memcpy: memcpy)
                row.heldBytes = benchCase.subject.flatMap { held[$0.key] }
                rows.append(row)
            }
        }
        return BenchmarkReport(
            date: BenchmarkReport.today,
            machine: BenchmarkMachine(
                cores: BenchmarkMachine.cores, cpu: BenchmarkMachine.cpuModel, gstreamer: GStreamer.versionString, load: load,
                simdPath: SIMDPath.best.description, availablePaths: SIMDPath.available.map(\.description)),
            frames: configuration.frames, repetitions: configuration.repetitions, rows: rows, baselines: baselines)
    }

    /// The formats the cases push, RGBA first.
    var orderedInputs: [String] {
        var inputs: [String] = []
        for variant in configuration.cases.flatMap(\.variants) where !inputs.contains(variant.input) {
            inputs.append(variant.input)
        }
        return inputs
    }

    /// Every distinct pipeline or libyuv variant once (the same pipeline under two labels is timed once); the
    /// memcpys are timed with the frames.
    var uniqueVariants: [BenchmarkVariant] {
        var seen: Set<BenchmarkVariant> = []
        var result: [BenchmarkVariant] = []
        for variant in configuration.cases.flatMap(\.variants)
        where variant.pipeline != nil || variant.library != nil || variant.copyThreads != nil
            || variant.chain != nil || variant.analysis != nil
        {
            if seen.insert(variant.key).inserted { result.append(variant) }
        }
        return result
    }

    /// Times every timer `repetitions` times, a repetition of each in turn (`round` is told as each round starts),
    /// then finishes them all: one outcome per timer. Each round starts one timer further on, so no timer always
    /// follows the same one. A timer that throws is out of the later rounds and failed.
    static func takeTurns(_ timers: [any BenchmarkTimer], repetitions: Int, round: (Int) -> Void = { _ in }) -> [BenchmarkOutcome] {
        var samples = Array(repeating: [Double](), count: timers.count)
        var broken: [BenchmarkOutcome?] = Array(repeating: nil, count: timers.count)
        for number in 0..<repetitions {
            round(number)
            for turn in timers.indices {
                let index = (number + turn) % timers.count, timer = timers[index]
                guard broken[index] == nil else { continue }
                do {
                    samples[index].append(try timer.repetition())
                } catch {
                    broken[index] = outcome(error)
                }
            }
        }
        return timers.indices.map { index in
            do {
                try timers[index].finish()
            } catch {
                if broken[index] == nil { broken[index] = outcome(error) }
            }
            return broken[index] ?? BenchmarkStatistics(samples: samples[index]).map { .measured($0) } ?? .failed("no timings")
        }
    }

    /// Times one variant on `frames` by itself, every repetition in a row. Never throws: a missing element is
    /// `.skipped`, anything else that goes wrong is `.failed`.
    public func measure(_ variant: BenchmarkVariant, frames: BenchmarkFrames) -> BenchmarkOutcome {
        let timer: any BenchmarkTimer
        switch prepare(variant, frames: frames) {
        case let .ready(prepared): timer = prepared
        case let .unavailable(outcome): return outcome
        }
        return Self.takeTurns([timer], repetitions: configuration.repetitions)[0]
    }

    /// Sets `variant` up on `frames` (a memcpy here, a libyuv call, or a pipeline of its own, playing and warmed
    /// up), or says why it cannot run: not installed (`.skipped`) or broken (`.failed`).
    func prepare(_ variant: BenchmarkVariant, frames: BenchmarkFrames) -> Prepared {
        if let missing = Self.missingElement(variant) { return .unavailable(.skipped(missing)) }
        // A copy or a library call reads `info.size` bytes of a frame: compressed frames are smaller.
        if frames.compressedCaps != nil && variant.pipeline == nil {
            return .unavailable(.skipped("\(variant.input) frames are compressed: only pipelines take them"))
        }
        do {
            if let function = variant.library {
                guard LibYUV.handle != nil else { return .unavailable(.skipped(LibYUV.missing)) }
                guard let operation = LibYUV.operation(function, info: frames.info) else {
                    return .unavailable(.skipped("libyuv \(function) does not take \(variant.input) frames"))
                }
                return .ready(try CallTimer(frames: frames, configuration: configuration, operation))
            }
            if let chain = variant.chain, let path = SIMDPath.available.first(where: { $0.description == variant.simdPath }) {
                return .ready(try CallTimer.filters(frames, chain: chain, path: path, configuration: configuration))
            }
            if variant.chain != nil {
                return .unavailable(.skipped("this machine has no \(variant.simdPath ?? "such") SIMD path"))
            }
            if let pipeline = variant.pipeline {
                return .ready(try PipelineTimer(pipeline, frames: frames, configuration: configuration))
            }
            if let analysis = variant.analysis {
                return .ready(try AnalysisTimers.make(analysis, frames: frames, configuration: configuration))
            }
            if let threads = variant.copyThreads {
                return .ready(try CallTimer.bandedCopy(frames, threads: threads, configuration: configuration))
            }
            return .ready(try CallTimer.memcpy(frames, configuration: configuration))
        } catch {
            return .unavailable(Self.outcome(error))
        }
    }

    /// A variant set up, or why it cannot run.
    enum Prepared {
        case ready(any BenchmarkTimer)
        case unavailable(BenchmarkOutcome)
    }

    /// What an error while setting up or timing a variant makes of it: an element that is not installed is
    /// skipped, anything else failed.
    static func outcome(_ error: any Error) -> BenchmarkOutcome {
        if let error = error as? GStreamerError, case let .elementNotFound(factory, package) = error {
            return .skipped(notInstalled(factory, package: package))
        }
        return .failed("\(error)")
    }

    /// Why a variant cannot run here (the first element it needs that is not installed), or nil.
    public static func missingElement(_ variant: BenchmarkVariant) -> String? {
        for factory in variant.factories where !Element.factoryExists(factory) {
            // Making it anyway gives the wrappers' error, which knows the Debian package.
            do {
                _ = try Element.make(factory)
            } catch {
                if case let .elementNotFound(_, package) = error { return notInstalled(factory, package: package) }
            }
            return notInstalled(factory, package: nil)
        }
        return nil
    }

    static func notInstalled(_ factory: String, package: String?) -> String {
        "\(factory) not installed" + (package.map { " (apt-get install \($0))" } ?? "")
    }
}

extension BenchmarkVariant {
    /// What identifies the work: two labels for the same pipeline on the same frames are timed once.
    /// A libyuv call keeps its function: without it every libyuv variant was memcpy's key, never timed, and its row
    /// showed the memcpy.
    var key: BenchmarkVariant {
        BenchmarkVariant(
            label: "", input: input, pipeline: pipeline, library: library, copyThreads: copyThreads, chain: chain, simdPath: simdPath,
            analysis: analysis)
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
