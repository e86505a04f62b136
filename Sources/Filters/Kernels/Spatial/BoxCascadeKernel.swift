/// Gaussian blur whose cost does not grow with σ: a cascade of extended box filters with running sums.
///
/// Each pass is an "extended box" (Gwosdek, Grewenig, Bruhn, Weickert 2011): a box of radius r plus
/// a fractional weight on the two samples at r + 1, so the cascade has exactly the Gaussian's variance
/// for any σ, not only for the σ an integer box width gives. Four passes per axis up to σ = 16,
/// six above (with four or five, σ = 30 on a small frame was 3 off in places). The edges are extended once, before the
/// first pass, by the whole cascade's reach (P = passes·(r + 1) samples), so the result matches a
/// Gaussian of the edge-extended frame, not a cascade of edge-extended boxes.
///
/// Accuracy (tested in `BoxCascadeTests` on a deterministic natural-looking frame: gradients, hard edges
/// of 210 levels and noise, σ from 2 to 50): every output byte is within 2 of the exact Gaussian
/// (sampled to ±4σ, double precision, rounded), and fewer than 1 byte in 20 differs by 2 (at most
/// 1 in 100 up to σ = 16).
///
/// Layout: both axes run the same 1-D cascade on vectors of 8 floats. Horizontally the 8 lanes are
/// 8/channels rows side by side (so the running sum along a row is 8 independent chains, not one
/// serial one); the result goes to a plane of UInt16 (value·256). Vertically a strip of 64 columns
/// (two 64-byte lines of that plane per row, ≈285 kB of floats at 1080p: it stays in L2) is loaded
/// with the padding rows, filtered in 8 lane groups, and written out as bytes, with the unsharp mask
/// fused into that last write for sharpen. Each cascade is one in-place sweep (`BoxCascadeCore`).
enum BoxCascadeKernel {
    typealias Box = BoxCascadeCore.Box

    /// The σ (in a view's own pixels) from which blur takes this kernel; below it the direct Q14
    /// kernel (at most 2·⌈3σ⌉ + 1 taps) is cheaper and matches the sampled Gaussian better.
    static let minimumSigma = 2.0

    /// Passes per axis for `sigma`.
    static func passes(sigma: Double) -> Int { sigma <= 16 ? 4 : 6 }

    /// The extended box whose `passes`-fold cascade has variance σ².
    static func box(sigma: Double, passes: Int) -> Box {
        let s2 = sigma * sigma / Double(passes)
        let r = max(0, Int((0.5 * (12 * s2 + 1).squareRoot() - 0.5).rounded(.down)))
        let rr = Double(r)
        let alpha = (2 * rr + 1) * (rr * (rr + 1) - 3 * s2) / (6 * (s2 - (rr + 1) * (rr + 1)))
        let d = 2 * alpha + 2 * rr + 1
        return Box(radius: r, inner: Float(1 / d), outer: Float(alpha / d))
    }

    /// Samples of one lane group per position.
    typealias Lanes = BoxCascadeCore.Lanes

    /// Columns per vertical strip.
    static let stripSamples = BoxCascadeCore.stripGroups * Lanes.scalarCount

    /// Blurs (amount nil) or sharpens one view.
    static func run(_ view: ChannelView, sigma: Double, amount: Float?, _ context: SpatialContext) {
        let n = passes(sigma: sigma)
        let horizontal = box(sigma: sigma / Double(view.subX), passes: n)
        let vertical = box(sigma: sigma / Double(view.subY), passes: n)
        if BoxCascadeFixedKernel.run(view, horizontal: horizontal, vertical: vertical, passes: n, amount: amount, context) { return }
        runFloat(view, horizontal: horizontal, vertical: vertical, passes: n, amount: amount, context)
    }

    /// `run` in float, whatever the view (the tests compare the 16-bit cascade with it).
    static func runFloat(_ view: ChannelView, horizontal: Box, vertical: Box, passes n: Int, amount: Float?, _ context: SpatialContext) {
        let ch = view.channels, samples = view.rowSamples
        let plane = context.scratch.buffer(SpatialContext.Slot.planeA.rawValue, bytes: samples * view.height * 2)
            .bindMemory(to: UInt16.self, capacity: samples * view.height)

        // Horizontal: groups of 8/ch rows, one lane per (row, channel).
        let group = 8 / ch
        let groups = (view.height + group - 1) / group
        let hPad = n * (horizontal.radius + 1)
        let hPositions = view.width + 2 * hPad
        let hScale = Lanes(repeating: 256 / gain(horizontal, passes: n))
        let hBands = context.bands(rows: groups, samples: samples * view.height)
        let hBuffers = context.perBand(.rowA, bands: hBands, bytes: 2 * hPositions * 32)
        let packed = context.perBand(.rowB, bands: hBands, bytes: samples * group)
        RowParallel.run(rows: groups, bands: hBands) { band, range in
            let a = (hBuffers.base + band * hBuffers.stride).bindMemory(to: Lanes.self, capacity: 2 * hPositions)
            let b = a + hPositions
            let copies = (packed.base + band * packed.stride).assumingMemoryBound(to: UInt8.self)
            for g in range {
                let first = g * group
                var rows: [UnsafePointer<UInt8>] = []
                rows.reserveCapacity(8)
                for k in 0..<group {
                    let y = min(first + k, view.height - 1)
                    rows.append(view.packedSourceRow(y, buffer: copies + k * samples))
                }
                switch ch {
                case 4: context.kernels.table.load4(rows[0], rows[1], width: view.width, into: a + hPad)
                case 2: load2(rows[0], rows[1], rows[2], rows[3], width: view.width, into: a + hPad)
                default: load1(rows, width: view.width, into: a + hPad, context.kernels)
                }
                for p in 0..<hPad {
                    a[p] = a[hPad]
                    a[hPad + view.width + p] = a[hPad + view.width - 1]
                }
                context.kernels.table.cascade(a, positions: hPositions, stride: 1, box: horizontal, passes: n)
                let result = a
                let count = min(group, view.height - first)
                switch ch {
                case 4:
                    context.kernels.table.store4(
                        result, width: view.width, scale: hScale, plane + first * samples, plane + (first + min(1, count - 1)) * samples)
                default:
                    // Lanes → UInt16 once per position, then each row picks its lanes.
                    let fixed = UnsafeMutableRawPointer(b).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<view.width {
                        let h = SIMD8<UInt16>(truncatingIfNeeded: BoxCascadeCore.rounded(result[x] * hScale))
                        UnsafeMutableRawPointer(fixed + 8 * x).storeBytes(of: h, as: SIMD8<UInt16>.self)
                    }
                    // Per channel count, so the strided copies have constant strides (a generic
                    // channel loop here cost 21 instructions per sample). Eight luma rows: 8×8 transposes
                    // for whole blocks of 8 positions first (the strided copy is 2 instructions a sample).
                    let transposed =
                        ch == 1 && count == 8
                        ? context.kernels.table.boxTransposeLanes(
                            fixed, width: view.width, into: plane + first * samples, rowStride: samples) : 0
                    for k in 0..<count {
                        let out = plane + (first + k) * samples
                        if ch == 1 {
                            let lane = fixed + k
                            for x in transposed..<view.width { out[x] = lane[8 * x] }
                        } else {
                            let lane = UnsafeRawPointer(fixed + 2 * k)
                            let pairs = UnsafeMutableRawPointer(out)
                            for x in 0..<view.width {
                                pairs.storeBytes(
                                    of: lane.load(fromByteOffset: 16 * x, as: UInt32.self), toByteOffset: 4 * x, as: UInt32.self)
                            }
                        }
                    }
                }
            }
        }

        // Vertical: strips of `stripSamples` columns through the same cascade, one lane group at a time.
        let strips = (samples + stripSamples - 1) / stripSamples
        let vPad = n * (vertical.radius + 1)
        let vPositions = view.height + 2 * vPad
        let groupsPerStrip = BoxCascadeCore.stripGroups
        let vBands = context.bands(rows: strips, samples: samples * view.height)
        let vBuffers = context.perBand(.rowC, bands: vBands, bytes: vPositions * stripSamples * 4)
        let rowBuffers = context.perBand(.planeB, bands: vBands, bytes: 2 * stripSamples)
        RowParallel.run(rows: strips, bands: vBands) { band, range in
            let a = (vBuffers.base + band * vBuffers.stride).bindMemory(to: Lanes.self, capacity: vPositions * groupsPerStrip)
            let bytes = (rowBuffers.base + band * rowBuffers.stride).assumingMemoryBound(to: UInt8.self)
            for strip in range {
                let x0 = strip * stripSamples
                let count = min(stripSamples, samples - x0)
                // Load the strip (value·256, rescaled at the end); padding rows repeat the first and last row.
                if count == stripSamples {
                    context.kernels.table.loadStrip(plane + x0, rowStride: samples, rows: view.height, into: a + vPad * groupsPerStrip)
                } else {
                    var padded = [UInt16](repeating: 0, count: stripSamples)
                    for y in 0..<view.height {
                        for i in 0..<count { padded[i] = plane[y * samples + x0 + i] }
                        padded.withUnsafeBufferPointer { p in
                            BoxCascadeCore.loadStrip(p.baseAddress!, rowStride: 0, rows: 1, into: a + (vPad + y) * groupsPerStrip)
                        }
                    }
                }
                for p in 0..<vPad {
                    for j in 0..<groupsPerStrip {
                        a[p * groupsPerStrip + j] = a[vPad * groupsPerStrip + j]
                        a[(vPad + view.height + p) * groupsPerStrip + j] = a[(vPad + view.height - 1) * groupsPerStrip + j]
                    }
                }
                for lanes in 0..<groupsPerStrip where lanes * Lanes.scalarCount < count {
                    context.kernels.table.cascade(a + lanes, positions: vPositions, stride: groupsPerStrip, box: vertical, passes: n)
                }
                let scale = Lanes(repeating: 1 / (256 * gain(vertical, passes: n)))
                if amount == nil && view.step == ch && count == stripSamples {
                    context.kernels.table.storeStrip(
                        a, rows: view.height, scale: scale, into: view.destinationRow(0) + x0, rowBytes: view.destinationStride)
                    continue
                }
                for y in 0..<view.height {
                    let blurred = a + y * groupsPerStrip
                    let direct = view.step == ch && count == stripSamples
                    let d = direct ? view.destinationRow(y) + x0 : bytes
                    if let amount {
                        let s: UnsafePointer<UInt8>
                        if direct {
                            s = UnsafePointer(view.sourceRow(y) + x0)
                        } else {
                            gatherSamples(view, row: y, from: x0, count: count, into: bytes + stripSamples)
                            s = UnsafePointer(bytes + stripSamples)
                        }
                        for j in 0..<groupsPerStrip {
                            let original = BoxCascadeCore.float(
                                SIMD8<UInt32>(truncatingIfNeeded: UnsafeRawPointer(s + j * 8).loadUnaligned(as: SIMD8<UInt8>.self)))
                            BoxCascadeCore.storeBytes(original + amount * (original - blurred[j] * scale), d + j * 8)
                        }
                    } else {
                        for j in 0..<groupsPerStrip { BoxCascadeCore.storeBytes(blurred[j] * scale, d + j * 8) }
                    }
                    if !direct { scatterSamples(view, row: y, from: x0, count: count, bytes) }
                }
            }
        }
    }

    @inline(__always)
    private static func load2(
        _ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, _ r2: UnsafePointer<UInt8>, _ r3: UnsafePointer<UInt8>,
        width: Int, into a: UnsafeMutablePointer<Lanes>
    ) {
        for x in 0..<width {
            var v = Lanes()
            for c in 0..<2 {
                v[c] = Float(bitPattern: 0x4B00_0000 | UInt32(r0[2 * x + c]))
                v[2 + c] = Float(bitPattern: 0x4B00_0000 | UInt32(r1[2 * x + c]))
                v[4 + c] = Float(bitPattern: 0x4B00_0000 | UInt32(r2[2 * x + c]))
                v[6 + c] = Float(bitPattern: 0x4B00_0000 | UInt32(r3[2 * x + c]))
            }
            a[x] = v - Lanes(repeating: 8_388_608)
        }
    }

    @inline(__always)
    private static func load1(_ rows: [UnsafePointer<UInt8>], width: Int, into a: UnsafeMutablePointer<Lanes>, _ kernels: KernelSet) {
        let (r0, r1, r2, r3, r4, r5, r6, r7) = (rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7])
        let start = kernels.table.boxColumns(rows, width: width, into: a)
        for x in start..<width {
            var b = SIMD8<UInt32>()
            b[0] = UInt32(r0[x]); b[1] = UInt32(r1[x]); b[2] = UInt32(r2[x]); b[3] = UInt32(r3[x])
            b[4] = UInt32(r4[x]); b[5] = UInt32(r5[x]); b[6] = UInt32(r6[x]); b[7] = UInt32(r7[x])
            var v = Lanes()
            for i in 0..<8 { v[i] = Float(bitPattern: 0x4B00_0000 | b[i]) }
            a[x] = v - Lanes(repeating: 8_388_608)
        }
    }

    /// What `cascade` multiplies the blur by.
    static func gain(_ box: Box, passes: Int) -> Float {
        var g: Float = 1
        for _ in 0..<passes { g /= box.inner }
        return g
    }

    private static func gatherSamples(_ view: ChannelView, row y: Int, from x0: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) {
        let s = view.sourceRow(y)
        for i in 0..<count {
            let sample = x0 + i
            buffer[i] = s[sample / view.channels * view.step + sample % view.channels]
        }
    }

    private static func scatterSamples(_ view: ChannelView, row y: Int, from x0: Int, count: Int, _ buffer: UnsafePointer<UInt8>) {
        let d = view.destinationRow(y)
        for i in 0..<count {
            let sample = x0 + i
            d[sample / view.channels * view.step + sample % view.channels] = buffer[i]
        }
    }
}
