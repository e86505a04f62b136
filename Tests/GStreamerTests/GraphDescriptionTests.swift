import GStreamer
import Testing

@Suite("Graph descriptions")
struct GraphDescriptionTests {
    /// Strings the launch parser would otherwise split, unescape, unquote or read as NULL.
    static let awkward = [
        "", "plain", "with space", "it's", "say \"hi\"", "\"quoted\"", "\"", "'", "a!b", "a=b", "a,b", "(x)",
        "back\\slash", "trailing\\", "\\\"", "NULL", "tab\there", "new\nline", "caméra", "$HOME `id` ; | & < >",
        "x ! fakesink videotestsrc", "\"\\\"a\\\"\""
    ]

    /// Every value printed into launch text comes back from `gst_parse_launch` exactly as it went in.
    @Test(arguments: awkward)
    func stringPropertySurvivesTheLaunchParser(value: String) throws {
        var graph = GraphDescription()
        graph.chain(graph.add("fakesrc", ["num-buffers": 1]), graph.add("filesink", name: "out", ["location": .string(value)]))
        let parsed = try Pipeline.parse(graph.launchText)
        #expect(try parsed.element(named: "out")?.get("location", as: String.self) == value, "\(graph.launchText)")
        #expect(parsed.allElements.count == 2)
        let built = try graph.build()
        #expect(try built.element(named: "out")?.get("location", as: String.self) == value)
    }

    /// Text for an enum or flags property prints as itself, not as a quoted string: an enum's name with a space
    /// ("Solid color", which the fuzzer found) reads back as the same value (it printed as `"\"Solid\\ color\""`).
    @Test(arguments: [
        ("videotestsrc", "pattern", "Solid color", "solid-color"), ("videotestsrc", "pattern", "ball", "ball"),
        ("x264enc", "tune", "zerolatency+fastdecode", "")
    ])
    func enumAndFlagsTextReadsBackAsTheValue(factory: String, property: String, text: String, stored: String) throws {
        guard Element.factoryExists(factory) else { return }
        var graph = GraphDescription()
        graph.chain(graph.add(factory, name: "e", properties: [(property, .string(text))]), graph.add("fakesink"))
        let built = try graph.build().element(named: "e")?.serializedProperty(property)
        let parsed = try Pipeline.parse(graph.launchText).element(named: "e")?.serializedProperty(property)
        #expect(
            built != nil && built == parsed && (stored.isEmpty || built == stored),
            "\(graph.launchText): built \(built ?? "-"), parsed \(parsed ?? "-")")
    }

    /// Caps go in as typed fields and print as caps text that parses to equal caps.
    @Test func capsAreTypedFieldsAndPrintAsCaps() throws {
        let description = CapsDescription(
            "video/x-raw",
            [
                ("format", .string("NV12")), ("width", .int(64)),
                ("height", .int(48)), ("framerate", .fraction(30, 1))
            ])
        let caps = try Caps(description)
        #expect(caps.isEqual(to: try Caps(parsing: "video/x-raw,format=NV12,width=64,height=48,framerate=30/1")))
        var graph = GraphDescription()
        graph.chain(graph.add("videotestsrc"), graph.add("capsfilter", name: "f", ["caps": .caps(description)]), graph.add("fakesink"))
        let parsed = try #require(try Pipeline.parse(graph.launchText).element(named: "f")).get("caps", as: Caps.self)
        #expect(parsed.isEqual(to: caps))
        // A string that is not a format stays one field value; it never becomes more fields.
        let oddFields = CapsDescription("video/x-raw", [("format", .string("NV12, width=(int)8 \" ! fakesink"))])
        let odd = try Caps(oddFields)
        #expect(odd.structure(at: 0)?.fieldNames == ["format"])
        var oddGraph = GraphDescription()
        oddGraph.chain(oddGraph.add("fakesrc"), oddGraph.add("capsfilter", name: "f", ["caps": .caps(oddFields)]), oddGraph.add("fakesink"))
        let oddParsed = try Pipeline.parse(oddGraph.launchText)
        #expect(try #require(oddParsed.element(named: "f")).get("caps", as: Caps.self).isEqual(to: odd), "\(oddGraph.launchText)")
        #expect(oddParsed.allElements.count == 3)
        #expect(throws: GStreamerError.self) { try Caps(CapsDescription("video/x-raw", [("width", .int(1 << 40))])) }
    }

    /// Shared elements are reached by name; one that has none gets a fixed name both sides agree on.
    @Test func sharedElementsPrintAsReferences() throws {
        var graph = GraphDescription()
        let source = graph.add("videotestsrc", ["num-buffers": 3])
        let tee = graph.add("tee")
        graph.link(source, to: tee)
        let selector = graph.add("input-selector", name: "pick")
        for index in 0..<2 {
            let queue = graph.add("queue")
            graph.link(tee, to: queue)
            graph.link(queue, to: selector, sinkPad: "sink_\(index)")
        }
        graph.link(selector, to: graph.add("fakesink", name: "end"))
        let lines = graph.launchLines.map { $0.joined(separator: " ") }
        #expect(
            lines == [
                "videotestsrc num-buffers=3 ! tee name=tee-1",
                "input-selector name=pick ! fakesink name=end",
                "tee-1. ! queue ! pick.sink_0",
                "tee-1. ! queue ! pick.sink_1"
            ])
        let built = try graph.build()
        #expect(built.element(named: "tee-1") != nil)
        let selectorPads = try #require(built.element(named: "pick")).pads.filter { !$0.isSource }.map(\.name).sorted()
        #expect(selectorPads == ["sink_0", "sink_1"])
        let parsed = try Pipeline.parse(graph.launchText)
        #expect(parsed.allElements.map { $0.factoryName ?? "" }.sorted() == built.allElements.map { $0.factoryName ?? "" }.sorted())
        let bus = built.bus
        try built.setState(.playing)
        defer { try? built.setState(.null) }
        guard case .eos? = bus.waitForEnd(timeout: 30) else {
            Issue.record("the built graph did not reach the end of its three buffers")
            return
        }
    }

    /// A value of the wrong type for its property is an error naming the element and property, not a crash.
    @Test func wrongTypedValueIsAnError() {
        var graph = GraphDescription()
        graph.add("queue", name: "q", ["max-size-buffers": "many"])
        #expect(throws: GStreamerError.propertyTypeMismatch(element: "q", property: "max-size-buffers", expected: "guint")) {
            try graph.build()
        }
    }

    // What fuzzing the launch printer found (Tests/Fuzz, FuzzLaunch; the inputs are `found-*` in its corpus).

    /// A caps field name or media type the caps syntax cannot write was stored, then printed bare, as text
    /// that does not parse (`width=(string)er, sepia | …=(string)…`): such caps are refused when made.
    @Test(arguments: ["er, sepia | lut", "a b", "x=y", "", "caméra", "a;b"])
    func capsFieldNamesMustBeWritable(name: String) {
        #expect(throws: GStreamerError.self) { try Caps(CapsDescription("video/x-raw", [(name, .int(1))])) }
        #expect(throws: GStreamerError.self) { try Caps(CapsDescription(name.isEmpty ? "" : "video/" + name)) }
        var graph = GraphDescription()
        graph.chain(
            graph.add("fakesrc"), graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [(name, .int(1))]))]),
            graph.add("fakesink"))
        #expect(throws: GStreamerError.self) { try graph.build() }
    }

    @Test func writableCapsNamesStillWork() throws {
        let caps = try Caps(CapsDescription("application/x-rtp", [("clock-rate", .int(90000)), ("a:b+c.d/e_f", .string("x y"))]))
        #expect(caps.isEqual(to: try Caps(parsing: caps.description)))
    }

    /// An element reached by name must have a name the launch lexer reads as a reference (`name.pad`); the
    /// printed `…pick.sink_0` with a name like "\u{FFFD}pick" did not parse. Unreferenced, any name prints.
    @Test func referencedElementsNeedLaunchIdentifiers() throws {
        for name in ["\u{FFFD}pick", "a b", "a.b", "-a", "a+b", "a/b", "caméra"] {
            var graph = GraphDescription()
            let tee = graph.add("tee", name: name)
            graph.link(graph.add("fakesrc"), to: tee)
            graph.link(tee, to: graph.add("fakesink"))
            graph.link(tee, to: graph.add("fakesink"))
            #expect(throws: GStreamerError.nameNotReferenceable(name), "\(name)") { try graph.build() }

            var plain = GraphDescription()
            plain.chain(plain.add("fakesrc"), plain.add("identity", name: name), plain.add("fakesink"))
            let parsed = try Pipeline.parse(plain.launchText)
            #expect(parsed.element(named: name) != nil, "\(plain.launchText)")
            #expect(try plain.build().element(named: name) != nil)
        }
        for name in ["a", "a-b", "a_b", "a:b", "a%b", "1a", "_a", "tee-1"] {
            var graph = GraphDescription()
            let tee = graph.add("tee", name: name)
            graph.link(graph.add("fakesrc"), to: tee)
            graph.link(tee, to: graph.add("fakesink"))
            graph.link(tee, to: graph.add("fakesink"))
            _ = try graph.build()
            #expect(try Pipeline.parse(graph.launchText).allElements.count == 4, "\(graph.launchText)")
        }
    }

    /// A link from an element to itself built (uridecodebin waits for pads) but printed as `n0. ! n0.`, which
    /// the launch parser refuses; it is refused when built too.
    @Test func anElementCannotLinkToItself() {
        var graph = GraphDescription()
        let decoder = graph.add("uridecodebin", name: "n0")
        graph.link(decoder, to: decoder)
        #expect(throws: GStreamerError.linkFailed(source: "n0", sink: "n0", reason: "an element cannot link to itself")) {
            try graph.build()
        }
        #expect(throws: GStreamerError.self) { try Pipeline.parse(graph.launchText) }
    }

    /// A loop through two or three elements overflowed the stack in GStreamer's caps query while linking (the
    /// Launch fuzz target's crash, Tests/Fuzz/Corpus/Launch/loop-*); the link that closes it is refused instead.
    @Test(arguments: [2, 3])
    func aLinkThatClosesALoopIsRefused(length: Int) {
        var graph = GraphDescription()
        let elements = (0..<length).map { graph.add("identity", name: "n\($0)") }
        for (source, sink) in zip(elements, elements.dropFirst()) { graph.link(source, to: sink) }
        graph.link(elements[length - 1], to: elements[0])
        // Which link of the loop is refused depends on the order they are made in (the printed one).
        let built = #expect(throws: GStreamerError.self) { try graph.build() }
        let bin = #expect(throws: GStreamerError.self) { try graph.buildBin() }
        for error in [built, bin] {
            #expect(
                error.map { "\($0)".hasSuffix("the link would close a loop, and data flows one way") } == true,
                "\(String(describing: error))")
        }
    }

    /// A named request pad (`pick.sink_0`) described before an unnamed link into the same selector, which prints
    /// first and takes `sink_0` (the Launch fuzz target's finding): built in the description's order it linked, and
    /// the printed line did not parse. Built in the printed order, both refuse it alike.
    @Test func buildLinksInThePrintedOrder() throws {
        var graph = GraphDescription()
        let tee = graph.add("tee", name: "t"), pick = graph.add("input-selector", name: "pick")
        graph.link(graph.add("videotestsrc", ["num-buffers": 1]), to: tee)
        graph.link(tee, to: pick, sinkPad: "sink_0")
        graph.chain(tee, graph.add("queue"), pick)
        graph.link(pick, to: graph.add("fakesink"))
        #expect(throws: GStreamerError.self, "built: \(graph.launchText)") { try graph.build() }
        #expect(throws: GStreamerError.self) { try Pipeline.parse(graph.launchText) }
        // The other way round both make the same graph.
        var fine = GraphDescription()
        let tee2 = fine.add("tee", name: "t"), pick2 = fine.add("input-selector", name: "pick")
        fine.link(fine.add("videotestsrc", ["num-buffers": 1]), to: tee2)
        fine.chain(tee2, fine.add("queue"), pick2)
        fine.link(tee2, to: pick2, sinkPad: "sink_1")
        fine.link(pick2, to: fine.add("fakesink"))
        #expect(try fine.build().allElements.count == 5)
        #expect(try Pipeline.parse(fine.launchText).allElements.count == 5)
    }

    /// Two paths that meet again (a tee's two queues into one funnel) are no loop.
    @Test func pathsThatMeetAgainAreNoLoop() throws {
        var graph = GraphDescription()
        let tee = graph.add("tee"), funnel = graph.add("funnel")
        graph.link(graph.add("fakesrc"), to: tee)
        for _ in 0..<2 { graph.chain(tee, graph.add("queue"), funnel) }
        graph.link(funnel, to: graph.add("fakesink"))
        #expect(try graph.build().allElements.count == 6)
    }
}
