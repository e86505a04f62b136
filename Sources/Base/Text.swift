/// The string helpers FoundationEssentials leaves to full Foundation (and its 40 MB of ICU), in the forms SwiftCam
/// uses: ASCII whitespace, `%`-escapes of URLs, column padding, paths as text.
extension StringProtocol {
    /// Without the white space (spaces, tabs, line ends) at either end, scalar by scalar as Foundation trims: a
    /// space before a combining mark goes, the mark stays.
    public var trimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Padded with spaces on the right to `width` characters (longer text is left as it is): a column of a table.
    public func padded(to width: Int) -> String {
        String(self) + String(repeating: " ", count: Swift.max(0, width - count))
    }

    /// The URL `%XX` escapes decoded; nil when an escape is malformed or the bytes are not UTF-8 (as Foundation's
    /// `removingPercentEncoding`).
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Every byte but the unreserved ones and `/` escaped as `%XX`: a file name made safe for a URL's path.
    public var percentEncodedPath: String {
        var output = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Every `scalar` replaced by `replacement`, scalar by scalar: a line end inside a `\r\n` pair, or a quote a
    /// combining mark follows, is found too (`replacing(_:with:)` compares whole characters).
    public func replacing(scalar: Unicode.Scalar, with replacement: String) -> String {
        var output = ""
        for each in unicodeScalars {
            if each == scalar { output += replacement } else { output.unicodeScalars.append(each) }
        }
        return output
    }

    // MARK: Paths

    /// The last component of a path (`b.mkv` of `/a/b.mkv`; `/a/` gives `a`).
    public var fileName: String {
        let components = split(separator: "/")
        guard let last = components.last else { return hasPrefix("/") ? "/" : "" }
        return String(last)
    }

    /// The path without its last component (`/a` of `/a/b.mkv`, `/` of `/a`, `` of `b.mkv`).
    public var folder: String {
        var path = Substring(self)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        var folder = path[..<slash]
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// The extension of the last component, without its dot (`mkv`); `` when it has none.
    public var fileExtension: String {
        let name = fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

extension Double {
    /// The shortest text that reads back as this value, without a trailing `.0` (`2`, `0.25`, `1e-05`): how a
    /// figure reads in a message, as C's `%g` would mostly print it.
    public var shortText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
