/// Compiled, reusable processing state for one chain: fused point-op tables, scratch buffers.
///
/// Not thread-safe: one streaming thread calls `process`; to change the chain, swap in a whole
/// new instance. Work inside one call is split across cores by row bands.
/// Unchecked Sendable: it is only handed whole to another thread (under `FilterState`'s `settings` lock), and its
/// kernel caches and scratch change only inside `process`, which one thread at a time calls.
public final class CompiledChain: @unchecked Sendable {
    private enum Stage {
        /// Point operations fused into one pass, read through a flip and written through a mirror.
        /// Mirror and flip commute with every point operation (the vignette is symmetric), so a
        /// run of point filters, mirrors and flips is always one stage.
        case point([PointOperation], mirror: Bool, flip: Bool)
        case spatial(SpatialOperation)
    }

    /// The chain this was compiled from.
    public let chain: FilterChain
    /// Threads for one frame; 0 = one per core. Frames under ~128 K samples always use one.
    public var threads: Int
    /// The kernels every stage runs: the SIMD path chosen when the chain was compiled.
    public let kernels: KernelSet

    private let stages: [Stage]
    private let scratch = ScratchPool()
    /// Frame filters' scratch slots: stage i from `frameSlots + 100·i`, above the point stages' tables.
    private static let frameSlots = 1_000_000
    /// The point stages' scratch slots: stage i from `pointSlots + 100·i`, above SpatialContext's slots (1 000–7 999),
    /// whatever the chain's length (from 100·(i + 1), a tenth point stage's tables reached the blur's planes).
    private static let pointSlots = 100_000
    /// Point kernels per stage, built on first use for a format family and colour description.
    private var rgbKernels: [Int: (ColorDescription, RGBPointKernel)] = [:]
    private var yuvKernels: [Int: (ColorDescription, YUVPointKernel)] = [:]

    init(chain: FilterChain, threads: Int, kernels: KernelSet) {
        self.chain = chain
        self.threads = max(0, threads)
        self.kernels = kernels
        var stages: [Stage] = []
        for filter in chain.filters {
            for operation in filter.kernel.operations {
                switch operation {
                case let .point(op):
                    if case let .point(previous, mirror, flip)? = stages.last {
                        stages[stages.count - 1] = .point(previous + [op], mirror: mirror, flip: flip)
                    } else {
                        stages.append(.point([op], mirror: false, flip: false))
                    }
                case let .spatial(op) where op == .mirror || op == .flip:
                    let isMirror = op.isMirror
                    if case let .point(previous, mirror, flip)? = stages.last {
                        stages[stages.count - 1] = .point(previous, mirror: mirror != isMirror, flip: flip != !isMirror)
                    } else {
                        stages.append(.point([], mirror: isMirror, flip: !isMirror))
                    }
                case let .spatial(op):
                    stages.append(.spatial(op))
                }
            }
        }
        self.stages = stages
    }

    /// True when the chain has no filters.
    public var isEmpty: Bool { chain.isEmpty }

    /// How many passes over a frame the chain makes: each run of point filters (with mirrors and flips) is one,
    /// each spatial or frame filter one more.
    public var passCount: Int { stages.count }

    /// True when every stage is a point op: each output pixel depends only on the same input pixel.
    public var worksInPlace: Bool {
        stages.allSatisfy { if case .point = $0 { true } else { false } }
    }

    /// True when this chain can process frames of `format` (every filter supports every format).
    public func supports(_ format: PixelFormat) -> Bool { true }

    /// Number of scratch allocations so far; stays constant after the first frame of a size.
    var scratchAllocations: Int { scratch.allocationCount }

    /// Processes `frame` in place. Spatial stages use internal scratch, so any chain works.
    public func process(_ frame: Frame) throws(FrameError) {
        try process(from: frame, to: frame)
    }

    /// Reads `source` and writes `destination`: same format and size; strides may differ.
    ///
    /// The two must be either exactly the same memory or not overlap at all.
    public func process(from source: Frame, to destination: Frame) throws(FrameError) {
        try source.validate()
        try destination.validate()
        guard source.format == destination.format, source.width == destination.width, source.height == destination.height else {
            throw .mismatch(
                source: "\(source.format.gstName) \(source.width)x\(source.height)",
                destination: "\(destination.format.gstName) \(destination.width)x\(destination.height)")
        }
        guard !stages.isEmpty else {
            MirrorFlipKernel.run(
                source, destination, mirror: false, flip: false, SpatialContext(scratch: scratch, threads: threads, kernels: kernels))
            return
        }
        var input = source
        for (index, stage) in stages.enumerated() {
            switch stage {
            case let .point(operations, mirror, flip):
                runPoint(index, operations, mirror: mirror, flip: flip, input, destination)
            case let .spatial(operation):
                runSpatial(index, operation, input, destination)
            }
            // Later stages work in place on the destination.
            input = destination
        }
    }

    private func runPoint(_ index: Int, _ operations: [PointOperation], mirror: Bool, flip: Bool, _ input: Frame, _ destination: Frame) {
        // The destination's colour description is the one the caller negotiated for the output.
        let color = input.color
        let context = SpatialContext(scratch: scratch, threads: threads, kernels: kernels)
        guard !operations.isEmpty else {
            MirrorFlipKernel.run(input, destination, mirror: mirror, flip: flip, context)
            return
        }
        // A flip is a source read bottom-up; in place, the rows it reads would already be written.
        let source = flip ? context.unaliased(input, destination).flipped() : input
        let mirrorBuffers = mirror ? context.perBand(.rowA, bands: max(RowParallel.coreCount, threads), bytes: source.width * 4) : nil
        if source.format.isRGB {
            let kernel: RGBPointKernel
            if let cached = rgbKernels[index], cached.0.matrix == color.matrix {
                kernel = cached.1
            } else {
                kernel = RGBPointKernel(PointProgram(operations, color: color), kernels: kernels)
                rgbKernels[index] = (color, kernel)
            }
            guard !kernel.isIdentity else {
                MirrorFlipKernel.run(source, destination, mirror: mirror, flip: false, context)
                return
            }
            kernel.prepare(
                format: source.format, width: source.width, height: source.height, scratch: scratch, slotBase: Self.pointSlots + 100 * index
            )
            let bands = RowParallel.bands(threads: threads, rows: source.height, samples: source.width * source.height * 4)
            let rowBuffers = context.perBand(.rowB, bands: bands, bytes: RGBPointKernel.bufferBytes(width: source.width))
            RowParallel.run(rows: source.height, bands: bands) { band, rows in
                let rowBuffer = rowBuffers.base + band * rowBuffers.stride
                guard let mirrorBuffers else {
                    kernel.run(
                        source: source.planes[0], destination: destination.planes[0], format: source.format,
                        width: source.width, height: source.height, rows: rows, buffer: rowBuffer)
                    return
                }
                // Each row mirrored while it is in L1.
                kernel.run(
                    source: source.planes[0], destination: destination.planes[0], format: source.format, width: source.width,
                    height: source.height, rows: rows, buffer: rowBuffer, mirror: mirrorBuffers.base + band * mirrorBuffers.stride)
            }
        } else {
            let kernel: YUVPointKernel
            if let cached = yuvKernels[index], cached.0 == color {
                kernel = cached.1
            } else {
                kernel = YUVPointKernel(PointProgram(operations, color: color), color: color, kernels: kernels)
                yuvKernels[index] = (color, kernel)
            }
            guard !kernel.isIdentity else {
                MirrorFlipKernel.run(source, destination, mirror: mirror, flip: false, context)
                return
            }
            kernel.prepare(width: source.width, height: source.height)
            let (rows, alignment) = kernel.rowCount(format: source.format, height: source.height)
            let bands = RowParallel.bands(threads: threads, rows: rows, samples: source.width * source.height * 2)
            let fusedMirror = kernel.mirrorsWhileWriting(source.format)
            RowParallel.run(rows: rows, bands: bands, alignment: alignment) { band, rows in
                guard let mirrorBuffers else {
                    kernel.run(source: source, destination: destination, rows: rows)
                    return
                }
                let buffer = mirrorBuffers.base + band * mirrorBuffers.stride
                if fusedMirror {
                    kernel.run(source: source, destination: destination, rows: rows, mirror: buffer)
                    return
                }
                var row = rows.lowerBound
                while row < rows.upperBound {
                    let chunk = row..<min(row + alignment, rows.upperBound)
                    kernel.run(source: source, destination: destination, rows: chunk)
                    MirrorFlipKernel.mirrorRows(destination, destination, lumaRows: chunk, buffer: buffer, kernels)
                    row = chunk.upperBound
                }
            }
        }
    }

    private func runSpatial(_ index: Int, _ operation: SpatialOperation, _ source: Frame, _ destination: Frame) {
        let context = SpatialContext(scratch: scratch, threads: threads, kernels: kernels)
        switch operation {
        case let .frame(box):
            let input = context.unaliased(source, destination)
            let scratch = scratch, base = Self.frameSlots + 100 * index
            box.filter.apply(
                input, to: destination,
                context: FrameContext(threads: threads) { slot, bytes in
                    scratch.buffer(base + slot, bytes: bytes)
                })
        case let .blur(sigma):
            GaussianKernel.run(source, destination, sigma: sigma, sharpenAmount: nil, context)
        case let .sharpen(amount, sigma):
            GaussianKernel.run(source, destination, sigma: sigma, sharpenAmount: amount, context)
        case .edges:
            EdgesKernel.run(source, destination, context)
        case let .pixelate(size):
            PixelateKernel.run(source, destination, size: size, context)
        case let .zoom(factor, x, y):
            ZoomKernel.run(source, destination, factor: factor, x: x, y: y, context)
        case .mirror, .flip:
            MirrorFlipKernel.run(source, destination, mirror: operation.isMirror, flip: !operation.isMirror, context)
        }
    }
}
