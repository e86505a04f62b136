public import CGStreamer

/// A container of elements. Holds one reference, like every `Element`.
/// Unchecked Sendable: it adds no stored property to `Element`, and the `GstBin` it wraps is thread-safe (GStreamer's
/// bin calls take the object's lock).
public class Bin: Element, @unchecked Sendable {
    /// A new empty bin. Calls `gst_bin_new`.
    public convenience init(name: String? = nil) {
        GStreamer.initialize()
        self.init(sinking: gst_bin_new(name))
    }

    /// The GType this wrapper stands for.
    override public class var gType: GType { gst_bin_get_type() }

    var binPointer: UnsafeMutablePointer<GstBin> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self)
    }

    /// Adds elements; the bin takes its own reference, ours stays. Calls `gst_bin_add`.
    public func add(_ elements: Element...) throws(GStreamerError) {
        try add(elements)
    }

    /// Adds elements; the bin takes its own reference, ours stays. Calls `gst_bin_add`.
    public func add(_ elements: [Element]) throws(GStreamerError) {
        for element in elements {
            guard gst_bin_add(binPointer, element.pointer) != 0 else {
                throw .addFailed(bin: name, element: element.name)
            }
        }
    }

    /// Removes an element (it goes on living while we hold it). Calls `gst_bin_remove`.
    @discardableResult
    public func remove(_ element: Element) -> Bool {
        gst_bin_remove(binPointer, element.pointer) != 0
    }

    /// Adds the elements and links them in order. Calls `gst_bin_add` and `gst_element_link`.
    public func addChain(_ elements: [Element]) throws(GStreamerError) {
        try add(elements)
        for (upstream, downstream) in zip(elements, elements.dropFirst()) {
            try upstream.link(to: downstream)
        }
    }

    /// The element of that name anywhere below this bin, typed as asked. Calls `gst_bin_get_by_name`.
    public func element<E: Element>(named name: String, as type: E.Type = Element.self) -> E? {
        guard let found = gst_bin_get_by_name(binPointer, name) else { return nil }
        guard isInstance(found, of: E.gType) else {
            gst_object_unref(found)
            return nil
        }
        return E(adopting: found)
    }

    /// Every element below this bin, recursively. Calls `gst_bin_iterate_recurse`.
    public var allElements: [Element] {
        objects(of: gst_bin_iterate_recurse(binPointer)) { Element(retaining: $0.assumingMemoryBound(to: GstElement.self)) }
    }

    /// Exposes an inner pad on this bin's edge. Calls `gst_ghost_pad_new` and `gst_element_add_pad`.
    @discardableResult
    public func addGhostPad(name: String, target: Pad) throws(GStreamerError) -> Pad {
        guard let ghost = gst_ghost_pad_new(name, target.pointer) else {
            throw .padNotFound(element: self.name, pad: name)
        }
        gst_object_ref(ghost)  // our reference; the floating one goes to the element
        guard gst_element_add_pad(pointer, ghost) != 0 else {
            gst_object_unref(ghost)
            throw .addFailed(bin: self.name, element: name)
        }
        return Pad(adopting: ghost)
    }

    /// Writes the Graphviz description of the graph. Calls `gst_debug_bin_to_dot_data`.
    public func dotDescription() -> String {
        String(adoptingGLibString: gst_debug_bin_to_dot_data(binPointer, GST_DEBUG_GRAPH_SHOW_ALL)) ?? ""
    }
}
