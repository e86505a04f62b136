import Filters
import Glibc
import GStreamer
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
    public func run(progress: (BenchmarkProgress) -> Void = { _ in }) throws -> BenchmarkReport {
        SwiftFilterElement.register()
        let load = BenchmarkMachine.loadAverage
        let inputs = orderedInputs
        let variants = uniqueVariants
        let perSize = inputs.count * 2 + variants.count
        var done = 0
        var rows: [BenchmarkRow] = []
        var baselines: [BenchmarkBaseline] = []
        for size in configuration.sizes {
            let rgba = try BenchmarkFrames.rgba(width: size.width, height: size.height, count: configuration.distinctFrames)
            var frames: [String: BenchmarkFrames] = [:]
            var raw: [BenchmarkVariant: BenchmarkOutcome] = [:]
            var floor: [String: Double] = [:]
            var baseline: [String: Double] = [:]
            for input in inputs {
                let converted = try rgba.converted(to: input)
                frames[input] = converted
                progress(BenchmarkProgress(done: done, total: perSize * configuration.sizes.count, size: size, label: "memcpy \(input)"))
                done += 1
                let copy = measure(.memcpy(input), frames: converted)
                raw[BenchmarkVariant.memcpy(input).key] = copy
                floor[input] = copy.statistics?.median.rounded(places: 6) // as the memcpy row shows it, so its ratio is exactly 1
                let identity = BenchmarkVariant.baseline(input)
                progress(BenchmarkProgress(done: done, total: perSize * configuration.sizes.count, size: size, label: "\(input) \(identity.label)"))
                done += 1
                let outcome = measure(identity, frames: converted)
                if let statistics = outcome.statistics {
                    baseline[input] = statistics.median
                    baselines.append(BenchmarkBaseline(size: size, input: input, statistics: statistics))
                }
            }
            for variant in variants {
                progress(BenchmarkProgress(done: done, total: perSize * configuration.sizes.count, size: size,
                                           label: "\(variant.input) \(variant.label)"))
                done += 1
                guard raw[variant.key] == nil else { continue }
                guard let input = frames[variant.input] else { continue }
                raw[variant.key] = measure(variant, frames: input)
            }
            for benchCase in configuration.cases {
                func result(_ variant: BenchmarkVariant?) -> BenchmarkMeasurement? {
                    guard let variant else { return nil }
                    let outcome = raw[variant.key] ?? .failed("not measured")
                    let subtract = variant.pipeline == nil ? 0 : baseline[variant.input] ?? 0
                    return BenchmarkMeasurement(variant, outcome: outcome, baseline: subtract)
                }
                let memcpy = (benchCase.subject ?? benchCase.reference).flatMap { floor[$0.input] }
                rows.append(BenchmarkRow(benchCase, size: size, swiftcam: result(benchCase.subject),
                                         c: result(benchCase.reference), memcpy: memcpy))
            }
        }
        return BenchmarkReport(date: BenchmarkReport.today, machine: BenchmarkMachine(
            cores: BenchmarkMachine.cores, cpu: BenchmarkMachine.cpuModel, gstreamer: GStreamer.versionString, load: load),
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
        for variant in configuration.cases.flatMap(\.variants) where variant.pipeline != nil || variant.library != nil || variant.copyThreads != nil {
            if seen.insert(variant.key).inserted { result.append(variant) }
        }
        return result
    }

    /// Times one variant on `frames`: a memcpy here, or a pipeline of its own. Never throws: a missing element
    /// is `.skipped`, anything else that goes wrong is `.failed`.
    public func measure(_ variant: BenchmarkVariant, frames: BenchmarkFrames) -> BenchmarkOutcome {
        if let missing = Self.missingElement(variant) { return .skipped(missing) }
        if let function = variant.library {
            guard LibYUV.handle != nil else { return .skipped(LibYUV.missing) }
            guard let operation = LibYUV.operation(function, info: frames.info) else {
                return .skipped("libyuv \(function) does not take \(variant.input) frames")
            }
            do {
                guard let statistics = BenchmarkStatistics(samples: try timeCall(frames, operation)) else { return .failed("no timings") }
                return .measured(statistics)
            } catch {
                return .failed("\(error)")
            }
        }
        do {
            let samples = try variant.pipeline.map { try timePipeline($0, frames: frames) }
                ?? variant.copyThreads.map { try timeBandedCopy(frames, threads: $0) } ?? timeMemcpy(frames)
            guard let statistics = BenchmarkStatistics(samples: samples) else { return .failed("no timings") }
            return .measured(statistics)
        } catch let error as GStreamerError {
            if case let .elementNotFound(factory, package) = error {
                return .skipped(Self.notInstalled(factory, package: package))
            }
            return .failed("\(error)")
        } catch {
            return .failed("\(error)")
        }
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

    /// Milliseconds per frame for each repetition of `appsrc ! fragment ! fakesink sync=false`.
    private func timePipeline(_ fragment: String, frames: BenchmarkFrames) throws -> [Double] {
        let pipeline = try Pipeline.parse("appsrc name=benchsrc ! \(fragment) ! fakesink name=benchsink sync=false")
        defer { pipeline.requestState(.null) }
        guard let source = pipeline.element(named: "benchsrc", as: AppSrc.self),
              let sink = pipeline.element(named: "benchsink") else {
            throw GStreamerError.padNotFound(element: "bench pipeline", pad: "benchsrc/benchsink")
        }
        source.caps = frames.info.caps
        try source.set("format", "time")
        // The same few buffers are queued by reference, so an unbounded, non-blocking queue costs no memory and
        // keeps the pushing thread out of the timing.
        try source.set("block", false)
        try source.set("max-bytes", UInt64(0))
        let counter = try BenchmarkFrameCounter(counting: sink.staticPad("sink"))
        let bus = pipeline.bus
        guard pipeline.requestState(.playing) else {
            throw Self.busError(bus) ?? GStreamerError.stateChangeFailed(element: "bench pipeline", state: .playing,
                                                                          message: "the state change was refused")
        }
        var pushed = 0
        func push(_ count: Int) throws {
            for _ in 0..<count {
                try source.push(frames.buffers[pushed % frames.buffers.count])
                pushed += 1
            }
        }
        let clock = ContinuousClock()
        func waitForAll() throws {
            var lastCount = counter.count, lastProgress = clock.now
            while true {
                let count = counter.wait(for: pushed, seconds: 0.25)
                if count >= pushed { return }
                if let error = Self.busError(bus) { throw error }
                if count > lastCount {
                    (lastCount, lastProgress) = (count, clock.now)
                } else if (clock.now - lastProgress).milliseconds > configuration.stallTimeout * 1000 {
                    throw GStreamerError.timedOut("a frame: \(count) of \(pushed) arrived, then none for \(Int(configuration.stallTimeout)) s")
                }
            }
        }
        try push(configuration.warmUpFrames)
        try waitForAll()
        var samples: [Double] = []
        for _ in 0..<configuration.repetitions {
            let start = clock.now
            try push(configuration.frames)
            try waitForAll()
            samples.append((clock.now - start).milliseconds / Double(configuration.frames))
        }
        source.endOfStream()
        if case let .error(element, message, _)? = bus.waitForEnd(timeout: configuration.stallTimeout) {
            throw GStreamerError.stateChangeFailed(element: element, state: .playing, message: message)
        }
        try pipeline.setState(.null)
        return samples
    }

    /// The first error on the bus as a GStreamer error, without waiting.
    private static func busError(_ bus: Bus) -> GStreamerError? {
        guard case let .error(element, message, _)? = bus.pop(timeout: 0, types: .error) else { return nil }
        return .stateChangeFailed(element: element, state: .playing, message: message)
    }

    /// Milliseconds per frame for each repetition of `operation(frame, destination)` on every frame;
    /// the destination starts as a copy of the first frame, for in-place functions.
    private func timeCall(_ frames: BenchmarkFrames, _ operation: (UnsafeRawPointer, UnsafeMutableRawPointer) -> Void) throws -> [Double] {
        let size = frames.info.size
        let destination = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 64)
        defer { destination.deallocate() }
        try frames.buffers[0].withMappedBytes { bytes in
            if let base = bytes.baseAddress { memcpy(destination, base, min(bytes.count, size)) }
        }
        var index = 0
        func call(_ count: Int) throws {
            for _ in 0..<count {
                try frames.buffers[index % frames.buffers.count].withMappedBytes { bytes in
                    if let base = bytes.baseAddress, bytes.count >= size { operation(base, destination) }
                }
                index += 1
            }
        }
        try call(configuration.warmUpFrames)
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<configuration.repetitions {
            let start = clock.now
            try call(configuration.frames)
            samples.append((clock.now - start).milliseconds / Double(configuration.frames))
        }
        return samples
    }

    /// Milliseconds per frame for each repetition of a memcpy of every frame into one destination.
    private func timeMemcpy(_ frames: BenchmarkFrames) throws -> [Double] {
        let size = frames.info.size
        return try timeCall(frames) { source, destination in memcpy(destination, source, size) }
    }

    /// The same copy with the rows of each frame split over `threads` threads by an empty chain compiled for them.
    private func timeBandedCopy(_ frames: BenchmarkFrames, threads: Int) throws -> [Double] {
        let info = frames.info
        guard let format = PixelFormat(gstName: info.formatName) else {
            throw GStreamerError.mapFailed("a \(info.formatName) frame as a Filters frame")
        }
        let copier = FilterChain([]).compile(threads: threads)
        func frame(_ base: UnsafeMutableRawPointer) -> Frame {
            Frame(format: format, width: info.width, height: info.height,
                  planes: (0..<info.planeCount).map { Plane(base: base + info.offset(plane: $0), stride: info.stride(plane: $0)) })
        }
        var failure: FrameError?
        let samples = try timeCall(frames) { source, destination in
            do throws(FrameError) {
                try copier.process(from: frame(UnsafeMutableRawPointer(mutating: source)), to: frame(destination))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return samples
    }
}

extension BenchmarkVariant {
    /// What identifies the work: two labels for the same pipeline on the same frames are timed once.
    /// A libyuv call keeps its function: without it every libyuv variant was memcpy's key, never timed, and its row
    /// showed the memcpy.
    var key: BenchmarkVariant { BenchmarkVariant(label: "", input: input, pipeline: pipeline, library: library, copyThreads: copyThreads) }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
