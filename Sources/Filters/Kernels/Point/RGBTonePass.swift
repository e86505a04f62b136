/// The packed RGB pass for a colour map of rank one: every matrix row a multiple of one row. Sepia at full intensity is
/// one (each channel a gain times the luma), and so is anything a matrix, an offset or a vignette does after sepia or
/// mono (the 3-chain `sepia | colorcontrols | vignette`, the 6-chain): one weighted sum per pixel, like libyuv's
/// ARGBSepia, then one multiply per colour byte, instead of RGBFixedKernel's nine.
///
/// Detected from the coefficients, not from the filter names. `M = g·kᵀ` with k's weights at least 0 and summing to 1
/// (the grey level then fits a 16-bit lane with 7 fraction bits) and the scale moved into the gains. Agrees with the
/// float pass within a code (ToneKernelTests); the row loops are ToneCore's, and `pixel` is the same arithmetic for the
/// tail of a row.
final class RGBTonePass {
    /// Q14 weight per memory byte (0 for alpha/padding).
    private let weights: SIMD4<Int32>
    /// The weights of bytes 0 and 2, and of 1 and 3, as 16-bit pairs for pmaddwd.
    private let even: Int32, odd: Int32
    /// Per memory byte: the Q14 gain of the grey level, the offset with 5 fraction bits (plus the rounding half when
    /// there is no vignette), and after a vignette the rounding half plus the offset of a map after it (4 fraction
    /// bits). The alpha/padding byte's are 0.
    private let gains: SIMD4<Int16>, offsets: SIMD4<Int16>, biases: SIMD4<Int16>
    private let keep: UInt32
    /// The portable kernel's constants as vectors (KernelSet.toneVectors).
    private let vectors: UnsafeMutableRawPointer
    let vignette: VignetteShape?
    /// The SIMD path its rows run on.
    private let kernels: KernelSet
    /// The vignette's column terms in the path's lane order (ToneCore.pixel(atLane:)), for the size last prepared.
    private var columns: UnsafeMutablePointer<Int16>?
    private var coefficient = 0.0
    private var preparedSize = (0, 0)

    /// nil unless `a`'s rows are multiples of one row and the values stay within the 16-bit lanes.
    init?(_ a: Affine3, vignette: VignetteShape?, offsetsAfterGain after: [Double], format: PixelFormat, kernels: KernelSet = .best) {
        guard format.isRGB, let (k, g) = Self.rankOne(a.m) else { return nil }
        let bytes = format.rgbOffsets
        let colourBytes = [bytes.r, bytes.g, bytes.b]
        var weights = SIMD4<Int32>.zero, gains = SIMD4<Int16>.zero, offsets = SIMD4<Int16>.zero, biases = SIMD4<Int16>.zero
        for channel in 0..<3 {
            let byte = colourBytes[channel], o = a.o[channel] * 255
            // |grey| ≤ 255, so |grey·g| + |o| ≤ 1020 codes keeps p (5 fraction bits) and p + o within Int16; a Q14
            // gain is below 2 (a brighter map after sepia, exposure +1 say, takes the 3×3 pass).
            guard 255 * abs(g[channel]) + abs(o) <= 1020, abs(after[channel] * 255) <= 1000,
                let weight = Int32(exactly: (k[channel] * 16384).rounded()),
                let gain = Int16(exactly: (g[channel] * 16384).rounded()),
                let offset = Int16(exactly: (o * 32).rounded() + (vignette == nil ? 16 : 0)),
                let bias = Int16(exactly: (after[channel] * 255 * 16).rounded() + 8)
            else { return nil }
            (weights[byte], gains[byte], offsets[byte], biases[byte]) = (weight, gain, offset, bias)
        }
        // The sum after >> 7 stays within 0...32767 for every byte value: no pack saturates.
        guard weights.wrappedSum() <= 16440 else { return nil }
        self.weights = weights
        self.gains = gains
        self.offsets = offsets
        self.biases = biases
        (even, odd) = weightPairs(weights)
        keep = UInt32(0xFF) << UInt32(bytes.a * 8)
        self.vignette = vignette
        self.kernels = kernels
        vectors = kernels.toneVectors(even: even, odd: odd, gains: gains, offsets: offsets, biases: biases)
    }

    /// `m = g·kᵀ` (row-major 3×3) with k's weights at least 0 and summing to 1; nil when the rows are not multiples of
    /// one row (to 10⁻⁹ of the largest coefficient) or the row has weights of both signs (such maps are rare, and with
    /// a grey level that is never negative every multiply of the portable kernels is a 16-bit one).
    static func rankOne(_ m: [Double]) -> (k: [Double], g: [Double])? {
        let rows = (0..<3).map { Array(m[(3 * $0)..<(3 * $0 + 3)]) }
        let weight: ([Double]) -> Double = { row in row.reduce(0) { $0 + abs($1) } }
        guard var basis = rows.max(by: { weight($0) < weight($1) }) else { return nil }
        let largest = basis.map(abs).max() ?? 0
        guard largest > 1e-9 else { return nil }
        if basis.reduce(0, +) < 0 { basis = basis.map { -$0 } }
        let norm = basis.reduce(0) { $0 + $1 * $1 }
        let g = rows.map { row in zip(row, basis).reduce(0) { $0 + $1.0 * $1.1 } / norm }
        for (row, gain) in zip(rows, g) where zip(row, basis).contains(where: { abs($0 - gain * $1) > 1e-9 * largest }) {
            return nil
        }
        guard basis.allSatisfy({ $0 >= -1e-9 * largest }) else { return nil }
        let scale = basis.reduce(0, +)
        return (basis.map { max($0, 0) / scale }, g.map { $0 * scale })
    }

    /// Tabulates the vignette's column terms for this frame size in the path's lane order; allocates only when the
    /// size changes.
    func prepare(width: Int, height: Int) {
        guard let vignette, preparedSize != (width, height) else { return }
        preparedSize = (width, height)
        columns?.deallocate()
        coefficient = vignette.coefficient(width: width, height: height)
        let step = kernels.table.toneStep
        columns = VignetteShape.columnTerms((width + step - 1) / step * step, k: coefficient) { [kernels] lane in
            Double(kernels.table.tonePixel(atLane: lane)) + 0.5 - Double(width) / 2
        }
    }

    deinit {
        columns?.deallocate()
        vectors.deallocate()
    }

    /// The vignette's row term for row `y`, Q15.
    private func rowTerm(_ y: Int, height: Int) -> Int16 {
        let dy = Double(y) + 0.5 - Double(height) / 2
        return q15(1 - coefficient * dy * dy)
    }

    /// The vignette's Q15 gain at pixel (x, y) as the row loops see it (the table's column term is the same
    /// expression for the same pixel); 0 without a vignette. After `prepare` for the frame's size.
    func gain(x: Int, y: Int, width: Int, height: Int) -> Int16 {
        vignette == nil ? 0 : gain(x: x, rowTerm: rowTerm(y, height: height), width: width)
    }

    /// `gain(x:y:…)` with the row's term already known.
    private func gain(x: Int, rowTerm: Int16, width: Int) -> Int16 {
        let dx = Double(x) + 0.5 - Double(width) / 2
        return max(rowTerm &- q15(coefficient * dx * dx), 0)
    }

    /// One pixel (four bytes, little-endian) with the vignette's Q15 gain `gain`: ToneCore's arithmetic.
    @inline(__always)
    func pixel(_ v: UInt32, gain: Int16) -> UInt32 {
        let b = SIMD4<Int32>(Int32(v & 0xFF), Int32(v >> 8 & 0xFF), Int32(v >> 16 & 0xFF), Int32(v >> 24))
        let h = Int16(clamping: (b &* weights).wrappedSum() &>> 7)
        @inline(__always) func mulHigh(_ a: Int16, _ b: Int16) -> Int16 { Int16(truncatingIfNeeded: (Int32(a) * Int32(b)) >> 16) }
        var out = v & keep
        for byte in 0..<4 where keep >> UInt32(8 * byte) & 0xFF == 0 {
            let p = mulHigh(h, gains[byte]) &+ offsets[byte]
            let c = vignette == nil ? p >> 5 : (mulHigh(p, gain) &+ biases[byte]) >> 4
            out |= UInt32(min(max(c, 0), 255)) << UInt32(8 * byte)
        }
        return out
    }

    /// On AVX-512, row `y`'s whole steps with every byte first through `table` (256 entries, each xored with 0x80): a
    /// table pass before this one done inside it, the same bytes. Returns how many pixels it did (0 elsewhere); `run`
    /// with `start` does the rest.
    func runThroughTable(
        _ table: UnsafePointer<UInt8>, source: UnsafeRawPointer, destination: UnsafeMutableRawPointer, width: Int, height: Int,
        row y: Int, mirrored: Bool
    ) -> Int {
        kernels.table.toneRow(
            source, destination, width: width, even: even, odd: odd, gains: gains, offsets: offsets, biases: biases,
            vectors: vectors, keep: keep, columns: vignette == nil ? nil : UnsafePointer(columns),
            row: vignette == nil ? 0 : rowTerm(y, height: height), mirrored: mirrored, throughTable: table)
    }

    /// Processes rows `rows` from `source` to `destination` (which may be the same memory unless `mirrored`: then pixel
    /// x of a row lands at `width − 1 − x`, and the rows must not overlap), from pixel `start` of each row (a whole
    /// number of `runThroughTable`'s steps).
    func run(source: Plane, destination: Plane, width: Int, height: Int, rows: Range<Int>, mirrored: Bool = false, start: Int = 0) {
        for y in rows {
            let src = source.base + y * source.stride, dst = destination.base + y * destination.stride
            let row = vignette == nil ? 0 : rowTerm(y, height: height)
            // From `start`: the row's rest as a row of its own (mirrored, its last pixel is still the row's first).
            var x =
                start
                + kernels.table.toneRow(
                    src + 4 * start, mirrored ? dst : dst + 4 * start, width: width - start, even: even, odd: odd, gains: gains,
                    offsets: offsets, biases: biases, vectors: vectors, keep: keep,
                    columns: vignette == nil ? nil : UnsafePointer(columns).map { $0 + start }, row: row, mirrored: mirrored)
            while x < width {
                let v = src.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self)
                let out = pixel(v, gain: vignette == nil ? 0 : gain(x: x, rowTerm: row, width: width))
                dst.storeBytes(of: out, toByteOffset: (mirrored ? width &- 1 &- x : x) &* 4, as: UInt32.self)
                x &+= 1
            }
        }
    }
}
