import CGStreamer

// The printing half of GraphDescription: launch text for people and the shell, quoted so that what is
// printed parses back to the same graph.

extension GraphDescription {
    /// The gst-launch text, one chain per line: `Pipeline.parse(launchText)` builds the same graph.
    public var launchText: String {
        launchLines.map { $0.joined(separator: " ") }.joined(separator: "\n")
    }

    /// A shell command line running this graph (`gst-launch-1.0 …`), each word quoted for a POSIX shell,
    /// chains continued with a backslash-newline.
    public func shellCommand(_ program: String = "gst-launch-1.0") -> String {
        ([program] + launchLines.map { $0.map(shellQuoted).joined(separator: " ") }).joined(separator: " \\\n  ")
    }

    /// The launch words of each chain, values serialized and launch-quoted.
    public var launchLines: [[String]] {
        let names = effectiveNames
        return layout().lines.map { line in
            line.flatMap { word -> [String] in
                switch word {
                case .link:
                    return ["!"]
                case let .reference(index, pad):
                    return ["\(names[index] ?? nodes[index].factory).\(pad ?? "")"]
                case let .element(index):
                    var words = [nodes[index].factory]
                    if let name = names[index] { words.append("name=\(launchQuoted(GraphValue.string(name).serialized))") }
                    for property in nodes[index].properties {
                        words.append(
                            "\(property.name)=\(launchQuoted(property.value.launchSerialized(factory: nodes[index].factory, property: property.name)))"
                        )
                    }
                    return words
                }
            }
        }
    }

    /// The first `name` or `name.pad` the launch text refers to that the launch parser would not read back
    /// as that reference (`tee name="a b"` prints fine, but `a b. ! queue` does not), if any.
    var unreferenceableName: String? {
        let names = effectiveNames
        for case let .reference(index, pad) in layout().lines.joined() {
            let name = names[index] ?? nodes[index].factory
            if !isLaunchIdentifier(name) { return name }
            if let pad, !isLaunchIdentifier(pad) { return "\(name).\(pad)" }
        }
        return nil
    }

    /// A word of launch text before names and values are filled in.
    enum Word {
        case element(Int)
        case link
        case reference(Int, pad: String?)
    }

    /// How the graph prints: elements in order; an element with a single link in, from an element with a
    /// single link out, follows it on the same line (`a ! b`); a shared element (a tee, an input-selector)
    /// is reached by name (`split. ! queue`, `queue ! selector.sink_0`); any other link is `a.pad ! b.pad`.
    /// `order` is the links as they appear in the text, the order the launch parser makes them in.
    func layout() -> (lines: [[Word]], referenced: Set<Int>, order: [Int]) {
        var incoming = Array(repeating: [Int](), count: nodes.count)
        var outgoing = Array(repeating: [Int](), count: nodes.count)
        for (number, link) in links.enumerated() {
            outgoing[link.source.index].append(number)
            incoming[link.sink.index].append(number)
        }
        /// The link that prints as `a ! b`: a's only link out, b's only link in, no pads named.
        func inlineLink(from index: Int) -> Int? {
            guard outgoing[index].count == 1, let number = outgoing[index].first else { return nil }
            let link = links[number]
            guard link.sourcePad == nil, link.sinkPad == nil, incoming[link.sink.index].count == 1 else { return nil }
            return number
        }
        func followsUpstream(_ index: Int) -> Bool {
            incoming[index].count == 1 && inlineLink(from: links[incoming[index][0]].source.index) == incoming[index][0]
        }

        var printed = Set<Int>(), used = Set<Int>(), referenced = Set<Int>()
        var lines: [[Word]] = []
        var order: [Int] = []
        func reference(_ index: Int, _ pad: String?) -> Word {
            referenced.insert(index)
            return .reference(index, pad: pad)
        }
        func printChain(from head: Int) {
            var line: [Word] = []
            if incoming[head].count == 1, links[incoming[head][0]].sinkPad == nil {
                let link = links[incoming[head][0]]
                line += [reference(link.source.index, link.sourcePad), .link]
                used.insert(incoming[head][0])
                order.append(incoming[head][0])
            }
            var current = head
            line.append(.element(current))
            printed.insert(current)
            while let number = inlineLink(from: current), !printed.contains(links[number].sink.index) {
                current = links[number].sink.index
                line += [.link, .element(current)]
                printed.insert(current)
                used.insert(number)
                order.append(number)
            }
            // A single link on into an element reached by name ends the chain: `… ! selector.sink_0`.
            if outgoing[current].count == 1, !used.contains(outgoing[current][0]), links[outgoing[current][0]].sourcePad == nil {
                let link = links[outgoing[current][0]]
                line += [.link, reference(link.sink.index, link.sinkPad)]
                used.insert(outgoing[current][0])
                order.append(outgoing[current][0])
            }
            lines.append(line)
        }

        for index in nodes.indices where !printed.contains(index) && !followsUpstream(index) {
            printChain(from: index)
        }
        // Only a cycle of plain links is left unprinted by now; print it rather than lose it.
        for index in nodes.indices where !printed.contains(index) {
            printChain(from: index)
        }
        for (number, link) in links.enumerated() where !used.contains(number) {
            lines.append([reference(link.source.index, link.sourcePad), .link, reference(link.sink.index, link.sinkPad)])
            order.append(number)
        }
        return (lines, referenced, order)
    }
}

/// A serialized value as the launch parser reads it back: bare when it is plain, else in double quotes
/// with `\` and `"` escaped. The parser strips the quotes and the escapes, then deserializes what is left,
/// so the value makes the same round trip `gst_value_deserialize` would.
func launchQuoted(_ serialized: String) -> String {
    // "NULL" deserializes to a NULL string; quoted it stays the text.
    if !serialized.isEmpty, serialized != "NULL", serialized.unicodeScalars.allSatisfy(isPlainLaunch) {
        return serialized
    }
    var quoted = "\""
    for character in serialized {
        if character == "\\" || character == "\"" { quoted.append("\\") }
        quoted.append(character)
    }
    return quoted + "\""
}

/// An element or pad name as the launch lexer reads it in a reference (`name.pad`): an ASCII letter, digit
/// or `_`, then letters, digits and `-_%:` (GStreamer 1.22's `_identifier`).
func isLaunchIdentifier(_ name: String) -> Bool {
    func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }
    guard let first = name.unicodeScalars.first, isAlphanumeric(first) || first == "_" else { return false }
    return name.unicodeScalars.allSatisfy { isAlphanumeric($0) || "-_%:".unicodeScalars.contains($0) }
}

/// The characters GStreamer itself leaves unquoted in serialized strings (`GST_ASCII_IS_STRING`).
private func isPlainLaunch(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-+/:.".unicodeScalars.contains(scalar))
}

/// One launch word as a POSIX shell word: bare when nothing in it is special to the shell, else in single
/// quotes (a single quote inside becomes `'\''`).
func shellQuoted(_ word: String) -> String {
    let plain =
        !word.isEmpty
        && word.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-+/:.,=@%".unicodeScalars.contains($0))
        }
    // A lone "!" is a link; bash expands "!" only before a word character.
    if plain || word == "!" { return word }
    var quoted = "'"
    for character in word {
        quoted += character == "'" ? "'\\''" : String(character)
    }
    return quoted + "'"
}
