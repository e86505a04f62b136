import Base
import CGStreamer
import CGstSwiftFilter
import Filters
import GStreamer

// The C vfuncs of `swiftfilter` call these. They run on GStreamer's threads: they validate every
// pointer, turn every failure into a flow return or a bus message, and never trap.

private func state(_ raw: UnsafeMutableRawPointer?) -> FilterState? {
    raw.map { Unmanaged<FilterState>.fromOpaque($0).takeUnretainedValue() }
}

private func log(_ filter: UnsafeMutablePointer<GstSwiftFilter>?, _ level: GstDebugLevel, _ message: @autoclosure () -> String) {
    guard let filter, CGstSwiftFilter_log_enabled(level) != 0 else { return }
    CGstSwiftFilter_log(filter, level, message())
}

@_cdecl("swiftfilter_state_new")
func swiftfilterStateNew(_ filter: UnsafeMutablePointer<GstSwiftFilter>?) -> UnsafeMutableRawPointer? {
    Unmanaged.passRetained(FilterState()).toOpaque()
}

@_cdecl("swiftfilter_state_free")
func swiftfilterStateFree(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    Unmanaged<FilterState>.fromOpaque(raw).release()
}

@_cdecl("swiftfilter_set_chain")
func swiftfilterSetChain(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ text: UnsafePointer<CChar>?
) {
    guard let state = state(raw), let filter else { return }
    let newText = text.map { String(cString: $0) } ?? ""
    // The `chain` property is where text arrives from gst-launch: parsed here, once. Filters from plugins in
    // GStreamer's registry (GST_PLUGIN_PATH) are found the first time (`loadInstalled` scans once per process).
    let refusedPlugins = FilterPlugins.loadInstalled()
    let chain: FilterChain
    do {
        chain = try FilterChain(parsing: newText)
    } catch {
        var reason = "invalid chain \"\(newText)\": \(error)"
        if case .unknownFilter = error, !refusedPlugins.isEmpty {
            reason += " " + refusedPlugins.map(\.description).joined(separator: " ")
        }
        let running = state.lifecycle.withLock { lifecycle in
            if !lifecycle.started { lifecycle.rejected = reason }
            return lifecycle.started
        }
        log(filter, GST_LEVEL_WARNING, reason)
        if running {
            CGstSwiftFilter_post_warning(filter, reason + "; the running chain is kept", nil)
        }
        return
    }
    let compiled = state.install(state.prepare(chain))
    log(
        filter, GST_LEVEL_INFO,
        "chain is now \"\(chain.description)\" (\(compiled.isEmpty ? "passthrough" : compiled.worksInPlace ? "in place" : "copy"))")
}

@_cdecl("swiftfilter_get_chain")
func swiftfilterGetChain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    let text = state(raw)?.settings.withLock { $0.chain }.description ?? ""
    return g_strdup(text)
}

@_cdecl("swiftfilter_set_threads")
func swiftfilterSetThreads(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?, _ threads: guint) {
    guard let state = state(raw) else { return }
    let chain = state.settings.withLock { settings in
        settings.threads = Int(threads)
        return settings.chain
    }
    // The chain as a value: compiled again for the new count, outside the lock, never parsed.
    let compiled = chain.compile(threads: Int(threads))
    state.settings.withLock { settings in
        if settings.chain == chain, settings.threads == Int(threads) { settings.compiled = compiled }
    }
    log(filter, GST_LEVEL_INFO, "n-threads is now \(threads)")
}

@_cdecl("swiftfilter_get_threads")
func swiftfilterGetThreads(_ raw: UnsafeMutableRawPointer?) -> guint {
    guint(state(raw)?.settings.withLock { $0.threads } ?? 0)
}

@_cdecl("swiftfilter_get_stats")
func swiftfilterGetStats(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?
) -> UnsafeMutablePointer<GstStructure>? {
    let counts = state(raw)?.counters.now ?? (frames: 0, totalNanoseconds: 0, maxNanoseconds: 0, dropped: 0)
    let text = state(raw)?.settings.withLock { $0.chain }.description ?? ""
    let stats = Structure(name: "swiftfilter-stats")
    stats.set("frames", UInt64(counts.frames))
    stats.set("dropped", UInt64(counts.dropped))
    stats.set("mean-ms", counts.frames > 0 ? Double(counts.totalNanoseconds) / Double(counts.frames) / 1e6 : 0)
    stats.set("max-ms", Double(counts.maxNanoseconds) / 1e6)
    stats.set("chain", text)
    return gst_structure_copy(stats.pointer)
}

@_cdecl("swiftfilter_start")
func swiftfilterStart(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?) -> gboolean {
    guard let state = state(raw), let filter else { return 0 }
    let rejected = state.lifecycle.withLock { lifecycle in
        lifecycle.started = lifecycle.rejected == nil
        return lifecycle.rejected
    }
    if let rejected {
        CGstSwiftFilter_post_error(filter, rejected, nil)
        return 0
    }
    state.counters.reset()
    return 1
}

@_cdecl("swiftfilter_stop")
func swiftfilterStop(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?) {
    state(raw)?.lifecycle.withLock { $0.started = false }
}

@_cdecl("swiftfilter_set_info")
func swiftfilterSetInfo(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ inInfo: UnsafeMutablePointer<GstVideoInfo>?, _ outInfo: UnsafeMutablePointer<GstVideoInfo>?
) -> gboolean {
    guard let state = state(raw), let filter, let inInfo else { return 0 }
    let info = VideoInfo(borrowing: inInfo)
    guard let format = PixelFormat(gstName: info.formatName) else {
        log(filter, GST_LEVEL_WARNING, "format \(info.formatName) has no kernel")
        return 0  // not negotiated, not a crash
    }
    // On the streaming thread, like every frame's callbacks: the stream state is its own.
    state.stream.format = format
    state.stream.color = ColorDescription(matrix: info.isBT709 ? .bt709 : .bt601, range: info.isFullRange ? .full : .limited)
    let supported = state.settings.withLock { $0.compiled.supports(format) }
    log(filter, GST_LEVEL_INFO, "negotiated \(info.formatName) \(info.width)x\(info.height)")
    return supported ? 1 : 0
}

/// A Filters view of a mapped frame's planes; nil when the layout does not fit the format.
private func filtersFrame(_ planes: [UnsafeVideoPlane], _ info: VideoInfo, format: PixelFormat, color: ColorDescription) -> Frame? {
    guard planes.count == format.planeCount else { return nil }
    return Frame(
        format: format, width: info.width, height: info.height,
        planes: planes.map { Plane(base: $0.baseAddress, stride: $0.layout.stride) }, color: color)
}

/// Picks the chain for this buffer and says whether the input itself becomes the output. The frame's one lock take.
@_cdecl("swiftfilter_prepare")
func swiftfilterPrepare(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ input: UnsafeMutablePointer<GstBuffer>?
) -> gboolean {
    guard let state = state(raw), let input else { return 0 }
    let compiled = state.settings.withLock { $0.compiled }
    state.stream.inFlight = compiled
    if compiled.isEmpty { return 1 }
    let writable = gst_mini_object_is_writable(UnsafeRawPointer(input).assumingMemoryBound(to: GstMiniObject.self)) != 0
    return compiled.worksInPlace && writable ? 1 : 0
}

@_cdecl("swiftfilter_transform_buffers")
func swiftfilterTransformBuffers(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ input: UnsafeMutablePointer<GstBuffer>?, _ output: UnsafeMutablePointer<GstBuffer>?
) -> GstFlowReturn {
    guard let state = state(raw), let filter, let input, let output else { return GST_FLOW_ERROR }
    guard let format = state.stream.format else {
        CGstSwiftFilter_post_error(filter, "a frame arrived before its format was negotiated", nil)
        return GST_FLOW_NOT_NEGOTIATED
    }
    let compiled = state.stream.inFlight ?? state.settings.withLock { $0.compiled }
    let color = state.stream.color
    let inInfo = VideoInfo(borrowing: &filter.pointee.parent.in_info)
    let outInfo = VideoInfo(borrowing: &filter.pointee.parent.out_info)
    let start = monotonicNanoseconds()
    do {
        if input == output {
            // The input was writable and the chain works in place (or is empty: nothing to map or touch).
            if !compiled.isEmpty {
                try UnsafeVideoPlane.withMappedPlanes(of: output, inInfo, access: .readWrite) { planes in
                    guard let frame = filtersFrame(planes, inInfo, format: format, color: color) else { throw FrameMappingError.layout }
                    try compiled.process(frame)
                }
            }
        } else {
            try UnsafeVideoPlane.withMappedPlanes(of: input, inInfo, access: .read) { inPlanes in
                try UnsafeVideoPlane.withMappedPlanes(of: output, outInfo, access: .write) { outPlanes in
                    guard let source = filtersFrame(inPlanes, inInfo, format: format, color: color),
                        let destination = filtersFrame(outPlanes, outInfo, format: format, color: color)
                    else { throw FrameMappingError.layout }
                    try compiled.process(from: source, to: destination)
                }
            }
        }
    } catch {
        CGstSwiftFilter_post_error(filter, "the filter chain failed on a frame: \(error)", nil)
        return GST_FLOW_ERROR
    }
    let elapsed = monotonicNanoseconds() &- start
    state.counters.record(elapsed)
    log(filter, GST_LEVEL_DEBUG, "frame took \(Double(elapsed) / 1e6) ms")
    return GST_FLOW_OK
}

/// Sees each message the element posts, before it leaves. GstBaseTransform reports the frames it dropped for
/// lateness only in its QoS messages (a running total in buffers), so the stats take the count from there.
@_cdecl("swiftfilter_observe_message")
func swiftfilterObserveMessage(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ message: UnsafeMutablePointer<GstMessage>?
) {
    guard let state = state(raw), let filter, let message, message.pointee.type == GST_MESSAGE_QOS,
        UnsafeMutableRawPointer(message.pointee.src) == UnsafeMutableRawPointer(filter)
    else { return }
    var format = GST_FORMAT_UNDEFINED
    var processed: guint64 = 0, dropped: guint64 = 0
    gst_message_parse_qos_stats(message, &format, &processed, &dropped)
    guard format == GST_FORMAT_BUFFERS || format == GST_FORMAT_DEFAULT else { return }
    state.counters.setDropped(Int(clamping: dropped))
}

/// A mapped frame whose planes do not match the negotiated format.
enum FrameMappingError: Error, CustomStringConvertible {
    case layout
    var description: String { "the mapped frame's planes do not match the negotiated format" }
}
