import CGStreamer
import Capture
import Config
import Foundation
import FuzzSupport
import GStreamer
import SwiftFilterElement

// Launch-line quoting: what `swiftcam show` prints parses back to the same graph. The first byte picks the
// graph; either way the graph is built from its typed description (`build()`), its printed line is parsed
// (`Pipeline.parse(launchText)`), and the two pipelines must hold the same elements (factory, name, every
// property the description sets, read back and serialized by GStreamer) linked the same way. The shell line
// (`shellCommand`) must split, as a POSIX shell splits it, into exactly the launch words.
//
// - even first byte: a typed graph whose names, string values, caps fields and links come from the input;
// - odd first byte: the rest is a config (leading `--set KEY=VALUE` lines, then JSON) as `show` prints it.
//
// A graph whose typed values GStreamer itself refuses (`build()` throws) prints nothing that must run.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLaunch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = registered
    // scripts/fuzz.sh proves the GLib suppressions hide no leak of ours: a GLib string nobody frees.
    if leakCanary { _ = g_strdup("a deliberate leak") }
    let bytes = fuzzBytes(data, size)
    guard let first = bytes.first else { return 0 }
    if first & 1 == 0 {
        var reader = FuzzReader(Array(bytes.dropFirst()))
        checkRoundTrip(typedGraph(&reader))
    } else if let graph = configGraph(Array(bytes.dropFirst())) {
        checkRoundTrip(graph)
    }
    return 0
}

private let registered: Bool = SwiftFilterElement.register()
private let leakCanary = getenv("SWIFTCAM_FUZZ_LEAK_CANARY") != nil

// MARK: - Graphs from the input

/// Strings the launch and shell parsers treat specially, so short inputs reach them.
private let awkward = [
    "", " ", "\"", "'", "\\", "!", "=", ",", ";", "NULL", "a b", "x ! fakesink", "\n", "$(id)", "(int)5", "{ a, b }", "<1,2>"
]

private func fuzzString(_ reader: inout FuzzReader) -> String {
    let choice = reader.byte()
    return choice < 32 ? awkward[Int(choice) % awkward.count] : reader.string()
}

private func typedGraph(_ reader: inout FuzzReader) -> GraphDescription {
    var graph = GraphDescription()
    let count = 1 + Int(reader.byte() % 5)
    var named: [Bool] = []
    var handles: [GraphDescription.Handle] = []
    for index in 0..<count {
        let nameChoice = reader.byte() % 4
        let name: String? =
            switch nameChoice {
            case 0: nil
            case 1: "n\(index)"
            default: fuzzString(&reader)
            }
        named.append(name != nil)
        let (factory, properties) = node(&reader)
        handles.append(graph.add(factory, name: name, properties: properties))
    }
    for _ in 0..<Int(reader.byte() % 6) {
        let source = Int(reader.byte()) % count, sink = Int(reader.byte()) % count
        // A request pad by name, only into a named element, whose pad the check below can find again.
        let padChoice = reader.byte()
        let sinkPad: String? = named[sink] && padChoice % 3 == 0 ? "sink_\(padChoice / 3 % 3)" : nil
        graph.link(handles[source], to: handles[sink], sinkPad: sinkPad)
    }
    return graph
}

/// One element with typed properties, the values from the input.
private func node(_ reader: inout FuzzReader) -> (String, [(String, GraphValue)]) {
    switch reader.byte() % 12 {
    case 0: return ("filesink", [("location", .string(fuzzString(&reader))), ("sync", .bool(reader.byte() & 1 == 1))])
    case 1: return ("fakesink", [("dump", .bool(reader.byte() & 1 == 1))])
    case 2: return ("capsfilter", [("caps", .caps(caps(&reader)))])
    case 3:
        return (
            "identity",
            [
                ("silent", .bool(reader.byte() & 1 == 1)), ("sleep-time", .int(reader.integer(bytes: 4))),
                ("error-after", .int(reader.integer(bytes: 4)))
            ]
        )
    case 4: return ("queue", [("leaky", .string(fuzzString(&reader))), ("max-size-buffers", .int(reader.integer(bytes: 4)))])
    case 5: return ("videotestsrc", [("pattern", .string(fuzzString(&reader))), ("num-buffers", .int(reader.integer(bytes: 2)))])
    case 6: return ("tee", [("allow-not-linked", .bool(reader.byte() & 1 == 1))])
    case 7: return ("uridecodebin", [("uri", .string(fuzzString(&reader)))])
    case 8: return ("input-selector", [("sync-mode", .string(fuzzString(&reader)))])
    case 9: return ("fakesrc", [("num-buffers", .int(reader.integer(bytes: 2))), ("format", .string(fuzzString(&reader)))])
    case 10: return ("swiftfilter", [("chain", .string(fuzzString(&reader)))])
    default: return ("v4l2src", [("device", .string(fuzzString(&reader))), ("extra-controls", .string(fuzzString(&reader)))])
    }
}

private func caps(_ reader: inout FuzzReader) -> CapsDescription {
    let mediaTypes = ["video/x-raw", "image/jpeg", "application/x-rtp"]
    let choice = Int(reader.byte())
    let mediaType = choice < 64 ? fuzzString(&reader) : mediaTypes[choice % mediaTypes.count]
    var fields: [(String, CapsDescription.Value)] = []
    for _ in 0..<Int(reader.byte() % 4) {
        let names = ["format", "width", "framerate", "colorimetry"]
        let nameChoice = Int(reader.byte())
        let name = nameChoice < 64 ? fuzzString(&reader) : names[nameChoice % names.count]
        switch reader.byte() % 3 {
        case 0: fields.append((name, .string(fuzzString(&reader))))
        case 1: fields.append((name, .int(reader.integer(bytes: 4))))
        default: fields.append((name, .fraction(reader.integer(bytes: 2), reader.integer(bytes: 2))))
        }
    }
    return CapsDescription(mediaType, fields)
}

/// The graph `show` prints for a config that loads; nil for a refused or a raw `"launch"` config.
private func configGraph(_ bytes: [UInt8]) -> GraphDescription? {
    let prefix = Array("--set ".utf8)
    var overrides: [String] = []
    var start = 0
    while bytes.count - start >= prefix.count, Array(bytes[start..<start + prefix.count]) == prefix {
        let valueStart = start + prefix.count
        let end = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        overrides.append(String(decoding: bytes[valueStart..<end], as: UTF8.self))
        start = min(end + 1, bytes.count)
    }
    guard let config = try? ConfigLoader.load(data: Data(bytes[start...]), file: "fuzz.json", overrides: overrides) else { return nil }
    return PipelineBuilder(config: config, hasDisplay: false).graph
}

// MARK: - The property

private func checkRoundTrip(_ graph: GraphDescription) {
    guard let built = try? graph.build() else { return }
    // What build() accepted, it stored: a number or flag reads back as given (not a GLib warning and the default).
    for node in graph.nodes {
        guard let name = node.name, let element = built.element(named: name) else { continue }
        for property in node.properties {
            switch property.value {
            case let .int(number):
                let stored = try? element.get(property.name, as: Int64.self)
                require(
                    stored == Int64(number),
                    "\(name).\(property.name) was built from \(number) but holds \(stored.map(String.init) ?? "nothing")")
            case let .bool(flag):
                let stored = try? element.get(property.name, as: Bool.self)
                require(stored == flag, "\(name).\(property.name) was built from \(flag) but holds \(stored.map(String.init) ?? "nothing")")
            case .string, .caps:
                break
            }
        }
    }
    let text = graph.launchText
    let parsed: Pipeline
    do {
        parsed = try Pipeline.parse(text)
    } catch {
        require(false, "the printed line does not parse: \(error)\n\(text)")
        return
    }
    let view = GraphView(graph)
    let builtElements = view.elements(of: built), parsedElements = view.elements(of: parsed)
    require(
        builtElements == parsedElements,
        "the printed line makes other elements\n\(text)\nbuilt:  \(builtElements)\nparsed: \(parsedElements)")
    let builtLinks = view.links(of: built), parsedLinks = view.links(of: parsed)
    require(builtLinks == parsedLinks, "the printed line links otherwise\n\(text)\nbuilt:  \(builtLinks)\nparsed: \(parsedLinks)")
    for link in graph.links {
        guard let pad = link.sinkPad, let name = graph.nodes[link.sink.index].name else { continue }
        let builtPeer = view.peer(of: pad, on: name, in: built), parsedPeer = view.peer(of: pad, on: name, in: parsed)
        require(
            builtPeer == parsedPeer,
            "\(name).\(pad) is linked from \(builtPeer ?? "nothing") built, \(parsedPeer ?? "nothing") parsed\n\(text)")
    }
    let command = graph.shellCommand()
    let expected = ["gst-launch-1.0"] + graph.launchLines.flatMap { $0 }
    switch shellWords(command) {
    case let .success(words):
        require(words == expected, "the shell splits the command otherwise\n\(command)\nshell:  \(words)\nlaunch: \(expected)")
    case let .failure(problem):
        require(false, "the shell command \(problem.reason)\n\(command)")
    }
}

/// What the comparison looks at in a pipeline, given the description it came from.
private struct GraphView {
    /// Per factory, the properties the description sets on some element of that factory.
    let properties: [String: Set<String>]
    /// Names the description gives or the printer may give (`factory-index`); other names are GStreamer's own
    /// numbering, which differs between two pipelines.
    let names: Set<String>

    init(_ graph: GraphDescription) {
        var properties: [String: Set<String>] = [:]
        var names = Set<String>()
        for (index, node) in graph.nodes.enumerated() {
            properties[node.factory, default: []].formUnion(node.properties.map(\.name))
            if let name = node.name { names.insert(name) }
            names.insert("\(node.factory)-\(index)")
        }
        self.properties = properties
        self.names = names
    }

    /// Factory, name where it is ours, and each described property as GStreamer serializes it.
    func signature(_ element: Element) -> String {
        let factory = element.factoryName ?? "?"
        var text = factory
        let name = element.name
        if names.contains(name) { text += " name=\(shown(name))" }
        for property in (properties[factory] ?? []).sorted() {
            text += " \(property)=\(shown(element.serializedProperty(property) ?? "(none)"))"
        }
        return text
    }

    func elements(of pipeline: Pipeline) -> [String] {
        pipeline.allElements.map(signature).sorted()
    }

    /// Every link between two elements; request pad numbers (`src_0`, `src_1`) are left out, because they
    /// count requests, which a parser makes in its own order.
    func links(of pipeline: Pipeline) -> [String] {
        var links: [String] = []
        for element in pipeline.allElements {
            for pad in element.pads where pad.isSource {
                guard let peer = pad.peer, let downstream = peer.parentElement else { continue }
                links.append("\(signature(element)) .\(template(pad.name)) ! \(signature(downstream)) .\(template(peer.name))")
            }
        }
        return links.sorted()
    }

    /// The element linked into the named pad of the named element.
    func peer(of pad: String, on name: String, in pipeline: Pipeline) -> String? {
        guard let element = pipeline.element(named: name) else { return nil }
        guard let sink = element.pads.first(where: { $0.name == pad }), let upstream = sink.peer?.parentElement else { return nil }
        return signature(upstream)
    }

    private func template(_ pad: String) -> String {
        guard let underscore = pad.lastIndex(of: "_"), pad[pad.index(after: underscore)...].allSatisfy(\.isNumber),
            pad.index(after: underscore) < pad.endIndex
        else { return pad }
        return String(pad[...underscore]) + "N"
    }
}

// MARK: - A POSIX shell's word splitting

struct ShellProblem: Error {
    let reason: String
}

/// Splits a command line as a POSIX shell does for the constructs `shellCommand` may use: blanks between
/// words, `\`-newline continuations, `'…'` and `"…"` quoting, `\` escapes. Anything the shell would expand
/// or treat as an operator outside quotes is a problem, except a word that is exactly `!`.
func shellWords(_ line: String) -> Result<[String], ShellProblem> {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+/:.,=@%".unicodeScalars)
    var words: [String] = []
    var word = "", inWord = false, bareBang = true
    var scalars = Array(line.unicodeScalars)[...]
    func finish() {
        if inWord { words.append(word) }
        word = ""; inWord = false; bareBang = true
    }
    while let scalar = scalars.popFirst() {
        switch scalar {
        case " ", "\t":
            finish()
        case "\n":
            return .failure(ShellProblem(reason: "has a bare newline (the shell would end the command there)"))
        case "\\":
            guard let next = scalars.popFirst() else { return .failure(ShellProblem(reason: "ends in a backslash")) }
            if next != "\n" { word.unicodeScalars.append(next); inWord = true; bareBang = false }
        case "'":
            inWord = true; bareBang = false
            while true {
                guard let next = scalars.popFirst() else { return .failure(ShellProblem(reason: "has an unclosed single quote")) }
                if next == "'" { break }
                word.unicodeScalars.append(next)
            }
        case "\"":
            inWord = true; bareBang = false
            while true {
                guard let next = scalars.popFirst() else { return .failure(ShellProblem(reason: "has an unclosed double quote")) }
                if next == "\"" { break }
                if next == "$" || next == "`" || next == "!" {
                    return .failure(ShellProblem(reason: "expands \(next) inside double quotes"))
                }
                if next == "\\", let escaped = scalars.first, "$`\"\\\n".unicodeScalars.contains(escaped) {
                    scalars.removeFirst()
                    if escaped != "\n" { word.unicodeScalars.append(escaped) }
                    continue
                }
                word.unicodeScalars.append(next)
            }
        case "!":
            word.unicodeScalars.append(scalar)
            let alone = bareBang && !inWord && (scalars.first.map { $0 == " " || $0 == "\t" || $0 == "\n" } ?? true)
            inWord = true
            if !alone { return .failure(ShellProblem(reason: "has a bare '!' inside a word")) }
            bareBang = false
        default:
            guard safe.contains(scalar) else {
                return .failure(ShellProblem(reason: "has a bare \(shown(String(scalar))) the shell treats specially"))
            }
            word.unicodeScalars.append(scalar); inWord = true; bareBang = false
        }
    }
    finish()
    return .success(words)
}
