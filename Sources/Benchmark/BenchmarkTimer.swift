import Filters
import GStreamer
import Glibc

/// One variant, set up once and then timed a repetition at a time, so that a run can take turns between its
/// variants: on a shared machine the speed drifts over seconds, and a ratio of two variants timed one after the
/// other carried that drift (the same scaling row moved by half from run to run). Taking turns spreads it over all.
protocol BenchmarkTimer: AnyObject {
    /// Milliseconds per frame over one repetition: `warmUpFrames` untimed first (the variant before this one
    /// had the caches), then `frames` timed.
    func repetition() throws -> Double
    /// Ends the variant (a pipeline drains and stops); throws what went wrong at the end.
    func finish() throws
}

/// `appsrc ! fragment ! fakesink sync=false`, playing from set-up to `finish`.
final class PipelineTimer: BenchmarkTimer {
    private let pipeline: Pipeline
    private let source: AppSrc
    private let counter: BenchmarkFrameCounter
    private let frames: BenchmarkFrames
    private let configuration: BenchmarkConfiguration
    private var pushed = 0
    private var stopped = false
    /// A push failed: the pipeline is stopped at `finish` without waiting for an end of stream that cannot come.
    private var broken = false

    init(_ fragment: String, frames: BenchmarkFrames, configuration: BenchmarkConfiguration) throws {
        let pipeline = try Pipeline.parse("appsrc name=benchsrc ! \(fragment) ! fakesink name=benchsink sync=false")
        guard let source = pipeline.element(named: "benchsrc", as: AppSrc.self),
            let sink = pipeline.element(named: "benchsink")
        else {
            pipeline.requestState(.null)
            throw GStreamerError.padNotFound(element: "bench pipeline", pad: "benchsrc/benchsink")
        }
        (self.pipeline, self.source, self.frames, self.configuration) = (pipeline, source, frames, configuration)
        do {
            source.caps = frames.caps
            try source.set("format", "time")
            // The same few buffers are queued by reference, so an unbounded, non-blocking queue costs no memory and
            // keeps the pushing thread out of the timing.
            try source.set("block", false)
            try source.set("max-bytes", UInt64(0))
            counter = try BenchmarkFrameCounter(counting: sink.staticPad("sink"))
            guard pipeline.requestState(.playing) else {
                throw Self.busError(pipeline.bus)
                    ?? GStreamerError.stateChangeFailed(
                        element: "bench pipeline", state: .playing, message: "the state change was refused")
            }
            try push(configuration.warmUpFrames)
        } catch {
            pipeline.requestState(.null)
            throw error
        }
    }

    deinit {
        if !stopped { pipeline.requestState(.null) }
    }

    func repetition() throws -> Double {
        do {
            try push(configuration.warmUpFrames)
            let clock = ContinuousClock(), start = clock.now
            try push(configuration.frames)
            return (clock.now - start).milliseconds / Double(configuration.frames)
        } catch {
            broken = true
            throw error
        }
    }

    func finish() throws {
        stopped = true
        defer { pipeline.requestState(.null) }
        guard !broken else { return }
        source.endOfStream()
        if case let .error(element, message, _, _)? = pipeline.bus.waitForEnd(timeout: configuration.stallTimeout) {
            throw GStreamerError.stateChangeFailed(element: element, state: .playing, message: message)
        }
        try pipeline.setState(.null)
    }

    /// Pushes `count` frames and waits until all have reached the sink: an error on the bus, or no progress for the
    /// stall timeout, throws.
    private func push(_ count: Int) throws {
        for _ in 0..<count {
            try source.push(frames.buffers[pushed % frames.buffers.count])
            pushed += 1
        }
        let clock = ContinuousClock()
        var lastCount = counter.count, lastProgress = clock.now
        while true {
            let count = counter.wait(for: pushed, seconds: 0.25)
            if count >= pushed { return }
            if let error = Self.busError(pipeline.bus) { throw error }
            if count > lastCount {
                (lastCount, lastProgress) = (count, clock.now)
            } else if (clock.now - lastProgress).milliseconds > configuration.stallTimeout * 1000 {
                throw GStreamerError.timedOut("a frame: \(count) of \(pushed) arrived, then none for \(Int(configuration.stallTimeout)) s")
            }
        }
    }

    /// The first error on the bus as a GStreamer error, without waiting.
    private static func busError(_ bus: Bus) -> GStreamerError? {
        guard case let .error(element, message, _, _)? = bus.pop(timeout: 0, types: .error) else { return nil }
        return .stateChangeFailed(element: element, state: .playing, message: message)
    }
}

/// `operation(frame, destination)` called on every frame in turn; the destination starts as a copy of the first
/// frame, for in-place functions.
final class CallTimer: BenchmarkTimer {
    private let frames: BenchmarkFrames
    private let configuration: BenchmarkConfiguration
    private let destination: UnsafeMutableRawPointer
    private let operation: (UnsafeRawPointer, UnsafeMutableRawPointer) throws -> Void
    private var index = 0

    init(
        frames: BenchmarkFrames, configuration: BenchmarkConfiguration,
        _ operation: @escaping (UnsafeRawPointer, UnsafeMutableRawPointer) throws -> Void
    ) throws {
        let size = frames.info.size
        let destination = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 64)
        (self.frames, self.configuration, self.destination, self.operation) = (frames, configuration, destination, operation)
        try frames.buffers[0].withMappedBytes { bytes in
            if let base = bytes.baseAddress { Glibc.memcpy(destination, base, min(bytes.count, size)) }
        }
        try call(configuration.warmUpFrames)
    }

    deinit {
        destination.deallocate()
    }

    func repetition() throws -> Double {
        try call(configuration.warmUpFrames)
        let clock = ContinuousClock(), start = clock.now
        try call(configuration.frames)
        return (clock.now - start).milliseconds / Double(configuration.frames)
    }

    func finish() throws {}

    private func call(_ count: Int) throws {
        let size = frames.info.size
        for _ in 0..<count {
            try frames.buffers[index % frames.buffers.count].withMappedBytes { bytes in
                if let base = bytes.baseAddress, bytes.count >= size { try operation(base, destination) }
            }
            index += 1
        }
    }

    /// A memcpy of every frame into one destination.
    static func memcpy(_ frames: BenchmarkFrames, configuration: BenchmarkConfiguration) throws -> CallTimer {
        let size = frames.info.size
        return try CallTimer(frames: frames, configuration: configuration) { source, destination in
            Glibc.memcpy(destination, source, size)
        }
    }

    /// The same copy with the rows of each frame split over `threads` threads by an empty chain compiled for them.
    static func bandedCopy(_ frames: BenchmarkFrames, threads: Int, configuration: BenchmarkConfiguration) throws -> CallTimer {
        try compiled(FilterChain([]).compile(threads: threads), frames, configuration: configuration)
    }

    /// `chain` compiled for one thread on `path`, from each frame into one destination.
    static func filters(_ frames: BenchmarkFrames, chain: String, path: SIMDPath, configuration: BenchmarkConfiguration) throws -> CallTimer
    {
        try compiled(FilterChain(parsing: chain).compile(threads: 1, kernels: KernelSet(path: path)), frames, configuration: configuration)
    }

    /// `copier` from each frame into one destination.
    private static func compiled(
        _ copier: CompiledChain, _ frames: BenchmarkFrames, configuration: BenchmarkConfiguration
    ) throws -> CallTimer {
        let info = frames.info
        guard let format = PixelFormat(gstName: info.formatName) else {
            throw GStreamerError.mapFailed("a \(info.formatName) frame as a Filters frame")
        }
        func frame(_ base: UnsafeMutableRawPointer) -> Frame {
            Frame(
                format: format, width: info.width, height: info.height,
                planes: (0..<info.planeCount).map { Plane(base: base + info.offset(plane: $0), stride: info.stride(plane: $0)) })
        }
        return try CallTimer(frames: frames, configuration: configuration) { source, destination in
            try copier.process(from: frame(UnsafeMutableRawPointer(mutating: source)), to: frame(destination))
        }
    }
}
