import Base
import Foundation
import Testing

@Suite struct TextTests {
    @Test func pathsReadLikeNSString() {
        for path in ["/a/b.mkv", "/a/", "b.mkv", "/", "", "a/b/c", "/a/.hidden", "x.tar.gz", "/a//b/"] {
            let ns = path as NSString
            #expect(path.fileName == ns.lastPathComponent, "\(path)")
            #expect(path.folder == ns.deletingLastPathComponent, "\(path)")
            #expect(path.fileExtension == ns.pathExtension, "\(path)")
        }
    }

    @Test func trimmingAndPadding() {
        #expect(" \t a b \r\n".trimmed == "a b")
        #expect("   ".trimmed == "")
        #expect("  \u{301}s ".trimmed == "\u{301}s")  // the mark stays, as Foundation trims
        #expect("ab".padded(to: 4) == "ab  ")
        #expect("abcdef".padded(to: 4) == "abcdef")
    }

    @Test func percentEscapes() {
        #expect("a%20b%2Fc".percentDecoded == "a b/c")
        #expect("%C3%A9".percentDecoded == "é")
        #expect("%zz".percentDecoded == nil)
        #expect("%".percentDecoded == nil)
        #expect("%FF".percentDecoded == nil)
        #expect("a b/é?.jpg".percentEncodedPath == "a%20b/%C3%A9%3F.jpg")
        for name in ["a b/é?.jpg", "100%", "x#y"] { #expect(name.percentEncodedPath.percentDecoded == name) }
    }

    /// Scalar by scalar: the `\n` of a `\r\n` pair, and a quote a combining mark follows, are found.
    @Test func replacingScalars() {
        #expect("snap\r\nrecord stop".replacing(scalar: "\n", with: " ") == "snap\r record stop")
        #expect("a'\u{301}b".replacing(scalar: "'", with: "'\\''") == "a'\\''\u{301}b")
    }

    @Test func shortTextOfFigures() {
        #expect(2.0.shortText == "2")
        #expect(0.25.shortText == "0.25")
        #expect((-3.0).shortText == "-3")
        #expect(1e20.shortText == "1e+20")
    }
}
