import CGStreamer
import Synchronization

/// A value for an element property in a `GraphDescription`: typed, never graph syntax.
///
/// Enum and flags properties take their nick as a `.string` (`"downstream"`, `"zerolatency"`), as
/// `Element.set` does. Literals work (`true`, `2`, `"smpte"`); a run-time string is spelled `.string(text)`,
/// so a config value never slips in through interpolation.
public enum GraphValue: Sendable, Hashable, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// A `gboolean` property.
    case bool(Bool)
    /// Any integer property (`gint`, `guint`, `gint64`, …); setting it converts to the property's type and checks its range.
    case int(Int)
    /// A string property, or an enum or flags property by its nick.
    case string(String)
    /// A `GstCaps` property (a capsfilter's `caps`), built from typed fields.
    case caps(CapsDescription)

    /// `true` or `false` written where a value goes: `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A whole number written where a value goes: `.int`.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A string literal written where a value goes: `.string`.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Sets this value on `property` of `element` with the typed setters.
    public func apply(to element: Element, property: String) throws(GStreamerError) {
        switch self {
        case let .bool(value): try element.set(property, value)
        case let .int(value): try element.set(property, value)
        case let .string(value): try element.set(property, value)
        case let .caps(description): try element.set(property, Caps(description))
        }
    }

    /// The value as the launch parser must read it for `property` of a `factory` element: text for an enum or flags
    /// property is the nick, name or flags text itself (the parser deserializes it as the property's type, and a
    /// string's serialized form, in quotes with escapes, is no enum name); everything else is `serialized`.
    func launchSerialized(factory: String, property: String) -> String {
        if case let .string(text) = self, Element.propertyIsEnumOrFlags(factory: factory, property: property) { return text }
        return serialized
    }

    /// The value as GStreamer writes it: `gst_value_serialize` of a GValue of its own type. Caps print as
    /// `gst_caps_to_string`, the text `gst_value_serialize` would wrap in quotes again for nesting inside a
    /// structure; a caps property reads either back, because caps text never starts with a quote.
    public var serialized: String {
        GStreamer.initialize()
        var value = GValue()
        switch self {
        case let .bool(flag):
            g_value_init(&value, CGStreamer_type_boolean())
            g_value_set_boolean(&value, flag ? 1 : 0)
        case let .int(number):
            g_value_init(&value, CGStreamer_type_int64())
            g_value_set_int64(&value, number)
        case let .string(text):
            g_value_init(&value, CGStreamer_type_string())
            g_value_set_string(&value, text)
        case let .caps(description):
            return (try? Caps(description))?.description ?? description.mediaType
        }
        defer { g_value_unset(&value) }
        return String(adoptingGLibString: gst_value_serialize(&value)) ?? ""
    }
}

/// Caps built from typed fields (`video/x-raw` with `format`, `width`, …), never parsed from text.
public struct CapsDescription: Sendable, Hashable {
    /// A caps field value, typed as caps fields are (`int`, `string`, `fraction`).
    public enum Value: Sendable, Hashable {
        /// A `gint` field, e.g. `width=640`.
        case int(Int)
        /// A string field, e.g. `format=I420`.
        case string(String)
        /// A `GstFraction` field, numerator then denominator, e.g. `framerate=30/1`.
        case fraction(Int, Int)
        /// Any whole number from the first to the second, inclusive (`[1, 960]`): the negotiation picks one.
        case intRange(Int, Int)
    }

    /// One named field.
    public struct Field: Sendable, Hashable {
        /// The field's name, e.g. "width".
        public var name: String
        /// The field's typed value.
        public var value: Value
    }

    /// The media type, e.g. "video/x-raw".
    public var mediaType: String
    /// The fields, in the order they print.
    public var fields: [Field]

    /// Caps of `mediaType` with these (name, value) fields, in order.
    public init(_ mediaType: String, _ fields: [(String, Value)] = []) {
        self.mediaType = mediaType
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// Whether `name` is written bare in caps text and read back as the same name: ASCII letters, digits
    /// and `/-_.:+` (`gst_structure_validate_name`; the caps parser's `GST_ASCII_IS_STRING`).
    static func isName(_ name: String, startingWithLetter: Bool) -> Bool {
        guard let first = name.unicodeScalars.first, !startingWithLetter || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/-_.:+".unicodeScalars.contains($0))
        }
    }
}

extension Caps {
    /// Caps with one structure made from typed fields. Calls `gst_caps_new_empty_simple` and `gst_caps_set_value`.
    ///
    /// The media type and the field names must be names GStreamer's caps syntax can write (a letter, then
    /// letters, digits and `/-_.:+`; field names from those characters): GStreamer stores other names but
    /// prints them bare, as text that no longer parses to these caps.
    public convenience init(_ description: CapsDescription) throws(GStreamerError) {
        GStreamer.initialize()
        guard CapsDescription.isName(description.mediaType, startingWithLetter: true),
            let caps = gst_caps_new_empty_simple(description.mediaType)
        else {
            throw .invalidCaps(description.mediaType)
        }
        self.init(adopting: caps)
        for field in description.fields {
            guard CapsDescription.isName(field.name, startingWithLetter: false) else {
                throw .invalidCaps("\(description.mediaType), \(field.name)")
            }
            var value = GValue()
            switch field.value {
            case let .int(number):
                guard let narrow = Int32(exactly: number) else { throw .invalidCaps("\(description.mediaType), \(field.name)=\(number)") }
                g_value_init(&value, CGStreamer_type_int())
                g_value_set_int(&value, narrow)
            case let .string(text):
                g_value_init(&value, CGStreamer_type_string())
                g_value_set_string(&value, text)
            case let .fraction(numerator, denominator):
                guard let top = Int32(exactly: numerator), let bottom = Int32(exactly: denominator), bottom != 0 else {
                    throw .invalidCaps("\(description.mediaType), \(field.name)=\(numerator)/\(denominator)")
                }
                g_value_init(&value, CGStreamer_type_fraction())
                gst_value_set_fraction(&value, top, bottom)
            case let .intRange(low, high):
                guard let low32 = Int32(exactly: low), let high32 = Int32(exactly: high), low32 < high32 else {
                    throw .invalidCaps("\(description.mediaType), \(field.name)=[\(low), \(high)]")
                }
                g_value_init(&value, gst_int_range_get_type())
                gst_value_set_int_range(&value, low32, high32)
            }
            gst_caps_set_value(pointer, field.name, &value)
            g_value_unset(&value)
        }
    }
}

/// A graph as data: elements (factory, name, typed properties) and the links between their pads.
///
/// The one description both builds the pipeline (`build()`, with `Element.make` and typed setters) and
/// prints its gst-launch text (`launchText`, `shellCommand`), so the two cannot drift. Every printed value
/// is `gst_value_serialize`d and then quoted for the launch parser (and the shell), so the printed line
/// parses back to the same graph whatever the value holds.
public struct GraphDescription: Sendable, Equatable {
    /// One element to make.
    public struct Node: Sendable, Equatable {
        /// The factory, e.g. "videotestsrc".
        public var factory: String
        /// The element's name; nil lets GStreamer pick one.
        public var name: String?
        /// Properties in the order they are set and printed.
        public var properties: [Property]
    }

    /// One property setting.
    public struct Property: Sendable, Equatable {
        /// The property's name, e.g. "num-buffers".
        public var name: String
        /// The typed value to set.
        public var value: GraphValue
    }

    /// A link between two elements; a nil pad means "any compatible pad" (a request pad when that is all
    /// there is), as in gst-launch. A pad name such as "sink_0" requests that pad from a template.
    public struct Link: Sendable, Equatable {
        /// The upstream element.
        public var source: Handle
        /// The upstream element's source pad; nil for any compatible one.
        public var sourcePad: String?
        /// The downstream element.
        public var sink: Handle
        /// The downstream element's sink pad; nil for any compatible one.
        public var sinkPad: String?
    }

    /// A pad of an inner element exposed on the bin `buildBin()` makes.
    public struct GhostPad: Sendable, Equatable {
        /// The ghost pad's name on the bin, e.g. "sink".
        public var name: String
        /// The inner element whose pad it exposes.
        public var element: Handle
        /// The inner element's pad, e.g. "src".
        public var pad: String
    }

    /// Refers to an element added to this description.
    public struct Handle: Sendable, Hashable {
        /// The element's position in `nodes`.
        public let index: Int
    }

    /// The elements, in the order they are made and printed.
    public private(set) var nodes: [Node] = []
    /// The links, in the order they are made.
    public private(set) var links: [Link] = []
    /// Ghost pads for `buildBin()`.
    public private(set) var ghostPads: [GhostPad] = []

    /// An empty graph.
    public init() {}

    /// Adds an element made from `factory` with these properties, set in order.
    @discardableResult
    public mutating func add(_ factory: String, name: String? = nil, _ properties: KeyValuePairs<String, GraphValue> = [:]) -> Handle {
        nodes.append(Node(factory: factory, name: name, properties: properties.map { Property(name: $0.key, value: $0.value) }))
        return Handle(index: nodes.count - 1)
    }

    /// Adds an element with properties assembled at run time (for ones a config may or may not give).
    @discardableResult
    public mutating func add(_ factory: String, name: String? = nil, properties: [(String, GraphValue)]) -> Handle {
        nodes.append(Node(factory: factory, name: name, properties: properties.map { Property(name: $0.0, value: $0.1) }))
        return Handle(index: nodes.count - 1)
    }

    /// Links `source` to `sink`, through the named pads when given.
    public mutating func link(_ source: Handle, to sink: Handle, sourcePad: String? = nil, sinkPad: String? = nil) {
        links.append(Link(source: source, sourcePad: sourcePad, sink: sink, sinkPad: sinkPad))
    }

    /// Links each element to the next (`a ! b ! c`).
    public mutating func chain(_ handles: Handle...) {
        for (source, sink) in zip(handles, handles.dropFirst()) { link(source, to: sink) }
    }

    /// Exposes `pad` of `element` as a ghost pad `name` on the bin `buildBin()` makes.
    public mutating func ghost(_ name: String, _ element: Handle, pad: String) {
        ghostPads.append(GhostPad(name: name, element: element, pad: pad))
    }

    /// The name each element gets: its own, or, when launch text must refer to it by name, a fixed one
    /// (`factory-index`) used both when building and when printing.
    var effectiveNames: [String?] {
        let referenced = layout().referenced
        return nodes.indices.map { index in
            nodes[index].name ?? (referenced.contains(index) ? "\(nodes[index].factory)-\(index)" : nil)
        }
    }

    // MARK: - Building

    /// Makes every element, sets its properties, adds them to a new pipeline and links them.
    /// Calls `gst_element_factory_make`, `g_object_set_property` and `gst_element_link_pads`.
    public func build() throws(GStreamerError) -> Pipeline {
        let pipeline = Pipeline()
        _ = try populate(pipeline)
        return pipeline
    }

    /// The same, into a new bin whose ghost pads are `ghostPads`. Calls `gst_ghost_pad_new`.
    public func buildBin(name: String? = nil) throws(GStreamerError) -> Bin {
        let bin = Bin(name: name)
        let elements = try populate(bin)
        for ghost in ghostPads {
            try bin.addGhostPad(name: ghost.name, target: elements[ghost.element.index].staticPad(ghost.pad))
        }
        return bin
    }

    private func populate(_ bin: Bin) throws(GStreamerError) -> [Element] {
        // A graph whose printed line could not name an element it links by name is not built at all.
        if let name = unreferenceableName { throw .nameNotReferenceable(name) }
        let names = effectiveNames
        var elements: [Element] = []
        for (index, node) in nodes.enumerated() {
            let element = try Element.make(node.factory, name: names[index])
            for property in node.properties {
                try property.value.apply(to: element, property: property.name)
            }
            elements.append(element)
        }
        try bin.add(elements)
        var downstream = [Set<Int>](repeating: [], count: nodes.count)
        // In the order the printed line makes them: which request pad an unnamed link gets (`queue ! selector.`
        // takes `sink_0`) depends on the links before it, and `show`'s line must make the same graph (found by
        // fuzzing: a named `selector.sink_0` after such a link printed a line the parser refused).
        for link in layout().order.map({ links[$0] }) {
            // gst_parse_launch refuses these; an element whose pads appear later would otherwise wait forever.
            guard link.source != link.sink else {
                let name = elements[link.source.index].name
                throw .linkFailed(source: name, sink: name, reason: "an element cannot link to itself")
            }
            // A loop (`a ! b` and `b ! a`) sends linking's caps query round it until the stack overflows (found by
            // fuzzing): data flows one way, so the link that would close one is refused.
            guard !Self.reaches(from: link.sink.index, to: link.source.index, downstream) else {
                throw .linkFailed(
                    source: elements[link.source.index].name, sink: elements[link.sink.index].name,
                    reason: "the link would close a loop, and data flows one way")
            }
            downstream[link.source.index].insert(link.sink.index)
            try elements[link.source.index].linkPads(link.sourcePad, to: elements[link.sink.index], link.sinkPad)
        }
        return elements
    }

    /// Whether `target` is downstream of `start` (or is it) along the links so far.
    private static func reaches(from start: Int, to target: Int, _ downstream: [Set<Int>]) -> Bool {
        var seen: Set<Int> = [start], pending = [start]
        while let index = pending.popLast() {
            if index == target { return true }
            for next in downstream[index] where seen.insert(next).inserted { pending.append(next) }
        }
        return false
    }
}

// MARK: - Linking, including pads that appear later

extension Element {
    /// Links through the named pads (nil: any compatible pad, requesting one if need be), like gst-launch.
    /// When this element's source pads only appear while it runs (`uridecodebin`), links the first fitting
    /// one as it appears. Calls `gst_element_link_pads`; connects to `pad-added`.
    public func linkPads(_ sourcePad: String?, to sink: Element, _ sinkPad: String?) throws(GStreamerError) {
        if gst_element_link_pads(pointer, sourcePad, sink.pointer, sinkPad) != 0 { return }
        guard hasSometimesSourcePads else {
            throw .linkFailed(
                source: sourcePad.map { "\(name).\($0)" } ?? name,
                sink: sinkPad.map { "\(sink.name).\($0)" } ?? sink.name,
                reason: "no compatible pads or formats")
        }
        let context = CallbackRegistry.register(DelayedLink(sink: sink, sourcePad: sourcePad, sinkPad: sinkPad))
        let added: @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = {
            element, pad, userData in
            // On a streaming thread: a pad that does not fit is left alone, never an error.
            guard let element, let pad, gst_pad_get_direction(pad) == GST_PAD_SRC,
                let link = CallbackRegistry.lookup(userData, as: DelayedLink.self), !link.done.load(ordering: .acquiring)
            else { return }
            let padName = objectName(UnsafeMutableRawPointer(pad))
            if let wanted = link.sourcePad, wanted != padName { return }
            if gst_element_link_pads(element, padName, link.sink.pointer, link.sinkPad) != 0 {
                link.done.store(true, ordering: .releasing)
            }
        }
        g_signal_connect_data(
            UnsafeMutableRawPointer(pointer), "pad-added", unsafeBitCast(added, to: GCallback.self), context,
            { userData, _ in CallbackRegistry.remove(userData) }, CGStreamer_connect_default)
    }

    /// Whether the element's class has a source pad template with "sometimes" presence.
    /// Calls `gst_element_class_get_pad_template_list`.
    var hasSometimesSourcePads: Bool {
        let elementClass = UnsafeMutableRawPointer(CGStreamer_object_class(objectPointer)).assumingMemoryBound(to: GstElementClass.self)
        var node = gst_element_class_get_pad_template_list(elementClass)
        while let current = node {
            if let template = current.pointee.data?.assumingMemoryBound(to: GstPadTemplate.self),
                template.pointee.direction == GST_PAD_SRC, template.pointee.presence == GST_PAD_SOMETIMES
            {
                return true
            }
            node = current.pointee.next
        }
        return false
    }
}

/// What a `pad-added` handler links to, and whether it already has.
private final class DelayedLink: Sendable {
    let sink: Element
    let sourcePad: String?
    let sinkPad: String?
    let done = Atomic<Bool>(false)

    init(sink: Element, sourcePad: String?, sinkPad: String?) {
        self.sink = sink
        self.sourcePad = sourcePad
        self.sinkPad = sinkPad
    }
}
