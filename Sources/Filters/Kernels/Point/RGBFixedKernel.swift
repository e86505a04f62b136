/// The fused point pass for packed RGB when the program is one affine map and/or a vignette
/// (and a map after it), in 16-bit fixed point: eight pixels per step.
///
/// The three colour bytes of eight pixels are split into 16-bit lanes as `(b − 128)·256` (shifts
/// and masks in 32-bit lanes; lane 2j holds pixel j, lane 2j + 1 pixel 4 + j, so no pack or shuffle
/// is needed on the way in or out), the 3×3 matrix is nine pmulhw with Q12 coefficients (4
/// fraction bits out), the offset one add per channel; then the optional Q15 vignette gain
/// `max(0, row term − column term)` (column terms tabulated once per size), rounding (with the
/// offset of a map after the gain: `M·(g·(A·x + b)) + c = g·(M·A·x + M·b) + c`), and the
/// re-interleave in 16/32-bit lanes: pmaxsw/pminsw clamps, psllw/por, punpcklwd; alpha/padding is
/// copied through. (Written as byte shuffles of packuswb output, the re-interleave lowered to long
/// pextrw/pand/por chains and made this pass slower than the float kernel.)
///
/// Checked with `swiftc -O -emit-assembly` and callgrind: no calls or per-lane branches in the loop.
/// A first version paired bytes for pmaddwd; LLVM saw the masked lanes' zero high bits, widened
/// them to 32 bits and multiplied with pmuludq, and its 32-bit clamps became scalar loops.
/// `init` refuses coefficients of 8 or more and programs whose values could exceed ±1800 codes,
/// which run the float kernel. Agrees with the float kernel within 1 code (FixedKernelTests).
final class RGBFixedKernel {
    private struct Constants {
        var keep: SIMD4<UInt32>
        /// Rows of the matrix on memory bytes, Q12: output colour byte j, input colour byte i at `m[3j + i]`.
        var m: (I16x8, I16x8, I16x8, I16x8, I16x8, I16x8, I16x8, I16x8, I16x8)
        /// Offsets with 4 fraction bits, including the 128·Σc that re-centres the inputs.
        var o: (I16x8, I16x8, I16x8)
        /// Per colour byte: rounding after the gain, plus the offset of a map after it (3 fraction bits).
        var bias: (I16x8, I16x8, I16x8)
        /// Zero, loaded at run time: with a literal zero in `max(0, row − column)` LLVM knew the
        /// gain's sign bit and lowered its pmulhw to unpack/pmaddwd/psrad/packssdw (9 instructions).
        var floor: I16x8
        /// 0x0000_FF00 and 0xFF00_0000 per 32-bit lane, also loaded at run time: with literal masks
        /// LLVM turned the byte extraction into pextrw/shufps/punpck shuffles.
        var byte1: SIMD4<UInt32>
        var byte3: SIMD4<UInt32>
        /// 0x8000 per 16-bit lane: the xor that makes a byte in the high half `(b − 128)·256`.
        var centre: I16x8
    }

    private let constants: Constants
    /// The matrix (9) and offsets (6) as scalars (offsets with the rounding bias when there is no gain, then
    /// the three biases after a gain), for the 16- and 32-pixel blocks: kept in one allocation, so a row's call
    /// passes two pointers (arrays cost a retain and release each, every row: ~10 % of the RGBA 6-chain).
    private let m: UnsafeMutablePointer<Int16>, o: UnsafeMutablePointer<Int16>
    private let keep: UInt32
    /// The program is exactly invert: every colour byte b becomes 255 − b, which the block gives exactly
    /// (−(b − 128)·16 + 127.5·16, floored, over 16), so one xor does it (a memcpy's cost, not the matrix).
    private let invertsOnly: Bool
    /// The alpha/padding byte is byte 0 (ARGB, xRGB) rather than byte 3.
    private let passFirst: Bool
    let gain: VignetteShape?
    /// The one-sum pass when the matrix's rows are equal and there is no vignette (mono).
    private let grey: RGBGreyPass?
    /// The one-sum pass with a gain per colour byte when the rows are multiples of one row (sepia, and what follows it).
    private let tone: RGBTonePass?
    /// The SIMD path its rows run on.
    private let kernels: KernelSet
    private var columns: UnsafeMutablePointer<Int16>?
    private var coefficient = 0.0
    private var preparedSize = (0, 0)

    init?(_ program: PointProgram, format: PixelFormat, kernels: KernelSet = .best) {
        guard let (a, shape, after) = PointProgram.foldAffine(program.steps[...]) else { return nil }
        guard format.isRGB else { return nil }
        gain = shape
        let offsets = format.rgbOffsets
        passFirst = offsets.a == 0
        // Per memory byte: which colour channel it holds (nil for alpha/padding).
        var channelAt: [Int?] = [nil, nil, nil, nil]
        channelAt[offsets.r] = 0; channelAt[offsets.g] = 1; channelAt[offsets.b] = 2
        let colourBytes = (0..<4).filter { channelAt[$0] != nil }
        var m: [Int16] = [], o: [Int16] = [], biases: [Int16] = []
        for outByte in colourBytes {
            let row = channelAt[outByte]!
            var worst = 0.0, sum = 0.0
            for inByte in colourBytes {
                let c = a.m[row * 3 + channelAt[inByte]!]
                guard let q = fixed(c, bits: 12) else { return nil }
                m.append(q)
                worst += abs(c) * 128
                sum += c
            }
            // Σ c·b + o = Σ c·(b − 128) + (o + 128·Σ c).
            let offset = a.o[row] * 255 + 128 * sum
            worst += abs(offset)
            // After the gain: 3 fraction bits, 1800·8 plus this stays in Int16.
            let post = after[row] * 255
            guard worst <= 1800, abs(post) <= 2000, let q = fixed(offset, bits: 4), let b = fixed(post, bits: 3) else { return nil }
            o.append(q)
            biases.append(b &+ 4)
        }
        constants = Self.constants(passFirst: passFirst, alphaShift: UInt32(offsets.a * 8), m: m, o: o, biases: biases, gain: shape != nil)
        let scalars = m + o.map { $0 &+ (shape != nil ? 0 : 8) } + biases
        invertsOnly = shape == nil && scalars[..<12] == [-4096, 0, 0, 0, -4096, 0, 0, 0, -4096, 2040, 2040, 2040]
        self.m = .allocate(capacity: scalars.count)
        self.m.initialize(from: scalars, count: scalars.count)
        self.o = self.m + 9
        keep = UInt32(0xFF) << UInt32(offsets.a * 8)
        grey = shape == nil ? RGBGreyPass(a, format: format, kernels: kernels) : nil
        // On every path, so every path gives the same bytes (on AVX-512 a table before it then stays a pass of its own).
        tone = grey == nil ? RGBTonePass(a, vignette: shape, offsetsAfterGain: after, format: format, kernels: kernels) : nil
        self.kernels = kernels
    }

    @inline(never)
    private static func constants(passFirst: Bool, alphaShift: UInt32, m: [Int16], o: [Int16], biases: [Int16], gain: Bool) -> Constants {
        func splat(_ v: Int16) -> I16x8 { I16x8(repeating: v) }
        return Constants(
            keep: SIMD4(repeating: UInt32(0xFF) << alphaShift),
            m: (splat(m[0]), splat(m[1]), splat(m[2]), splat(m[3]), splat(m[4]), splat(m[5]), splat(m[6]), splat(m[7]), splat(m[8])),
            // Without a gain the rounding bias (8, half of 4 fraction bits) is added with the offsets.
            o: (splat(o[0] &+ (gain ? 0 : 8)), splat(o[1] &+ (gain ? 0 : 8)), splat(o[2] &+ (gain ? 0 : 8))),
            bias: (splat(biases[0]), splat(biases[1]), splat(biases[2])), floor: splat(0), byte1: SIMD4(repeating: 0xFF00),
            byte3: SIMD4(repeating: 0xFF00_0000),
            centre: splat(Int16.min))
    }

    deinit {
        columns?.deallocate()
        m.deallocate()
    }

    /// Tabulates the vignette's column terms for this frame size; allocates only when the size changes.
    func prepare(width: Int, height: Int) {
        tone?.prepare(width: width, height: height)
        guard let gain, preparedSize != (width, height) else { return }
        preparedSize = (width, height)
        columns?.deallocate()
        let k = gain.coefficient(width: width, height: height)
        coefficient = k
        // In the kernel's lane order: within each block of eight, lane 2j is pixel j, lane 2j + 1 pixel 4 + j.
        let centre = Double(width) / 2
        columns = VignetteShape.columnTerms((width + 7) / 8 * 8 + 8, k: k) { (i: Int) -> Double in
            let lane = i % 8
            let pixel: Int = i - lane + (lane % 2 == 0 ? lane / 2 : 4 + lane / 2)
            return Double(pixel) + 0.5 - centre
        }
    }

    /// Processes rows `rows` from `source` to `destination` (which may be the same memory, unless
    /// `mirrored`: then pixel x of a row lands at `width − 1 − x`, and the rows must not overlap).
    /// `start` > 0 (after `runThroughTable` did that many pixels of each row, a multiple of 32): the pixels from there;
    /// only where `runsThroughTables` (the grey pass and the xor take whole rows; RGBTableKernel, the one caller with a
    /// `start`, asks only then).
    func run(source: Plane, destination: Plane, width: Int, height: Int, rows: Range<Int>, mirrored: Bool = false, start: Int = 0) {
        if let tone {
            tone.run(source: source, destination: destination, width: width, height: height, rows: rows, mirrored: mirrored, start: start)
            return
        }
        if let grey {
            grey.run(source: source, destination: destination, width: width, rows: rows)
            // Mirrored (rare: RGBTableKernel asks only when `storesMirrored`), each row is reversed where it is.
            if mirrored {
                for y in rows { Self.reverseInPlace(destination.base + y * destination.stride, width) }
            }
            return
        }
        if invertsOnly && !mirrored {
            invert(source, destination, width, rows)
            return
        }
        switch (gain != nil, passFirst) {
        case (false, false): run(source, destination, width, height, rows, mirrored, start, Off.self, Off.self)
        case (false, true): run(source, destination, width, height, rows, mirrored, start, Off.self, On.self)
        case (true, false): run(source, destination, width, height, rows, mirrored, start, On.self, Off.self)
        case (true, true): run(source, destination, width, height, rows, mirrored, start, On.self, On.self)
        }
    }

    /// True when `runThroughTable` does pixels: on AVX-512 where the kernel set `fusesTables`, when this kernel is the 3×3
    /// pass or the tone pass (not the grey pass or the xor).
    var runsThroughTables: Bool { kernels.path == .avx512 && kernels.fusesTables && grey == nil && !invertsOnly }

    /// On AVX-512, row `y`'s whole groups of 32 pixels with every colour byte first through `table` (256 entries,
    /// each xored with 0x80): a table pass before this one (gamma in the 6-chain) done inside it, the same bytes.
    /// Returns how many pixels it did (0 unless `runsThroughTables`); `run(start:)` does the rest. Mirrored, the
    /// source row must not be the destination row (the stores would overwrite pixels not yet read).
    func runThroughTable(
        _ table: UnsafePointer<UInt8>, source: UnsafeRawPointer, destination: UnsafeMutableRawPointer,
        width: Int, height: Int, row y: Int, mirrored: Bool
    ) -> Int {
        guard runsThroughTables else { return 0 }
        if let tone {
            return tone.runThroughTable(
                table, source: source, destination: destination, width: width, height: height, row: y, mirrored: mirrored)
        }
        let columns = gain == nil ? nil : UnsafePointer(self.columns ?? UnsafeMutablePointer(bitPattern: 64)!)
        return kernels.table.rgbFixedRow(
            source, destination, width: width, m: m, o: o, passFirst: passFirst, columns: columns,
            row: rowTerm(y, height: height), mirrored: mirrored, throughTable: table)
    }

    /// The vignette's row term for row `y`, Q15.
    private func rowTerm(_ y: Int, height: Int) -> Int16 {
        let dy = Double(y) + 0.5 - Double(height) / 2
        return q15(1 - coefficient * dy * dy)
    }

    /// True when the rows go through the tone pass (tests).
    var usesTonePass: Bool { tone != nil }

    /// True when mirrored stores cost nothing extra (the 3×3 core and the tone pass); the grey pass reverses its rows afterwards.
    var storesMirrored: Bool { grey == nil }

    private static func reverseInPlace(_ row: UnsafeMutableRawPointer, _ width: Int) {
        var i = 0, j = width - 1
        while i < j {
            let a = row.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self), b = row.loadUnaligned(fromByteOffset: 4 * j, as: UInt32.self)
            row.storeBytes(of: b, toByteOffset: 4 * i, as: UInt32.self)
            row.storeBytes(of: a, toByteOffset: 4 * j, as: UInt32.self)
            i += 1
            j -= 1
        }
    }

    private func invert(_ source: Plane, _ destination: Plane, _ width: Int, _ rows: Range<Int>) {
        let flip = SIMD8<UInt32>(repeating: ~keep)
        for y in rows {
            let src = source.base + y * source.stride, dst = destination.base + y * destination.stride
            var x = 0
            while x &+ 8 <= width {
                dst.storeBytes(
                    of: src.loadUnaligned(fromByteOffset: x &* 4, as: SIMD8<UInt32>.self) ^ flip, toByteOffset: x &* 4,
                    as: SIMD8<UInt32>.self)
                x &+= 8
            }
            while x < width {
                dst.storeBytes(
                    of: src.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self) ^ ~keep, toByteOffset: x &* 4, as: UInt32.self)
                x &+= 1
            }
        }
    }

    private func run<Gain: Flag, PassFirst: Flag>(
        _ source: Plane, _ destination: Plane, _ width: Int, _ height: Int,
        _ rows: Range<Int>, _ mirrored: Bool, _ start: Int, _: Gain.Type, _: PassFirst.Type
    ) {
        let columns = self.columns ?? UnsafeMutablePointer(bitPattern: 64)!
        withUnsafePointer(to: constants) { c in
            for y in rows {
                let src = source.base + y * source.stride
                let dst = destination.base + y * destination.stride
                let rowTerm = rowTerm(y, height: height)
                let row = I16x8(repeating: rowTerm)
                // On the AVX2 and AVX-512 paths whole groups of 16 or 32 pixels first; this loop finishes the row.
                var x =
                    start > 0
                    ? start
                    : kernels.table.rgbFixedRow(
                        UnsafeRawPointer(src), dst, width: width, m: UnsafePointer(m), o: UnsafePointer(o), keep: keep,
                        passFirst: PassFirst.on, columns: Gain.on ? UnsafePointer(columns) : nil, row: rowTerm,
                        mirrored: mirrored)
                @inline(__always) func reversed(_ v: SIMD4<UInt32>) -> SIMD4<UInt32> { SIMD4(v[3], v[2], v[1], v[0]) }
                while x &+ 8 <= width {
                    let v0 = src.loadUnaligned(fromByteOffset: x &* 4, as: SIMD4<UInt32>.self)
                    let v1 = src.loadUnaligned(fromByteOffset: x &* 4 &+ 16, as: SIMD4<UInt32>.self)
                    let out = Self.block(v0, v1, c, columns + x, row, Gain.self, PassFirst.self)
                    if mirrored {
                        dst.storeBytes(of: reversed(out.0), toByteOffset: (width &- x &- 4) &* 4, as: SIMD4<UInt32>.self)
                        dst.storeBytes(of: reversed(out.1), toByteOffset: (width &- x &- 8) &* 4, as: SIMD4<UInt32>.self)
                    } else {
                        dst.storeBytes(of: out.0, toByteOffset: x &* 4, as: SIMD4<UInt32>.self)
                        dst.storeBytes(of: out.1, toByteOffset: x &* 4 &+ 16, as: SIMD4<UInt32>.self)
                    }
                    x &+= 8
                }
                if x < width {
                    let count = width - x
                    var tail = (SIMD4<UInt32>.zero, SIMD4<UInt32>.zero)
                    withUnsafeMutableBytes(of: &tail) { $0.baseAddress!.copyMemory(from: src + x * 4, byteCount: count * 4) }
                    let out = Self.block(tail.0, tail.1, c, columns + x, row, Gain.self, PassFirst.self)
                    withUnsafeBytes(of: out) { pixels in
                        guard mirrored else {
                            (dst + x * 4).copyMemory(from: pixels.baseAddress!, byteCount: count * 4)
                            return
                        }
                        for i in 0..<count { (dst + (width - 1 - x - i) * 4).copyMemory(from: pixels.baseAddress! + 4 * i, byteCount: 4) }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func block<Gain: Flag, PassFirst: Flag>(
        _ v0: SIMD4<UInt32>, _ v1: SIMD4<UInt32>, _ c: UnsafePointer<Constants>, _ columns: UnsafeMutablePointer<Int16>,
        _ row: I16x8, _: Gain.Type, _: PassFirst.Type
    ) -> (SIMD4<UInt32>, SIMD4<UInt32>) {
        let k = c.pointee
        // Byte n of each pixel as (b − 128)·256 in a 16-bit lane, with no pack or shuffle: pixel j
        // of `v0` in the low half of 32-bit lane j, pixel j of `v1` in the high half (shifts and
        // masks in 32-bit lanes, then one por). Lane 2j is pixel j, lane 2j + 1 is pixel 4 + j.
        let x0 = v0, x1 = v1
        @inline(__always) func plane(_ byte: UInt32) -> I16x8 {
            let a = byte == 0 ? x0 &<< 8 : x0 &>> (8 * byte - 8)
            let b = byte == 3 ? x1 : x1 &<< (24 - 8 * byte)
            // The centring xor is loaded at run time: that also hides the 32-bit structure from the
            // pmulhw match, which otherwise unpacked, sign-extended and re-packed two of the planes.
            return unsafeBitCast((a & k.byte1) | (b & k.byte3), to: I16x8.self) ^ k.centre
        }
        let first: UInt32 = PassFirst.on ? 1 : 0
        let b0 = plane(first), b1 = plane(first + 1), b2 = plane(first + 2)
        var p0 = mulHigh(b0, k.m.0) &+ mulHigh(b1, k.m.1) &+ mulHigh(b2, k.m.2) &+ k.o.0
        var p1 = mulHigh(b0, k.m.3) &+ mulHigh(b1, k.m.4) &+ mulHigh(b2, k.m.5) &+ k.o.1
        var p2 = mulHigh(b0, k.m.6) &+ mulHigh(b1, k.m.7) &+ mulHigh(b2, k.m.8) &+ k.o.2
        if Gain.on {
            // The column table is stored in the same lane order (see `prepare`).
            let g = laneMax(row &- UnsafeRawPointer(columns).loadUnaligned(as: I16x8.self), k.floor)
            p0 = (mulHigh(p0, g) &+ k.bias.0) &>> 3
            p1 = (mulHigh(p1, g) &+ k.bias.1) &>> 3
            p2 = (mulHigh(p2, g) &+ k.bias.2) &>> 3
        } else {
            // The rounding bias is folded into the offsets (`constants`).
            p0 = p0 &>> 4
            p1 = p1 &>> 4
            p2 = p2 &>> 4
        }
        // Re-interleave without byte shuffles: clamp to 0...255 (pmaxsw/pminsw), join the 16-bit
        // halves of each word (bytes 0|1 and 2|3: psllw/por), then in 32-bit lanes the low halves
        // are the pixels of `v0` and the high halves those of `v1` (pand/pslld/psrld/por).
        let c0 = clampByte(p0), c1 = clampByte(p1), c2 = clampByte(p2)
        let lo = unsafeBitCast(PassFirst.on ? c0 &<< 8 : c0 | (c1 &<< 8), to: SIMD4<UInt32>.self)
        let hi = unsafeBitCast(PassFirst.on ? c1 | (c2 &<< 8) : c2, to: SIMD4<UInt32>.self)
        let w0 = (lo & 0xFFFF) | (hi &<< 16), w1 = (lo &>> 16) | (hi & 0xFFFF_0000)
        return (w0 | (v0 & k.keep), w1 | (v1 & k.keep))
    }
}
