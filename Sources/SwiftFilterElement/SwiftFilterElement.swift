// SwiftFilterElement: the Swift half of the `swiftfilter` element (the C half, CGstSwiftFilter, is only
// its GObject boilerplate): settings, negotiation, the per-buffer transform, QoS and stats. Imports
// GStreamer and Filters (and the C modules CGstSwiftFilter and CGStreamer), never Capture: the plugin .so must not
// drag the host in.

import CGstSwiftFilter
public import GStreamer

/// The `swiftfilter` element: a SwiftCam filter chain inside any GStreamer graph.
public enum SwiftFilterElement {
    /// The factory name.
    public static let factoryName = "swiftfilter"

    /// SwiftCam's version, which the plugin descriptor carries (`SWIFTCAM_VERSION` in CGstSwiftFilter).
    public static let version: String = SWIFTCAM_VERSION

    // Runs once per process, whichever thread asks first.
    private static let registered: Bool = {
        GStreamer.initialize()
        return CGstSwiftFilter_register_static() != 0
    }()

    /// Registers `swiftfilter` in this process (as a static plugin), so `Pipeline.parse("… ! swiftfilter chain=sepia ! …")`
    /// works without the plugin file. Safe to call any number of times. Calls `gst_plugin_register_static`.
    @discardableResult
    public static func register() -> Bool {
        registered
    }

    /// Why the element's last `chain` value was rejected before it started, or nil when the chain is valid.
    /// (After start, a rejected chain only warns and the running one stays.)
    public static func chainError(of element: Element) -> String? {
        guard element.factoryName == factoryName else { return nil }
        let filter = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstSwiftFilter.self)
        guard let raw = filter.pointee.swift_state else { return nil }
        return Unmanaged<FilterState>.fromOpaque(raw).takeUnretainedValue().settings.withLock { $0.rejected }
    }

    /// The statistics an element reports in its `stats` property.
    public static func stats(of element: Element) -> FilterStats? {
        guard let structure = try? element.get("stats", as: Structure.self) else { return nil }
        return FilterStats(structure)
    }
}

/// What a `swiftfilter` has done so far, as its `stats` property reports it.
public struct FilterStats: Sendable, Equatable {
    /// Frames the chain processed (or passed through).
    public var frames: Int
    /// Frames dropped for lateness before processing (QoS).
    public var dropped: Int
    /// Mean milliseconds per processed frame.
    public var meanMilliseconds: Double
    /// Slowest frame in milliseconds.
    public var maxMilliseconds: Double
    /// The running chain, in canonical text.
    public var chain: String

    init(_ structure: Structure) {
        frames = structure.int("frames") ?? 0
        dropped = structure.int("dropped") ?? 0
        meanMilliseconds = structure.double("mean-ms") ?? 0
        maxMilliseconds = structure.double("max-ms") ?? 0
        chain = structure.string("chain") ?? ""
    }
}
