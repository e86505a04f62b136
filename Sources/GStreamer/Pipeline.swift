import Base
public import CGStreamer

/// A top-level bin with a clock and a bus. Set to NULL before its reference is dropped.
/// Unchecked Sendable: it adds no stored property to `Bin`, and the `GstPipeline` it wraps is thread-safe like any
/// GStreamer element.
public final class Pipeline: Bin, @unchecked Sendable {
    /// The GType this wrapper stands for.
    override public class var gType: GType { gst_pipeline_get_type() }

    /// A new empty pipeline. Calls `gst_pipeline_new`.
    public convenience init(name: String? = nil) {
        GStreamer.initialize()
        self.init(sinking: gst_pipeline_new(name))
    }

    /// Builds a pipeline from gst-launch text; a lone element is wrapped in a new pipeline.
    /// Calls `gst_parse_launch_full` with fatal errors, so a missing element fails instead of being skipped.
    public static func parse(_ description: String) throws(GStreamerError) -> Pipeline {
        let element = try parseLaunch(description)
        if isInstance(element.pointer, of: gst_pipeline_get_type()) {
            return Pipeline(retaining: element.pointer)
        }
        let pipeline = Pipeline()
        try pipeline.add(element)
        return pipeline
    }

    deinit {
        // A pipeline dropped while PLAYING would keep its streaming threads running on freed state.
        gst_element_set_state(pointer, GST_STATE_NULL)
    }

    /// The pipeline's bus. Calls `gst_pipeline_get_bus`.
    public var bus: Bus {
        let raw = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstPipeline.self)
        return Bus(adopting: gst_pipeline_get_bus(raw))
    }
}

/// Parses gst-launch text into an element (usually a pipeline).
/// Calls `gst_parse_launch_full`; an unknown element becomes `elementNotFound` naming it.
///
/// gst_parse_launch (1.22, and upstream as of this writing) dereferences NULL when a description leaves no
/// element at its top level but still has a link between references to resolve: `a. ! b.`, `t. ! queue !`,
/// `! a. ! b.` crash the process (found by fuzzing raw `"launch"` configs). So the text must start the way a
/// chain can (an element, a URI, a bin or a reference; anything else is GStreamer's own syntax error), and it
/// is parsed after an empty bin of ours, which starts a chain of its own (the text parses as it would alone)
/// and keeps the top level from ever being empty; the bin is taken out again. A lone element comes back
/// unwrapped, as gst_parse_launch returns it; a lone bin is parsed once more without our bin, because
/// GStreamer resolves references against a lone bin differently (not to the bin itself).
public func parseLaunch(_ description: String) throws(GStreamerError) -> Element {
    GStreamer.initialize()
    let text = description.unicodeScalars.drop { $0.properties.isWhitespace }
    // Empty text has no link to resolve; GStreamer says "empty pipeline not allowed" itself.
    guard let first = text.first else { return try parseLaunchText(description) }
    let start = String(String.UnicodeScalarView(text.prefix(3)))
    let startsAChain =
        first.isASCII && (first.properties.isAlphabetic || ("0"..."9").contains(first) || "_(/".unicodeScalars.contains(first))
        || start.hasPrefix("./") || start.hasPrefix("../")
    guard startsAChain, !startsWithAssignment(text) else {
        throw .parse(
            GLibError(
                domain: "gst_parse_error", code: Int(GST_PARSE_ERROR_SYNTAX.rawValue),
                message: "syntax error: a description starts with an element, a URI, a bin or a reference"))
    }
    let sentinel = "swiftcam-parse-sentinel"
    let top = try parseLaunchText("bin name=\(sentinel) " + description)
    guard top.name != sentinel else {
        // Nothing but our bin: the text made no element.
        throw .parse(GLibError(domain: "gst_parse_error", code: Int(GST_PARSE_ERROR_EMPTY.rawValue), message: "empty pipeline not allowed"))
    }
    let bin = UnsafeMutableRawPointer(top.pointer).assumingMemoryBound(to: GstBin.self)
    if let ours = gst_bin_get_by_name(bin, sentinel) {
        gst_bin_remove(bin, ours)
        gst_object_unref(ours)
    }
    guard bin.pointee.numchildren == 1, let child = bin.pointee.children?.pointee.data else { return top }
    if isInstance(child, of: gst_bin_get_type()) { return try parseLaunchText(description) }
    let element = child.assumingMemoryBound(to: GstElement.self)
    gst_object_ref(element)
    gst_bin_remove(bin, element)
    return Element(adopting: element)
}

/// Whether the text starts `identifier=`: a property with no element before it.
private func startsWithAssignment(_ text: Substring.UnicodeScalarView) -> Bool {
    let identifier = text.prefix {
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-%:".unicodeScalars.contains($0))
    }
    return text.dropFirst(identifier.count).drop { $0.properties.isWhitespace }.first == "="
}

/// `gst_parse_launch_full` with fatal errors, the result ref-sunk.
private func parseLaunchText(_ description: String) throws(GStreamerError) -> Element {
    var error: UnsafeMutablePointer<GError>?
    let element = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
    if error != nil {
        if let element { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let copied = GLibError(consuming: &error)
        if copied.domain == "gst_parse_error" || copied.domain.contains("parse"),
            copied.code == Int(GST_PARSE_ERROR_NO_SUCH_ELEMENT.rawValue),
            let factory = quotedName(in: copied.message)
        {
            throw .elementNotFound(factory: factory, package: GStreamerError.package(forFactory: factory))
        }
        throw .parse(copied)
    }
    guard let element else {
        throw .parse(GLibError(consuming: &error))
    }
    return Element(sinking: element)
}

/// The first double-quoted word in a GStreamer message ("no element \"foo\"").
private func quotedName(in message: String) -> String? {
    let parts = message.split(separator: "\"", omittingEmptySubsequences: false)
    return parts.count >= 3 ? String(parts[1]) : nil
}

extension Element {
    /// Changes state and waits for it, at most `timeout` seconds; a failure names the element that failed
    /// and GStreamer's message. An element's error during an asynchronous change fails it at once (the change
    /// would otherwise wait out the timeout: typefind on a file that is not a video posts its error from its
    /// own thread and the change never completes). The message comes from the bus watch when one owns the bus
    /// (never taken from under it), else from the bus. Calls `gst_element_set_state` and `gst_element_get_state`.
    public func setState(_ state: State, timeout: Double = 10) throws(GStreamerError) {
        let bus = gst_element_get_bus(pointer).map { Bus(adopting: $0) }
        let watched = bus.flatMap { WatchedErrors(bus: $0.pointer) }
        var result = gst_element_set_state(pointer, state.gstState)
        let deadline = MonotonicClock.now + max(timeout, 0)
        while result == GST_STATE_CHANGE_ASYNC {
            let left = deadline - MonotonicClock.now
            guard left > 0 else { throw .stateChangeTimedOut(element: name, state: state, seconds: timeout) }
            var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            result = gst_element_get_state(pointer, &current, &pending, clockTime(seconds: min(left, Self.errorPoll)))
            if result == GST_STATE_CHANGE_ASYNC, let error = watched.map({ $0.first(waiting: 0) }) ?? bus?.pop(timeout: 0, types: .error) {
                throw stateFailure(state, error: error)
            }
        }
        guard result != GST_STATE_CHANGE_FAILURE else {
            // The failing element posts its error from its own thread, sometimes just after the state result.
            throw stateFailure(state, error: watched.map { $0.first(waiting: 1) } ?? bus?.pop(timeout: 1, types: .error))
        }
    }

    /// How often an asynchronous state change looks for an element's error, in seconds.
    private static let errorPoll = 0.05

    private func stateFailure(_ state: State, error: Message?) -> GStreamerError {
        if case let .error(source, message, debug, _)? = error {
            let detail = debug.map { "\(message) (\($0.split(separator: "\n").last ?? ""))" } ?? message
            return .stateChangeFailed(element: source, state: state, message: detail)
        }
        return .stateChangeFailed(element: name, state: state, message: "the state change was refused")
    }
}
