/// Per-channel byte tables for the packed RGB point pass: the parts of a program that map each
/// channel from itself (curves, diagonal matrices: gamma, posterize, threshold, invert, exposure,
/// contrast) collapse into one 256-entry table per memory byte.
///
/// A program that is all separable is one lookup per byte. A program shaped `separable · core ·
/// separable`, where the core is what `RGBFixedKernel` takes (a matrix, a vignette, a map after it), runs
/// the three back to back on one row in L1: tables into a row buffer, the 16-bit pass, tables in
/// place (the 6-chain, gamma | colorcontrols | sepia | vignette | invert, is a table and the 16-bit
/// pass: the invert after the vignette folds into the pass).
///
/// Tables are computed by running the float kernel's own stages on every byte value, so an
/// all-separable program gives exactly the float kernel's bytes; around a core, values are
/// rounded to bytes at the two joins (within 2 codes of the float pass, FixedKernelTests).
final class RGBTableKernel {
    /// 4 × 256 bytes, indexed by memory byte position then value; nil for an identity part.
    private let before: [UInt8]?
    private let core: RGBFixedKernel?
    /// The float kernel as the core when the tables after it hold a curve: a curve may be a step
    /// (threshold), and only the float core's bytes put every pixel on the same side of it.
    private let floatCore: RGBPointKernel?
    private let after: [UInt8]?
    /// In place of the float core and `after` when the core is a map with equal rows and offsets (threshold,
    /// mono then a curve): the float core's luma 16 pixels a step, then one lookup of a whole pixel.
    private let greyTable: GreyTable?
    /// Where the colour bytes share one table and the fourth keeps its value: that table's offset and
    /// the bytes it applies to (the AVX-512 path does one lookup then), for `before` and `after`.
    private let uniformBefore: (offset: Int, mask: UInt64)?, uniformAfter: (offset: Int, mask: UInt64)?
    /// When `before` is one table for the three colour bytes (alpha kept) and the 16-bit pass follows: that table
    /// with every entry xored with 0x80, which the AVX-512 pass applies itself to whole groups of 32 pixels (where
    /// the kernel set `fusesTables`); the rest of a row still goes through the table pass into the row buffer.
    private let centredBefore: [UInt8]?
    /// The SIMD path its table passes run on.
    private let kernels: KernelSet

    /// True when the 16-bit pass applies `before` itself on the path in use (tests: the chains meant to take it do).
    var appliesTableInPass: Bool { centredBefore != nil && core?.runsThroughTables == true }

    init?(_ program: PointProgram, format: PixelFormat, kernels: KernelSet = .best) {
        guard format.isRGB else { return nil }
        self.kernels = kernels
        let steps = program.steps
        let prefix = steps.prefix { $0.isSeparable }
        if prefix.count == steps.count {
            guard let tables = Self.tables(Array(prefix), format: format, kernels: kernels) else { return nil }
            before = tables
            core = nil
            floatCore = nil
            after = nil
            greyTable = nil
            uniformBefore = Self.uniform(tables)
            uniformAfter = nil
            centredBefore = nil
            return
        }
        var suffixCount = steps.reversed().prefix { $0.isSeparable }.count
        // Maps after the vignette fold into the 16-bit pass (no table pass after it) when it takes them.
        let rest = Array(steps[prefix.count...])
        if suffixCount > 0, !rest.contains(where: { if case .curve = $0 { true } else { false } }),
            RGBFixedKernel(PointProgram(steps: rest), format: format, kernels: kernels) != nil
        {
            suffixCount = 0
        }
        let middle = Array(steps[prefix.count..<(steps.count - suffixCount)])
        // Worth it only when a table removes a step the 16-bit pass cannot take.
        guard !prefix.isEmpty || suffixCount > 0,
            let fixed = RGBFixedKernel(PointProgram(steps: middle), format: format, kernels: kernels)
        else { return nil }
        before = prefix.isEmpty ? nil : Self.tables(Array(prefix), format: format, kernels: kernels)
        after = suffixCount == 0 ? nil : Self.tables(Array(steps.suffix(suffixCount)), format: format, kernels: kernels)
        guard prefix.isEmpty || before != nil, suffixCount == 0 || after != nil else { return nil }
        let suffixHasCurve = steps.suffix(suffixCount).contains { if case .curve = $0 { true } else { false } }
        core = suffixHasCurve ? nil : fixed
        floatCore = suffixHasCurve ? RGBPointKernel(PointProgram(steps: middle), fixedPoint: false, kernels: kernels) : nil
        uniformBefore = before.flatMap(Self.uniform)
        uniformAfter = after.flatMap(Self.uniform)
        let offsets = format.rgbOffsets
        let colourBytes = [offsets.r, offsets.g, offsets.b].reduce(UInt64(0)) { $0 | UInt64(0x1111_1111_1111_1111) << UInt64($1) }
        if core != nil, let before, let uniformBefore, uniformBefore.mask == colourBytes {
            centredBefore = before[uniformBefore.offset..<(uniformBefore.offset + 256)].map { $0 ^ 0x80 }
        } else {
            centredBefore = nil
        }
        if suffixHasCurve, middle.count == 1, case let .affine(a) = middle[0], let after {
            greyTable = GreyTable(a, after: after, uniform: uniformAfter, format: format, kernels: kernels)
        } else {
            greyTable = nil
        }
    }

    /// The one table the non-identity byte positions of `tables` share, and those positions as a 64-bit mask.
    private static func uniform(_ tables: [UInt8]) -> (offset: Int, mask: UInt64)? {
        let identity = (0..<256).map { UInt8($0) }
        let rows = (0..<4).map { Array(tables[($0 * 256)..<($0 * 256 + 256)]) }
        let mapped = (0..<4).filter { rows[$0] != identity }
        guard let first = mapped.first, mapped.allSatisfy({ rows[$0] == rows[first] }) else { return nil }
        let mask = mapped.reduce(UInt64(0)) { $0 | UInt64(0x1111_1111_1111_1111) << UInt64($1) }
        return (first * 256, mask)
    }

    /// The tables of a separable program, from the float kernel's stages; nil when it is the identity.
    private static func tables(_ steps: [PointProgram.Step], format: PixelFormat, kernels: KernelSet) -> [UInt8]? {
        let float = RGBPointKernel(PointProgram(steps: steps), fixedPoint: false, kernels: kernels)
        var perChannel = [[UInt8]](repeating: [], count: 3)
        float.withStages { stages in
            var value = 0
            while value < 256 {
                var lanes = Lanes<Float>.zero
                for lane in 0..<laneCount { lanes[lane] = Float(min(value + lane, 255)) }
                var r = lanes, g = lanes, b = lanes
                RGBPointKernel.applyAll(stages, &r, &g, &b, 0, 0)
                let out = (clampRound(r), clampRound(g), clampRound(b))
                for lane in 0..<laneCount where value + lane < 256 {
                    perChannel[0].append(UInt8(truncatingIfNeeded: out.0[lane]))
                    perChannel[1].append(UInt8(truncatingIfNeeded: out.1[lane]))
                    perChannel[2].append(UInt8(truncatingIfNeeded: out.2[lane]))
                }
                value += laneCount
            }
        }
        let identity = (0..<256).map { UInt8($0) }
        if perChannel.allSatisfy({ $0 == identity }) { return nil }
        let offsets = format.rgbOffsets
        var table = [UInt8](repeating: 0, count: 1024)
        for byte in 0..<4 {
            let row: [UInt8]
            switch byte {
            case offsets.r: row = perChannel[0]
            case offsets.g: row = perChannel[1]
            case offsets.b: row = perChannel[2]
            default: row = identity
            }
            for v in 0..<256 { table[byte * 256 + v] = row[v] }
        }
        return table
    }

    func prepare(format: PixelFormat, width: Int, height: Int, scratch: ScratchPool, slotBase: Int) {
        core?.prepare(width: width, height: height)
        floatCore?.prepare(format: format, width: width, height: height, scratch: scratch, slotBase: slotBase + 50)
    }

    /// Bytes of row buffer `run` needs per band.
    static func bufferBytes(width: Int) -> Int { width * 4 }

    /// Processes rows `rows`; `buffer` holds one row (`bufferBytes`) when there is a core after tables or
    /// `mirror` is set. With `mirror` every row is finished in `buffer` and reversed into the destination
    /// (one row buffer, so the rows in flight stay in L1).
    func run(
        source: Plane, destination: Plane, format: PixelFormat, width: Int, height: Int, rows: Range<Int>,
        buffer: UnsafeMutableRawPointer, mirror: Bool = false
    ) {
        guard core != nil || floatCore != nil else {
            if mirror, let before {
                before.withUnsafeBufferPointer { t in
                    for y in rows {
                        kernels.lookup(source.base + y * source.stride, buffer, width, t.baseAddress!, uniformBefore)
                        MirrorFlipKernel.reverse(buffer, destination.base + y * destination.stride, bytes: width * 4, size: 4, kernels)
                    }
                }
            } else if let before {
                before.withUnsafeBufferPointer { t in
                    for y in rows {
                        kernels.lookup(
                            source.base + y * source.stride, destination.base + y * destination.stride, width, t.baseAddress!, uniformBefore
                        )
                    }
                }
            }
            return
        }
        // Mirrored, the 16-bit pass after tables stores reversed (it reads the row buffer, never the
        // destination); otherwise the row is finished in the buffer and reversed into place.
        let reversedStores = mirror && before != nil && after == nil && self.core?.storesMirrored == true
        // Borrowed (`self` holds it): a plain reference was retained and released around every row's call, and
        // the arrays read once (~8 % of the RGBA 6-chain was retains and releases).
        let core = self.core.map(Unmanaged.passUnretained), before = self.before, after = self.after, centredBefore = self.centredBefore
        for y in rows {
            let out = destination.base + y * destination.stride
            let s = source.base + y * source.stride, d = mirror && !reversedStores ? buffer : out
            var coreSource = s
            // Pixels the 16-bit pass did with the tables inside it (AVX-512); the rest go through the row buffer.
            var start = 0
            if let before {
                var from = UnsafeRawPointer(s)
                if let centredBefore, let core, core._withUnsafeGuaranteedRef({ $0.runsThroughTables }) {
                    // A row mirrored onto itself is read from a copy (the reversed stores would overwrite pixels not yet read).
                    if reversedStores && s == UnsafeRawPointer(d) {
                        buffer.copyMemory(from: s, byteCount: 4 * width)
                        from = UnsafeRawPointer(buffer)
                    }
                    start = centredBefore.withUnsafeBufferPointer { t in
                        core._withUnsafeGuaranteedRef {
                            $0.runThroughTable(
                                t.baseAddress!, source: from, destination: d, width: width, height: height, row: y, mirrored: reversedStores
                            )
                        }
                    }
                }
                if start < width {
                    before.withUnsafeBufferPointer {
                        kernels.lookup(from + 4 * start, buffer + 4 * start, width - start, $0.baseAddress!, uniformBefore)
                    }
                }
                coreSource = buffer
            }
            // Stride 0 and the one-row range `y`: the core reads and writes these rows while its
            // vignette still sees row `y`.
            let from = Plane(base: coreSource, stride: 0), to = Plane(base: d, stride: 0)
            if let greyTable {
                greyTable.run(coreSource, alpha: s, d, width: width)
                if mirror && !reversedStores { MirrorFlipKernel.reverse(buffer, out, bytes: width * 4, size: 4, kernels) }
                continue
            }
            if let core {
                if start < width {
                    core._withUnsafeGuaranteedRef {
                        $0.run(
                            source: from, destination: to, width: width, height: height, rows: y..<(y + 1), mirrored: reversedStores,
                            start: start)
                    }
                }
            } else {
                floatCore?.run(
                    source: from, destination: to, format: format, width: width, height: height, rows: y..<(y + 1), buffer: buffer)
            }
            if let after { after.withUnsafeBufferPointer { kernels.lookup(d, d, width, $0.baseAddress!, uniformAfter) } }
            if mirror && !reversedStores { MirrorFlipKernel.reverse(buffer, out, bytes: width * 4, size: 4, kernels) }
        }
    }

}

extension KernelSet {
    /// One row through the four tables; `source` may be `destination`.
    @inline(__always)
    fileprivate func lookup(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ width: Int, _ t: UnsafePointer<UInt8>,
        _ uniform: (offset: Int, mask: UInt64)?
    ) {
        let s = source.assumingMemoryBound(to: UInt8.self), d = destination.assumingMemoryBound(to: UInt8.self)
        let t1 = t + 256, t2 = t + 512, t3 = t + 768
        let end = width &* 4
        var i = table.byteTables(source, destination, bytes: end, tables: t, uniform: uniform)
        while i < end {
            let b0 = t[Int(s[i])], b1 = t1[Int(s[i &+ 1])], b2 = t2[Int(s[i &+ 2])], b3 = t3[Int(s[i &+ 3])]
            d[i] = b0; d[i &+ 1] = b1; d[i &+ 2] = b2; d[i &+ 3] = b3
            i &+= 4
        }
    }
}

extension PointProgram {
    /// A program of already-fused steps.
    init(steps: [Step]) { self.steps = steps }
}

extension PointProgram.Step {
    /// True when each output channel depends only on the same input channel.
    var isSeparable: Bool {
        switch self {
        case .curve: true
        case let .affine(a): [1, 2, 3, 5, 6, 7].allSatisfy { a.m[$0] == 0 }
        case .vignette, .lut3D: false
        }
    }
}

/// A float map with equal rows and offsets followed by per-channel tables: `index = clampRound(luma)` exactly
/// as RGBPointKernel's float pass computes it, then each pixel's colour bytes from one 32-bit table entry
/// (GreyCore.tableRow, 16 pixels a step), or a compare where the table is a step (GreyCore.stepRow).
struct GreyTable {
    private let k: SIMD3<Float>, offset: Float
    private let shifts: SIMD3<UInt32>
    /// Per index, the three colour bytes in place (alpha/padding zero).
    private let table: [UInt32]
    private let keep: UInt32
    /// The per-byte tables the 32-bit ones come from, for the AVX-512 path: an index in every byte, then
    /// ByteTableCore's lookup (its byte permutes are faster than the gather).
    private let after: [UInt8]
    private let uniform: (offset: Int, mask: UInt64)?
    /// When the table is `low` below index `cut` and `high` from it on (threshold's step): a compare, no lookup.
    private let step: (cut: UInt32, low: UInt32, high: UInt32)?
    private let kernels: KernelSet

    /// nil unless the rows, and the offsets, are equal as the float pass holds them.
    init?(_ a: Affine3, after: [UInt8], uniform: (offset: Int, mask: UInt64)?, format: PixelFormat, kernels: KernelSet) {
        self.kernels = kernels
        let m = a.m.map { Float($0) }, o = a.o.map { Float($0 * 255) }
        guard Array(m[0..<3]) == Array(m[3..<6]), Array(m[0..<3]) == Array(m[6..<9]), o[0] == o[1], o[0] == o[2] else { return nil }
        k = SIMD3(m[0], m[1], m[2])
        offset = o[0]
        let bytes = format.rgbOffsets
        shifts = SIMD3(UInt32(bytes.r * 8), UInt32(bytes.g * 8), UInt32(bytes.b * 8))
        keep = UInt32(0xFF) << UInt32(bytes.a * 8)
        self.after = after
        self.uniform = uniform
        // Each value's three bytes placed at their channels' offsets (a loop: the same as a map over a reduce, which
        // took the type checker seconds).
        var table = [UInt32](repeating: 0, count: 256)
        for v in 0..<256 {
            for channel in [bytes.r, bytes.g, bytes.b] {
                let byte = UInt32(after[channel * 256 + v])
                table[v] |= byte << UInt32(channel * 8)
            }
        }
        self.table = table
        let cut = table.firstIndex { $0 != table[0] } ?? 256
        step =
            table[cut...].allSatisfy { $0 == table[cut < 256 ? cut : 255] }
            ? (UInt32(cut), table[0], table[cut < 256 ? cut : 255]) : nil
    }

    /// One row from `source` to `destination` (which may be the same memory); the alpha/padding byte from `alpha`.
    func run(_ source: UnsafeRawPointer, alpha: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, width: Int) {
        table.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            var x: Int
            if let step {
                x = kernels.table.greyStepRow(
                    source, alpha: alpha, destination, count: width, shifts: shifts, k: k, offset: offset, step: step, keep: keep)
            } else if kernels.path == .avx512 {
                x = kernels.table.greyTableRow(
                    source, alpha: alpha, destination, count: width, shifts: shifts, k: k, offset: offset, table: nil, keep: keep)
                after.withUnsafeBufferPointer { tables in
                    let d = destination.assumingMemoryBound(to: UInt8.self), tables = tables.baseAddress!
                    // Whole groups of 16 pixels are whole groups of 64 bytes: the lookup leaves none, but would be finished here.
                    var i = kernels.table.byteTables(destination, destination, bytes: 4 * x, tables: tables, uniform: uniform)
                    while i < 4 * x {
                        d[i] = tables[(i & 3) * 256 + Int(d[i])]
                        i += 1
                    }
                }
            } else {
                x = kernels.table.greyTableRow(
                    source, alpha: alpha, destination, count: width, shifts: shifts, k: k, offset: offset, table: t, keep: keep)
            }
            while x < width {
                let v = source.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self)
                @inline(__always) func channel(_ shift: UInt32) -> Float { Float((v >> shift) & 0xFF) }
                var l = channel(shifts.x) * k.x + channel(shifts.y) * k.y + channel(shifts.z) * k.z + offset
                l = l > 0 ? (l > 255 ? 255 : l) : 0
                let index = Int((l + 12_582_912).bitPattern & 0xFF)
                let kept = alpha.loadUnaligned(fromByteOffset: 4 &* x, as: UInt32.self) & keep
                destination.storeBytes(of: t[index] | kept, toByteOffset: 4 &* x, as: UInt32.self)
                x &+= 1
            }
        }
    }
}
