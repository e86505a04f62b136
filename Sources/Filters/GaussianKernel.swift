#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Separable Gaussian in fixed point, used by blur (plain) and sharpen (unsharp mask) below
/// `BoxCascadeKernel.minimumSigma`; from there on the box cascade, whose cost does not grow with σ.
///
/// Weights are Q14 and sum to exactly 16384, so a constant frame stays exactly constant. The
/// horizontal pass writes Q8 UInt16 samples to a plane of scratch; the vertical pass accumulates
/// Int32 over contiguous rows (the loop the compiler vectorizes) and rounds once. Edges are extended.
enum GaussianKernel {
    /// Q14 weights of a Gaussian with standard deviation `sigma` pixels, 2r+1 taps (r = ⌈3σ⌉, at least 1).
    static func weights(sigma: Double) -> [Int32] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (-r...r).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        var q = raw.map { Int32(($0 / total * 16384).rounded()) }
        q[r] += 16384 - q.reduce(0, +)
        return q
    }

    /// Blurs (amount nil) or sharpens every view of the frame pair.
    static func run(_ source: Frame, _ destination: Frame, sigma: Double, sharpenAmount: Double?, _ context: SpatialContext) {
        guard sigma >= 0.05 else {
            if !source.isSameMemory(as: destination) { source.copyPlanes(to: destination) }
            return
        }
        for view in ChannelView.views(source: source, destination: destination) {
            if min(sigma / Double(view.subX), sigma / Double(view.subY)) >= BoxCascadeKernel.minimumSigma {
                BoxCascadeKernel.run(view, sigma: sigma, amount: sharpenAmount.map(Float.init), context)
                continue
            }
            // UInt16 weights: with both factors known to fit 16 bits, LLVM multiplies with
            // pmullw/pmulhuw instead of emulating 32-bit pmulld on SSE2 (seen in perf annotate).
            let horizontal = weights(sigma: sigma / Double(view.subX)).map { UInt16(truncatingIfNeeded: $0) }
            let vertical = weights(sigma: sigma / Double(view.subY)).map { UInt16(truncatingIfNeeded: $0) }
            run(view, horizontal, vertical, sharpenAmount.map(Float.init), context)
        }
    }

    private static func run(_ view: ChannelView, _ horizontal: [UInt16], _ vertical: [UInt16], _ amount: Float?, _ context: SpatialContext) {
        let ch = view.channels, samples = view.rowSamples
        let hr = horizontal.count / 2, vr = vertical.count / 2
        let bands = context.bands(rows: view.height, samples: samples * view.height)
        let plane = context.scratch.buffer(SpatialContext.Slot.planeA.rawValue, bytes: samples * view.height * 2)
            .bindMemory(to: UInt16.self, capacity: samples * view.height)
        let padded = context.perBand(.rowA, bands: bands, bytes: (view.width + 2 * hr) * ch)
        let accumulators = context.perBand(.rowB, bands: bands, bytes: samples * 4)
        let packed = context.perBand(.rowC, bands: bands, bytes: samples * 2)

        horizontal.withUnsafeBufferPointer { hw in
            RowParallel.run(rows: view.height, bands: bands) { band, rows in
                let p = (padded.base + band * padded.stride).assumingMemoryBound(to: UInt8.self)
                let acc = (accumulators.base + band * accumulators.stride).assumingMemoryBound(to: Int32.self)
                for y in rows {
                    view.gather(row: y, into: p + hr * ch)
                    for k in 0..<hr {
                        for c in 0..<ch {
                            p[k * ch + c] = p[hr * ch + c]
                            p[(hr + view.width + k) * ch + c] = p[(hr + view.width - 1) * ch + c]
                        }
                    }
                    acc.update(repeating: 32, count: samples)
                    for k in 0..<hw.count {
                        let w = hw[k], tap = p + k * ch
                        for i in 0..<samples { acc[i] &+= Int32(w) &* Int32(tap[i]) }
                    }
                    let out = plane + y * samples
                    for i in 0..<samples { out[i] = UInt16(truncatingIfNeeded: acc[i] &>> 6) }
                }
            }
        }
        vertical.withUnsafeBufferPointer { vw in
            RowParallel.run(rows: view.height, bands: bands) { band, rows in
                let acc = (accumulators.base + band * accumulators.stride).assumingMemoryBound(to: Int32.self)
                let out = (packed.base + band * packed.stride).assumingMemoryBound(to: UInt8.self)
                let original = out + samples
                for y in rows {
                    acc.update(repeating: 1 << 21, count: samples)
                    for k in 0..<vw.count {
                        let w = vw[k]
                        let row = plane + min(max(y - vr + k, 0), view.height - 1) * samples
                        for i in 0..<samples { acc[i] &+= Int32(w) &* Int32(row[i]) }
                    }
                    if let amount {
                        view.gather(row: y, into: original)
                        for i in 0..<samples {
                            let s = Float(original[i])
                            let blurred = Float(acc[i] &- (1 << 21)) * (1 / 4_194_304)
                            out[i] = clampByte(s + amount * (s - blurred))
                        }
                    } else {
                        for i in 0..<samples { out[i] = UInt8(truncatingIfNeeded: acc[i] &>> 22) }
                    }
                    view.scatter(row: y, from: out)
                }
            }
        }
    }
}
