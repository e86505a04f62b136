#if canImport(_Builtin_intrinsics.intel)
import _Builtin_intrinsics.intel
#endif
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
        // +16: the 8-sample loads of the last taps read up to 7 bytes past the padded row.
        let padded = context.perBand(.rowA, bands: bands, bytes: (view.width + 2 * hr) * ch + 16)
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
                    let out = plane + y * samples
                    let done = horizontalVectors(p, taps: hw, channels: ch, samples: samples, into: out)
                    (acc + done).update(repeating: 32, count: samples - done)
                    for k in 0..<hw.count {
                        let w = hw[k], tap = p + k * ch
                        for i in done..<samples { acc[i] &+= Int32(w) &* Int32(tap[i]) }
                    }
                    for i in done..<samples { out[i] = UInt16(truncatingIfNeeded: acc[i] &>> 6) }
                }
            }
        }
        vertical.withUnsafeBufferPointer { vw in
            RowParallel.run(rows: view.height, bands: bands) { band, rows in
                let acc = (accumulators.base + band * accumulators.stride).assumingMemoryBound(to: Int32.self)
                let out = (packed.base + band * packed.stride).assumingMemoryBound(to: UInt8.self)
                let original = out + samples
                for y in rows {
                    let done = verticalVectors(plane, taps: vw, row: y, height: view.height, samples: samples, into: acc)
                    (acc + done).update(repeating: 1 << 21, count: samples - done)
                    for k in 0..<vw.count {
                        let w = vw[k]
                        let row = plane + min(max(y - vr + k, 0), view.height - 1) * samples
                        for i in done..<samples { acc[i] &+= Int32(w) &* Int32(row[i]) }
                    }
                    if let amount {
                        view.gather(row: y, into: original)
                        for i in sharpenVectors(original, acc, amount: amount, samples: samples, into: out)..<samples {
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

    // SSE2 intrinsics for the two accumulation loops: taps in pairs through pmaddwd, 8 samples at a
    // time, the same integer sums as the scalar loops (which finish the last < 8 samples of a row).
    // On the AVX2 path GaussianCore does whole groups of 16 first.
    // The lane loops compiled to widening multiplies at about 16 instructions per sample and tap pair.

    /// Horizontal: out[i] = (32 + Σ w_k·p[i + k·ch]) >> 6 for whole groups of 8 samples; returns how many were done.
    @inline(__always)
    private static func horizontalVectors(_ p: UnsafePointer<UInt8>, taps: UnsafeBufferPointer<UInt16>, channels ch: Int,
                                          samples: Int, into out: UnsafeMutablePointer<UInt16>) -> Int {
        #if canImport(_Builtin_intrinsics.intel)
        let zero = _mm_setzero_si128(), flip = _mm_set1_epi16(Int16(bitPattern: 0x8000))
        let rounding = _mm_set1_epi32(32), recentre = _mm_set1_epi32(32768)
        @inline(__always) func widened(_ at: UnsafePointer<UInt8>) -> __m128i {
            _mm_unpacklo_epi8(_mm_loadl_epi64(UnsafeRawPointer(at).assumingMemoryBound(to: __m128i.self)), zero)
        }
        var i = SIMDPath.gaussianHorizontal(p, taps: taps, channels: ch, samples: samples, into: out)
        while i + 8 <= samples {
            var lo = rounding, hi = rounding
            var k = 0
            while k < taps.count {
                let a = widened(p + i + k * ch)
                let b = k + 1 < taps.count ? widened(p + i + (k + 1) * ch) : zero
                let next = k + 1 < taps.count ? Int32(taps[k + 1]) : 0
                let pair = _mm_set1_epi32(next << 16 | Int32(taps[k]))
                lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), pair))
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), pair))
                k += 2
            }
            // ≤ 65280 after the shift: recentred to signed for packssdw, then back.
            let lo16 = _mm_sub_epi32(_mm_srli_epi32(lo, 6), recentre), hi16 = _mm_sub_epi32(_mm_srli_epi32(hi, 6), recentre)
            _mm_storeu_si128(UnsafeMutableRawPointer(out + i).assumingMemoryBound(to: __m128i.self),
                             _mm_xor_si128(_mm_packs_epi32(lo16, hi16), flip))
            i += 8
        }
        return i
        #else
        return 0
        #endif
    }

    /// Vertical: acc[i] = 2²¹ + Σ w_k·row(y − r + k)[i] (rows clamped) for whole groups of 8; returns how many were done.
    /// The Q8 samples (≤ 65280) are centred to signed 16 bits for pmaddwd: Σ w·v = Σ w·(v − 2¹⁵) + 2¹⁵·2¹⁴.
    @inline(__always)
    private static func verticalVectors(_ plane: UnsafePointer<UInt16>, taps: UnsafeBufferPointer<UInt16>, row y: Int, height: Int,
                                        samples: Int, into acc: UnsafeMutablePointer<Int32>) -> Int {
        #if canImport(_Builtin_intrinsics.intel)
        let r = taps.count / 2
        let flip = _mm_set1_epi16(Int16(bitPattern: 0x8000))
        let start = _mm_set1_epi32((1 << 21) + (1 << 29))
        return withUnsafeTemporaryAllocation(of: UnsafePointer<UInt16>.self, capacity: taps.count) { rows in
        for k in 0..<taps.count { rows[k] = plane + min(max(y - r + k, 0), height - 1) * samples }
        @inline(__always) func rowPointer(_ k: Int) -> UnsafePointer<UInt16> { rows[k] }
        var i = SIMDPath.gaussianVertical(UnsafePointer(rows.baseAddress!), taps: taps, samples: samples, into: acc)
        while i + 8 <= samples {
            var lo = start, hi = start
            var k = 0
            while k < taps.count {
                let a = _mm_xor_si128(_mm_loadu_si128(UnsafeRawPointer(rowPointer(k) + i).assumingMemoryBound(to: __m128i.self)), flip)
                let b = k + 1 < taps.count
                    ? _mm_xor_si128(_mm_loadu_si128(UnsafeRawPointer(rowPointer(k + 1) + i).assumingMemoryBound(to: __m128i.self)), flip)
                    : _mm_setzero_si128()
                let next = k + 1 < taps.count ? Int32(taps[k + 1]) : 0
                let pair = _mm_set1_epi32(next << 16 | Int32(taps[k]))
                lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), pair))
                hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), pair))
                k += 2
            }
            _mm_storeu_si128(UnsafeMutableRawPointer(acc + i).assumingMemoryBound(to: __m128i.self), lo)
            _mm_storeu_si128(UnsafeMutableRawPointer(acc + i + 4).assumingMemoryBound(to: __m128i.self), hi)
            i += 8
        }
        return i
        }
        #else
        return 0
        #endif
    }

    /// Sharpen's last step for whole groups of 8: clampByte(s + amount·(s − blurred)) with the scalar
    /// loop's exact float operations and rounding (clamp, + 0.5, truncate); returns how many were done.
    @inline(__always)
    private static func sharpenVectors(_ original: UnsafePointer<UInt8>, _ acc: UnsafePointer<Int32>, amount: Float, samples: Int,
                                       into out: UnsafeMutablePointer<UInt8>) -> Int {
        #if canImport(_Builtin_intrinsics.intel)
        let zero = _mm_setzero_si128(), zeroF = _mm_setzero_ps()
        let gain = _mm_set1_ps(amount), scale = _mm_set1_ps(1 / 4_194_304), top = _mm_set1_ps(255), half = _mm_set1_ps(0.5)
        let bias = _mm_set1_epi32(1 << 21)
        @inline(__always) func one(_ s: __m128i, _ a: __m128i) -> __m128i {
            let sf = _mm_cvtepi32_ps(s)
            let blurred = _mm_mul_ps(_mm_cvtepi32_ps(_mm_sub_epi32(a, bias)), scale)
            let v = _mm_add_ps(sf, _mm_mul_ps(gain, _mm_sub_ps(sf, blurred)))
            return _mm_cvttps_epi32(_mm_add_ps(_mm_min_ps(_mm_max_ps(v, zeroF), top), half))
        }
        var i = 0
        while i + 8 <= samples {
            let bytes = _mm_unpacklo_epi8(_mm_loadl_epi64(UnsafeRawPointer(original + i).assumingMemoryBound(to: __m128i.self)), zero)
            let lo = one(_mm_unpacklo_epi16(bytes, zero), _mm_loadu_si128(UnsafeRawPointer(acc + i).assumingMemoryBound(to: __m128i.self)))
            let hi = one(_mm_unpackhi_epi16(bytes, zero), _mm_loadu_si128(UnsafeRawPointer(acc + i + 4).assumingMemoryBound(to: __m128i.self)))
            _mm_storel_epi64(UnsafeMutableRawPointer(out + i).assumingMemoryBound(to: __m128i.self),
                             _mm_packus_epi16(_mm_packs_epi32(lo, hi), zero))
            i += 8
        }
        return i
        #else
        return 0
        #endif
    }
}
