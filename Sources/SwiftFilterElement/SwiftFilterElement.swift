// SwiftFilterElement: the Swift half of the `swiftfilter` element (the C half, CGstSwiftFilter, is only
// its GObject boilerplate): settings, negotiation, the per-buffer transform, QoS and stats. Imports
// GStreamer and Filters (and the C modules CGstSwiftFilter and CGStreamer), never Capture: the plugin .so must not
// drag the host in.

import Base
import CGstSwiftFilter
public import Filters
public import GStreamer

/// The `swiftfilter` element: a SwiftCam filter chain inside any GStreamer graph.
public enum SwiftFilterElement {
    /// The factory name.
    public static let factoryName = "swiftfilter"

    /// SwiftCam's version, which the plugin descriptor carries (`SWIFTCAM_VERSION`, CFilterPlugin's SwiftCamVersion.h).
    public static let version: String = SWIFTCAM_VERSION

    // Runs once per process, whichever thread asks first.
    private static let registered: Bool = {
        GStreamer.initialize()
        let registered = CGstSwiftFilter_register_static() != 0
        // The filters of plugins installed in GStreamer's registry, loaded once here rather than at a chain change.
        FilterPlugins.loadInstalled()
        return registered
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
        state(of: element)?.lifecycle.withLock { $0.rejected }
    }

    /// `chain` compiled for `element`'s thread count, ready to run: the work of a chain change (a LUT file may be read)
    /// done on the caller's thread before anything is locked. Nil when `element` is not a swiftfilter.
    public static func prepare(_ chain: FilterChain, for element: Element) -> PreparedChain? {
        state(of: element)?.prepare(chain)
    }

    /// Runs `prepared` in `element` from its next frame; a frame in flight finishes with the chain it began with. Only
    /// a reference is swapped (unless `n-threads` changed since `prepare`). Returns false when `element` is not a
    /// swiftfilter.
    @discardableResult
    public static func install(_ prepared: PreparedChain, on element: Element) -> Bool {
        guard let state = state(of: element) else { return false }
        state.install(prepared)
        return true
    }

    /// Hands `element` a chain as a value: nothing is parsed (the text edge is the `chain` property, for gst-launch).
    /// Returns false when `element` is not a swiftfilter.
    @discardableResult
    public static func setChain(_ chain: FilterChain, on element: Element) -> Bool {
        guard let prepared = prepare(chain, for: element) else { return false }
        return install(prepared, on: element)
    }

    /// The state behind a swiftfilter's C object; nil for any other element.
    private static func state(of element: Element) -> FilterState? {
        guard element.factoryName == factoryName else { return nil }
        let filter = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstSwiftFilter.self)
        guard let raw = filter.pointee.swift_state else { return nil }
        return Unmanaged<FilterState>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The statistics an element reports in its `stats` property.
    public static func stats(of element: Element) -> FilterStats? {
        guard let structure = try? element.get("stats", as: Structure.self) else { return nil }
        return FilterStats(structure)
    }
}

/// A chain compiled for one swiftfilter (`SwiftFilterElement.prepare`), installed by a reference swap.
public struct PreparedChain: Sendable {
    /// The chain, as the element's `chain` property will read it.
    public let chain: FilterChain
    let compiled: CompiledChain
    let threads: Int
}

extension FilterState {
    /// `chain` compiled for this element's thread count, outside every lock.
    func prepare(_ chain: FilterChain) -> PreparedChain {
        let threads = settings.withLock { $0.threads }
        return PreparedChain(chain: chain, compiled: chain.compile(threads: threads), threads: threads)
    }

    /// Runs `prepared` from the next frame (compiled again first, outside the lock, if `n-threads` changed since it
    /// was prepared) and clears a rejected chain text. Returns what runs now.
    @discardableResult
    func install(_ prepared: PreparedChain) -> CompiledChain {
        var prepared = prepared
        while true {
            let installed = settings.withLock { settings -> Bool in
                guard settings.threads == prepared.threads else { return false }
                settings.chain = prepared.chain
                settings.compiled = prepared.compiled
                return true
            }
            if installed { break }
            prepared = prepare(prepared.chain)
        }
        lifecycle.withLock { $0.rejected = nil }
        return prepared.compiled
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
