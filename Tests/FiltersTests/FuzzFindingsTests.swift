import Testing

@testable import Filters

/// What fuzzing the grammar and the `.cube` reader found (Tests/Fuzz; the inputs are in its corpus as
/// `found-*`). Each test failed before its fix.
@Suite struct FuzzFindingsTests {
    /// A quoted value may hold a line break; the error quoting it must still be one line
    /// (a config error, and so the CLI's one-line failure, is built from it).
    @Test func anErrorQuotingAValueWithALineBreakIsOneLine() {
        #expect {
            try FilterChain(parsing: "sepia intensity=\"0\n5\"")
        } throws: { error in
            let text = "\(error)"
            return !text.contains("\n") && text.contains("'0\\u{A}5'")
        }
    }

    /// A word of a `.cube` file is split on spaces, tabs and CR only; a form feed or a line separator stays
    /// in the keyword the error quotes (corpus: Cube/found-form-feed-keyword.cube).
    @Test(arguments: ["\u{0C}1", "LUT_3D_SIZE 2\nX\u{2028}Y 1\n", "\u{0B}"])
    func aCubeErrorQuotingAControlCharacterIsOneLine(text: String) {
        #expect {
            try Cube3D.parse(text, path: "a\nb.cube")
        } throws: { error in
            let description = "\(error)"
            return !description.unicodeScalars.contains { [0x0A, 0x0B, 0x0C, 0x0D, 0x2028].contains($0.value) }
        }
    }

    /// A path that starts with a combining mark printed as `file="̈…"`: the mark joined the opening quote into
    /// one character, the tokenizer no longer saw a quote, and the canonical text did not parse
    /// (corpus: Grammar/found-combining-mark-after-quote.txt). The grammar now reads Unicode scalars.
    @Test(arguments: ["\u{308}x y.cube", "\u{308}\u{FFFD}\n", "a|\u{301}b", "\u{301}", "=\u{301}", "\\\u{301}\""])
    func aLutPathStartingWithACombiningMarkPrintsAsTextNamingIt(path: String) throws {
        let cube = try #require(Cube3D.identity(size: 2))
        let printed = FilterChain([Lut(cube: cube, file: path)]).description
        #expect(throws: FilterSpecError.badLutFile(path: path, line: 0, reason: "cannot open the file (No such file or directory)")) {
            try FilterChain(parsing: printed)
        }
    }

    /// Columns count Unicode scalars: a combining mark is a column of its own.
    @Test func columnsCountScalars() {
        #expect(throws: FilterSpecError.syntax(expected: "key=value or '|'", found: "nope", position: 15)) {
            try FilterChain(parsing: "lut file=\"a\u{301}\" nope")
        }
        #expect(throws: FilterSpecError.syntax(expected: "a filter name", found: "|", position: 1)) { try FilterChain(parsing: "|\u{301}") }
    }
}
