/// Compiled, reusable processing state for one chain: fused point-op tables, scratch buffers.
///
/// Not thread-safe: one streaming thread calls `process`; to change the chain, swap in a whole
/// new instance. Work inside one call is split across cores by row bands.
public final class CompiledChain: @unchecked Sendable {
    private enum Stage {
        case point([PointOperation])
        case spatial(SpatialOperation)
    }

    /// The chain this was compiled from.
    public let chain: FilterChain
    /// Threads for one frame; 0 = one per core. Frames under ~128 K samples always use one.
    public var threads: Int

    private let stages: [Stage]
    private let scratch = ScratchPool()
    /// Point kernels per stage, built on first use for a format family and colour description.
    private var rgbKernels: [Int: (ColorDescription, RGBPointKernel)] = [:]
    private var yuvKernels: [Int: (ColorDescription, YUVPointKernel)] = [:]

    init(chain: FilterChain, threads: Int) {
        self.chain = chain
        self.threads = max(0, threads)
        var stages: [Stage] = []
        for filter in chain.filters {
            for operation in filter.kernel.operations {
                switch operation {
                case let .point(op):
                    if case let .point(previous)? = stages.last {
                        stages[stages.count - 1] = .point(previous + [op])
                    } else {
                        stages.append(.point([op]))
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
            throw .mismatch(source: "\(source.format.gstName) \(source.width)x\(source.height)",
                            destination: "\(destination.format.gstName) \(destination.width)x\(destination.height)")
        }
        guard !stages.isEmpty else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        var input = source
        for (index, stage) in stages.enumerated() {
            switch stage {
            case let .point(operations):
                runPoint(index, operations, input, destination)
            case let .spatial(operation):
                runSpatial(operation, input, destination)
            }
            // Later stages work in place on the destination.
            input = destination
        }
    }

    private func runPoint(_ index: Int, _ operations: [PointOperation], _ source: Frame, _ destination: Frame) {
        // The destination's colour description is the one the caller negotiated for the output.
        let color = source.color
        if source.format.isRGB {
            let kernel: RGBPointKernel
            if let cached = rgbKernels[index], cached.0.matrix == color.matrix {
                kernel = cached.1
            } else {
                kernel = RGBPointKernel(PointProgram(operations, color: color))
                rgbKernels[index] = (color, kernel)
            }
            guard !kernel.isIdentity else {
                if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
                return
            }
            kernel.prepare(format: source.format, width: source.width, height: source.height, scratch: scratch, slotBase: 100 * (index + 1))
            let bands = RowParallel.bands(threads: threads, rows: source.height, samples: source.width * source.height * 4)
            RowParallel.run(rows: source.height, bands: bands) { _, rows in
                kernel.run(source: source.planes[0], destination: destination.planes[0], format: source.format,
                           width: source.width, height: source.height, rows: rows)
            }
        } else {
            let kernel: YUVPointKernel
            if let cached = yuvKernels[index], cached.0 == color {
                kernel = cached.1
            } else {
                kernel = YUVPointKernel(PointProgram(operations, color: color), color: color)
                yuvKernels[index] = (color, kernel)
            }
            guard !kernel.isIdentity else {
                if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
                return
            }
            kernel.prepare(width: source.width, height: source.height)
            let (rows, alignment) = kernel.rowCount(format: source.format, height: source.height)
            let bands = RowParallel.bands(threads: threads, rows: rows, samples: source.width * source.height * 2)
            RowParallel.run(rows: rows, bands: bands, alignment: alignment) { _, rows in
                kernel.run(source: source, destination: destination, rows: rows)
            }
        }
    }

    private func runSpatial(_ operation: SpatialOperation, _ source: Frame, _ destination: Frame) {
        let context = SpatialContext(scratch: scratch, threads: threads)
        switch operation {
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
        case .mirror:
            MirrorFlipKernel.mirror(source, destination, context)
        case .flip:
            MirrorFlipKernel.flip(source, destination, context)
        }
    }
}
