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
    // Filters from plugins in GStreamer's registry (GST_PLUGIN_PATH), found the first time any chain is set.
    let refusedPlugins = FilterPlugins.loadInstalled()
    let chain: FilterChain
    do {
        chain = try FilterChain(parsing: newText)
    } catch {
        var reason = "invalid chain \"\(newText)\": \(error)"
        if case .unknownFilter = error, !refusedPlugins.isEmpty {
            reason += " " + refusedPlugins.map(\.description).joined(separator: " ")
        }
        let running = state.settings.withLock { settings in
            if !settings.started { settings.rejected = reason }
            return settings.started
        }
        log(filter, GST_LEVEL_WARNING, reason)
        if running {
            CGstSwiftFilter_post_warning(filter, reason + "; the running chain is kept", nil)
        }
        return
    }
    let threads = state.settings.withLock { $0.threads }
    let compiled = chain.compile(threads: threads)  // outside the lock: may load LUT files
    state.settings.withLock { settings in
        settings.text = chain.description
        settings.compiled = compiled
        settings.rejected = nil
    }
    log(
        filter, GST_LEVEL_INFO,
        "chain is now \"\(chain.description)\" (\(compiled.isEmpty ? "passthrough" : compiled.worksInPlace ? "in place" : "copy"))")
}

@_cdecl("swiftfilter_get_chain")
func swiftfilterGetChain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>? {
    let text = state(raw)?.settings.withLock { $0.text } ?? ""
    return g_strdup(text)
}

@_cdecl("swiftfilter_set_threads")
func swiftfilterSetThreads(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?, _ threads: guint) {
    guard let state = state(raw) else { return }
    let text = state.settings.withLock { settings in
        settings.threads = Int(threads)
        return settings.text
    }
    guard let chain = try? FilterChain(parsing: text) else { return }
    let compiled = chain.compile(threads: Int(threads))
    state.settings.withLock { settings in
        if settings.text == text { settings.compiled = compiled }
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
    let counters = state(raw)?.counters.withLock { $0 } ?? FilterState.Counters()
    let text = state(raw)?.settings.withLock { $0.text } ?? ""
    let stats = Structure(name: "swiftfilter-stats")
    stats.set("frames", UInt64(counters.frames))
    stats.set("dropped", UInt64(counters.dropped))
    let mean = counters.frames > 0 ? Double(counters.totalNanoseconds) / Double(counters.frames) / 1e6 : 0
    stats.set("mean-ms", mean)
    stats.set("max-ms", Double(counters.maxNanoseconds) / 1e6)
    stats.set("chain", text)
    return gst_structure_copy(stats.pointer)
}

@_cdecl("swiftfilter_start")
func swiftfilterStart(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?) -> gboolean {
    guard let state = state(raw), let filter else { return 0 }
    let rejected = state.settings.withLock { settings in
        settings.started = settings.rejected == nil
        return settings.rejected
    }
    if let rejected {
        CGstSwiftFilter_post_error(filter, rejected, nil)
        return 0
    }
    state.counters.withLock { $0 = FilterState.Counters() }
    return 1
}

@_cdecl("swiftfilter_stop")
func swiftfilterStop(_ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?) {
    state(raw)?.settings.withLock { $0.started = false }
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
    let color = ColorDescription(matrix: info.isBT709 ? .bt709 : .bt601, range: info.isFullRange ? .full : .limited)
    let supported = state.settings.withLock { settings in
        settings.format = format
        settings.color = color
        return settings.compiled.supports(format)
    }
    log(filter, GST_LEVEL_INFO, "negotiated \(info.formatName) \(info.width)x\(info.height)")
    return supported ? 1 : 0
}

/// A Filters view of a frame GStreamer mapped; nil when the layout does not fit the format.
private func filtersFrame(_ mapped: UnsafeMutablePointer<GstVideoFrame>, format: PixelFormat, color: ColorDescription) -> Frame? {
    let planes = UnsafeVideoPlane.planes(of: mapped)
    guard planes.count == format.planeCount else { return nil }
    return Frame(
        format: format, width: Int(mapped.pointee.info.width), height: Int(mapped.pointee.info.height),
        planes: planes.map { Plane(base: $0.baseAddress, stride: $0.layout.stride) }, color: color)
}

/// Runs one frame through the chain picked for it when its output was prepared; records its time.
private func process(
    _ state: FilterState, _ filter: UnsafeMutablePointer<GstSwiftFilter>,
    _ work: (CompiledChain, PixelFormat, ColorDescription) throws -> Void
) -> GstFlowReturn {
    let (current, format, color) = state.settings.withLock { ($0.compiled, $0.format, $0.color) }
    let compiled = state.inFlight.withLock { $0 } ?? current
    guard let format else {
        CGstSwiftFilter_post_error(filter, "a frame arrived before its format was negotiated", nil)
        return GST_FLOW_NOT_NEGOTIATED
    }
    let start = monotonicNanoseconds()
    do {
        try work(compiled, format, color)
    } catch {
        CGstSwiftFilter_post_error(filter, "the filter chain failed on a frame: \(error)", nil)
        return GST_FLOW_ERROR
    }
    let elapsed = monotonicNanoseconds() &- start
    state.counters.withLock { counters in
        counters.frames += 1
        counters.totalNanoseconds &+= elapsed
        counters.maxNanoseconds = max(counters.maxNanoseconds, elapsed)
    }
    log(filter, GST_LEVEL_DEBUG, "frame took \(Double(elapsed) / 1e6) ms")
    return GST_FLOW_OK
}

/// Picks the chain for this buffer and says whether the input itself becomes the output.
@_cdecl("swiftfilter_prepare")
func swiftfilterPrepare(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ input: UnsafeMutablePointer<GstBuffer>?
) -> gboolean {
    guard let state = state(raw), let input else { return 0 }
    let compiled = state.settings.withLock { $0.compiled }
    state.inFlight.withLock { $0 = compiled }
    if compiled.isEmpty { return 1 }
    let writable = gst_mini_object_is_writable(UnsafeRawPointer(input).assumingMemoryBound(to: GstMiniObject.self)) != 0
    return compiled.worksInPlace && writable ? 1 : 0
}

/// Maps a buffer as a frame of the negotiated layout for the closure's duration. NO_REF: the mapping must
/// not take a reference of its own, or the buffer would stop being writable while mapped.
private func withMappedFrame<R>(
    _ buffer: UnsafeMutablePointer<GstBuffer>, _ info: inout GstVideoInfo, _ flags: GstMapFlags,
    _ body: (UnsafeMutablePointer<GstVideoFrame>) throws -> R
) throws -> R {
    var frame = GstVideoFrame()
    let all = GstMapFlags(rawValue: flags.rawValue | GST_VIDEO_FRAME_MAP_FLAG_NO_REF.rawValue)
    guard gst_video_frame_map(&frame, &info, buffer, all) != 0 else { throw FrameMappingError.map }
    defer { gst_video_frame_unmap(&frame) }
    return try body(&frame)
}

@_cdecl("swiftfilter_transform_buffers")
func swiftfilterTransformBuffers(
    _ raw: UnsafeMutableRawPointer?, _ filter: UnsafeMutablePointer<GstSwiftFilter>?,
    _ input: UnsafeMutablePointer<GstBuffer>?, _ output: UnsafeMutablePointer<GstBuffer>?
) -> GstFlowReturn {
    guard let state = state(raw), let filter, let input, let output else { return GST_FLOW_ERROR }
    var info = filter.pointee.parent.in_info
    var outInfo = filter.pointee.parent.out_info
    return process(state, filter) { compiled, format, color in
        if input == output {
            // The empty chain: nothing to map or touch.
            if compiled.isEmpty { return }
            // The input was writable and the chain works in place: one mapping.
            try withMappedFrame(output, &info, GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)) { mapped in
                guard let frame = filtersFrame(mapped, format: format, color: color) else { throw FrameMappingError.layout }
                try compiled.process(frame)
            }
            return
        }
        try withMappedFrame(input, &info, GST_MAP_READ) { inFrame in
            try withMappedFrame(output, &outInfo, GST_MAP_WRITE) { outFrame in
                guard let source = filtersFrame(inFrame, format: format, color: color),
                    let destination = filtersFrame(outFrame, format: format, color: color)
                else {
                    throw FrameMappingError.layout
                }
                try compiled.process(from: source, to: destination)
            }
        }
    }
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
    state.counters.withLock { $0.dropped = Int(clamping: dropped) }
}

/// A mapped frame whose planes do not match the negotiated format.
enum FrameMappingError: Error, CustomStringConvertible {
    case layout
    case map
    var description: String {
        switch self {
        case .layout: "the mapped frame's planes do not match the negotiated format"
        case .map: "a buffer could not be mapped as a frame of the negotiated format"
        }
    }
}
