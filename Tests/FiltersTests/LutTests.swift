import Testing

@testable import Filters

#if canImport(Glibc)
import Glibc
#endif

@Suite struct LutTests {
    @Test func parsesSizeDomainCommentsAndTitle() throws {
        let text =
            "# comment\nTITLE \"x\"\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\nLUT_3D_SIZE 2\n\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"
        let cube = try Cube3D.parse(text, path: "t.cube")
        #expect(cube.size == 2)
        #expect(cube == Cube3D.identity(size: 2))
        let s = cube.sample(0.25, 0.5, 0.75)
        #expect(abs(s.0 - 0.25) < 1e-6 && abs(s.1 - 0.5) < 1e-6 && abs(s.2 - 0.75) < 1e-6)
    }

    @Test(arguments: [
        ("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n", 3, "found 2 entries, LUT_3D_SIZE 2 needs 8"),
        ("LUT_3D_SIZE 2\n0 0\n", 2, "expected three numbers"),
        ("LUT_3D_SIZE 1\n", 1, "LUT_3D_SIZE must be one whole number in 2...256"),
        ("0 0 0\n", 1, "table data before LUT_3D_SIZE"),
        ("LUT_1D_SIZE 4\n", 1, "1D LUTs are not supported; use a 3D LUT (LUT_3D_SIZE)"),
        (
            "LUT_3D_SIZE 2\nBOGUS 1\n", 2,
            "the line starts with no keyword or number; expected TITLE, LUT_3D_SIZE, DOMAIN_MIN, DOMAIN_MAX or three numbers"
        ),
        ("LUT_3D_SIZE 2\n0 0 nan\n", 2, "expected three numbers")
    ])
    func badFilesNameTheLine(text: String, line: Int, reason: String) {
        let path = temporaryFile("bad-\(line)-\(text.count).cube", text)
        #expect(throws: FilterSpecError.badLutFile(path: path, line: line, reason: reason)) { try Lut(file: path) }
        #expect(throws: FilterSpecError.badLutFile(path: path, line: line, reason: reason)) {
            try FilterChain(parsing: "mono | lut file=\(path)")
        }
    }

    /// A file that is not a cube (a password file given as `lut file=`) is refused without a word of it in the
    /// error: the error goes back to whoever asked, who may not be allowed to read the file.
    @Test(arguments: [
        "root:*:19000:0:99999:7:::\n", "LUT_3D_SIZE 2\nroot:x:0:0:root:/root:/bin/bash\n", "LUT_3D_SIZE root:x\n",
        "DOMAIN_MIN root x y\n", "LUT_3D_SIZE 2\n0 0 root:x\n", "TITLE ok\nLUT_1D_SIZE root:x\n"
    ])
    func errorsNeverQuoteTheFile(text: String) throws {
        let path = temporaryFile("not-a-cube-\(text.count).cube", text)
        defer { unlink(path) }
        do {
            _ = try Lut(file: path)
            Issue.record("\(text) was read as a cube")
        } catch {
            #expect(!error.description.contains("root"), "\(error)")
            #expect(error.description.contains("line"), "\(error)")
        }
    }

    /// A FIFO blocked the parse (and the control command or property setter behind it) until someone wrote
    /// to it; /dev/zero was read up to the 256 MB limit. Only regular files are read.
    @Test func onlyRegularFilesAreRead() throws {
        let fifo = temporaryFile("fifo-\(getpid()).cube", "")
        unlink(fifo)
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let notRegular = "it is not a regular file (a device, a FIFO or a socket); give the path of a .cube file"
        #expect(throws: FilterSpecError.badLutFile(path: fifo, line: 0, reason: notRegular)) {
            try FilterChain(parsing: "lut file=\(fifo)")
        }
        #expect(throws: FilterSpecError.badLutFile(path: "/dev/zero", line: 0, reason: notRegular)) { try Lut(file: "/dev/zero") }
        #expect(throws: FilterSpecError.badLutFile(path: "/", line: 0, reason: "it is a directory; give the path of a .cube file")) {
            try Lut(file: "/")
        }
    }

    @Test func missingFileIsAnErrorNotATrap() {
        #expect(throws: FilterSpecError.self) { try FilterChain(parsing: "lut file=/nonexistent/x.cube") }
    }

    @Test func invertingCubeInvertsOnRGBAndYUV() throws {
        var lines = ["LUT_3D_SIZE 2"]
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { lines.append("\(1 - r) \(1 - g) \(1 - b)") } } }
        let lut = try Lut(file: temporaryFile("invert.cube", lines.joined(separator: "\n")))
        let rgb = TestFrame(.bgra, 2, 2)
        rgb.paint { x, y in (x * 100 + 20, y * 100 + 30, 77) }
        try FilterChain([lut]).compile().process(rgb.frame)
        #expect(rgb.rgb(1, 1) == (135, 125, 178))
        #expect(rgb.canariesIntact)
    }
}
