/// A 3D colour lookup table as read from an Adobe `.cube` file.
///
/// Entries are stored red-fastest, as the file lists them; sampling is trilinear.
public struct Cube3D: Sendable, Equatable {
    /// Grid points per axis (2...256).
    public let size: Int
    /// `size³` RGB triples, red index fastest, in output units (normally 0...1).
    public let table: [Float]
    /// Input value mapped to the first grid point, per channel.
    public let domainMin: (Double, Double, Double)
    /// Input value mapped to the last grid point, per channel.
    public let domainMax: (Double, Double, Double)

    /// Creates a cube from its entries; returns nil unless `table` holds `size³` triples and the domain is increasing.
    public init?(
        size: Int, table: [Float], domainMin: (Double, Double, Double) = (0, 0, 0), domainMax: (Double, Double, Double) = (1, 1, 1)
    ) {
        guard (2...256).contains(size), table.count == size * size * size * 3,
            domainMax.0 > domainMin.0, domainMax.1 > domainMin.1, domainMax.2 > domainMin.2
        else { return nil }
        self.size = size
        self.table = table
        self.domainMin = domainMin
        self.domainMax = domainMax
    }

    /// The identity cube of `size` points per axis.
    public static func identity(size: Int) -> Cube3D? {
        guard (2...256).contains(size) else { return nil }
        let scale = 1 / Float(size - 1)
        return Cube3D(size: size, table: table(size: size) { SIMD3(Float($0), Float($1), Float($2)) * scale })
    }

    /// `size`³ entries in the file's order (red fastest), each `entry(r, g, b)` of its grid indices.
    static func table(size: Int, _ entry: (_ r: Int, _ g: Int, _ b: Int) -> SIMD3<Float>) -> [Float] {
        var table = [Float](repeating: 0, count: size * size * size * 3)
        var index = 0
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let value = entry(r, g, b)
                    (table[index], table[index + 1], table[index + 2]) = (value.x, value.y, value.z)
                    index += 3
                }
            }
        }
        return table
    }

    /// Trilinear sample at normalized RGB; inputs outside the domain clamp to its edge.
    func sample(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        let n = Double(size - 1)
        func coordinate(_ v: Double, _ lo: Double, _ hi: Double) -> (Int, Double) {
            var t = (v - lo) / (hi - lo) * n
            if !(t > 0) { t = 0 }
            if t > n { t = n }
            let i = min(Int(t), size - 2)
            return (i, t - Double(i))
        }
        let (ri, rf) = coordinate(r, domainMin.0, domainMax.0)
        let (gi, gf) = coordinate(g, domainMin.1, domainMax.1)
        let (bi, bf) = coordinate(b, domainMin.2, domainMax.2)
        var out = (0.0, 0.0, 0.0)
        return table.withUnsafeBufferPointer { t in
            for corner in 0..<8 {
                let dr = corner & 1, dg = (corner >> 1) & 1, db = corner >> 2
                let w = (dr == 1 ? rf : 1 - rf) * (dg == 1 ? gf : 1 - gf) * (db == 1 ? bf : 1 - bf)
                let base = (((bi + db) * size + gi + dg) * size + ri + dr) * 3
                out.0 += w * Double(t[base])
                out.1 += w * Double(t[base + 1])
                out.2 += w * Double(t[base + 2])
            }
            return out
        }
    }

    /// Equal when every stored property is equal.
    public static func == (a: Cube3D, b: Cube3D) -> Bool {
        a.size == b.size && a.table == b.table && a.domainMin == b.domainMin && a.domainMax == b.domainMax
    }

    /// Parses the text of a `.cube` file; `path` only names the file in errors.
    public static func parse(_ text: String, path: String) throws(FilterSpecError) -> Cube3D {
        var size = 0
        var lo = (0.0, 0.0, 0.0), hi = (1.0, 1.0, 1.0)
        var table: [Float] = []
        var lineNumber = 0
        var lastContentLine = 0
        func fail(_ reason: String) -> FilterSpecError { .badLutFile(path: path, line: lineNumber, reason: reason) }
        func triple(_ words: ArraySlice<Substring>) -> (Double, Double, Double)? {
            guard words.count == 3 else { return nil }
            let values = words.compactMap { Double($0) }.filter { $0.isFinite }
            guard values.count == 3 else { return nil }
            return (values[0], values[1], values[2])
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let keyword = words.first else { continue }
            lastContentLine = lineNumber
            switch keyword {
            case "TITLE":
                continue
            case "LUT_1D_SIZE":
                throw fail("1D LUTs are not supported; use a 3D LUT (LUT_3D_SIZE)")
            case "LUT_3D_SIZE":
                guard size == 0 else { throw fail("LUT_3D_SIZE appears twice") }
                guard words.count == 2, let n = Int(words[1]), (2...256).contains(n) else {
                    throw fail("LUT_3D_SIZE must be one whole number in 2...256")
                }
                size = n
                table.reserveCapacity(n * n * n * 3)
            case "DOMAIN_MIN":
                guard let t = triple(words.dropFirst()) else { throw fail("DOMAIN_MIN needs three numbers") }
                lo = t
            case "DOMAIN_MAX":
                guard let t = triple(words.dropFirst()) else { throw fail("DOMAIN_MAX needs three numbers") }
                hi = t
            default:
                guard let first = keyword.first, first.isNumber || first == "-" || first == "+" || first == "." else {
                    // The word is not quoted: a path that is no cube file (a key, a password file) must not leak through the error.
                    throw fail(
                        "the line starts with no keyword or number; expected TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX or three numbers")
                }
                guard size > 0 else { throw fail("table data before LUT_3D_SIZE") }
                guard let t = triple(words[...]) else { throw fail("expected three numbers") }
                guard table.count < size * size * size * 3 else {
                    throw fail("more than \(size * size * size) entries for LUT_3D_SIZE \(size)")
                }
                table.append(Float(t.0))
                table.append(Float(t.1))
                table.append(Float(t.2))
            }
        }
        // Problems with the file as a whole are reported at its last non-blank line.
        lineNumber = lastContentLine
        guard size > 0 else { throw fail("no LUT_3D_SIZE line") }
        guard table.count == size * size * size * 3 else {
            throw fail("found \(table.count / 3) entries, LUT_3D_SIZE \(size) needs \(size * size * size)")
        }
        guard let cube = Cube3D(size: size, table: table, domainMin: lo, domainMax: hi) else {
            throw fail("DOMAIN_MAX must exceed DOMAIN_MIN on every channel")
        }
        return cube
    }
}
