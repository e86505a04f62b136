// The plugin side of a filter plugin: a user's package links this module into its own GStreamer plugin
// (libgstNAME.so) and returns `FilterPlugin.descriptor(…)` from `gst_plugin_NAME_get_desc`. The process's
// `swiftfilter` (SwiftFilterElement) finds the plugin in GStreamer's registry, checks its stamp and reads the C table
// made here; nothing Swift crosses between the two copies of Filters (and of Analysis, for the plugin's analysers).
public import Analysis
import CFilterPlugin
import CGStreamer
public import Filters
import Synchronization

/// Builds the GStreamer plugin that carries your filters.
public enum FilterPlugin {
    /// GStreamer's descriptor of a plugin whose filters are `filters` and whose analysers (for the host's `"analyze"`)
    /// are `analyzers`; return it from `gst_plugin_NAME_get_desc`, where NAME is the plugin's file name without
    /// `libgst` and `.so`. The first call fixes the plugin's contents.
    public static func descriptor(
        name: String, summary: String, version: String = "1.0", license: String = "MIT/X11",
        filters: [any Filter.Type], analyzers: [AnalyzerKind] = []
    ) -> UnsafeRawPointer {
        exported.withLock { state in
            if let descriptor = state.descriptor { return descriptor }
            let table = makeTable(filters, analyzers: analyzers)
            state.types = filters
            state.analyzers = analyzers
            state.table = table
            var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
            gst_version(&major, &minor, &micro, &nano)
            let descriptor = UnsafeMutablePointer<GstPluginDesc>.allocate(capacity: 1)
            descriptor.initialize(
                to: GstPluginDesc(
                    major_version: gint(major), minor_version: gint(minor), name: keep(name), description: keep(summary),
                    plugin_init: pluginInit, version: keep(version), license: keep(license),
                    source: keep(SWIFTCAM_FILTER_PLUGIN_KEY), package: keep(name), origin: keep("SwiftCam filter plugin"),
                    release_datetime: nil, _gst_reserved: (nil, nil, nil, nil)))
            state.descriptor = UnsafeRawPointer(descriptor)
            return UnsafeRawPointer(descriptor)
        }
    }
}

/// What this plugin exports; made once, then only read. The table and descriptor live as long as the process.
/// Unchecked Sendable: it lives only inside the `exported` mutex, which it is written under once and read under after.
struct Exported: @unchecked Sendable {
    var types: [any Filter.Type] = []
    var analyzers: [AnalyzerKind] = []
    var table: UnsafeMutablePointer<SwiftCamFilterPlugin>?
    var descriptor: UnsafeRawPointer?
}

/// `Synchronization.Mutex`, whose futex ThreadSanitizer cannot see, rather than Base's `Locked`: this module is linked
/// into a user's plugin, which stays free of SwiftCam's base, and TSan need not see this lock: the table is written
/// once, when the plugin's descriptor is first asked for on the loading thread, and only read after.
let exported = Mutex(Exported())

/// A C string for the process's lifetime (the descriptor and table are never freed).
func keep(_ text: String) -> UnsafePointer<CChar> {
    UnsafePointer(strdup(text))
}

private let pluginInit: @convention(c) (OpaquePointer?) -> gboolean = { plugin in
    guard let plugin, let table = exported.withLock({ $0.table }) else { return 0 }
    // The table for the process that loads the plugin, and a mark in the registry cache, so `swiftfilter` can find the
    // plugin among all the others without loading them.
    g_object_set_data(UnsafeMutablePointer<GObject>(plugin), SWIFTCAM_FILTER_PLUGIN_KEY, table)
    let mark = gst_structure_new_empty(SWIFTCAM_FILTER_PLUGIN_KEY)
    var stamp = GValue()
    g_value_init(&stamp, stringType)
    g_value_set_string(&stamp, CFilterPlugin_stamp())
    gst_structure_take_value(mark, "stamp", &stamp)
    gst_plugin_set_cache_data(plugin, mark)
    return 1
}

/// `G_TYPE_STRING`: a macro over a fundamental type number, which Swift does not import.
private let stringType = GType(16 << 2)

private func makeTable(_ types: [any Filter.Type], analyzers: [AnalyzerKind]) -> UnsafeMutablePointer<SwiftCamFilterPlugin> {
    let descriptors = UnsafeMutablePointer<SwiftCamFilterDescriptor>.allocate(capacity: max(1, types.count))
    for (index, type) in types.enumerated() {
        let info = type.info
        let parameters = UnsafeMutablePointer<SwiftCamParameter>.allocate(capacity: max(1, info.parameters.count))
        for (p, parameter) in info.parameters.enumerated() {
            var c = SwiftCamParameter(
                key: keep(parameter.key), summary: keep(parameter.summary), unit: keep(parameter.unit),
                kind: Int32(SWIFTCAM_PARAMETER_NUMBER), default_value: 0, minimum: 0, maximum: 0)
            switch (parameter.kind, parameter.defaultValue) {
            case let (.number(range), .number(value)):
                (c.default_value, c.minimum, c.maximum) = (value, range.lowerBound, range.upperBound)
            case let (.integer(range), .integer(value)):
                c.kind = Int32(SWIFTCAM_PARAMETER_INTEGER)
                (c.default_value, c.minimum, c.maximum) = (Double(value), Double(range.lowerBound), Double(range.upperBound))
            default:
                // A file key cannot cross: the host sees a number with an empty range, and refuses the filter.
                (c.default_value, c.minimum, c.maximum) = (1, 1, 0)
            }
            parameters[p] = c
        }
        let kind = type is any FrameFilter.Type ? SWIFTCAM_FILTER_FRAME : SWIFTCAM_FILTER_POINT
        descriptors[index] = SwiftCamFilterDescriptor(
            name: keep(info.name), summary: keep(info.summary), kind: Int32(kind), parameter_count: Int32(info.parameters.count),
            parameters: parameters, create: createInstance, destroy: destroyInstance, point_steps: pointSteps, apply: applyFrame)
    }
    let table = UnsafeMutablePointer<SwiftCamFilterPlugin>.allocate(capacity: 1)
    table.initialize(
        to: SwiftCamFilterPlugin(
            stamp: CFilterPlugin_stamp(), filter_count: Int32(types.count), filters: descriptors,
            analyzer_count: Int32(analyzers.count), analyzers: analyzerTable(analyzers)))
    return table
}

/// One filter made for the host, with the memory its point steps point at.
private final class Instance {
    let filter: any Filter
    let steps: [PointMap.Step]
    let curves: [Int: UnsafeMutablePointer<Double>]
    let cubes: [Int: UnsafeMutablePointer<Float>]

    init(_ filter: any Filter) {
        self.filter = filter
        let steps = (filter as? any PointFilter)?.pointMap.steps ?? []
        self.steps = steps
        var curves: [Int: UnsafeMutablePointer<Double>] = [:]
        var cubes: [Int: UnsafeMutablePointer<Float>] = [:]
        for (index, step) in steps.enumerated() {
            switch step {
            case let .curve(f):
                let samples = Int(SWIFTCAM_CURVE_SAMPLES)
                let buffer = UnsafeMutablePointer<Double>.allocate(capacity: samples)
                for i in 0..<samples {
                    let y = f(Double(i) / Double(samples - 1))
                    buffer[i] = y.isFinite ? y : 0
                }
                curves[index] = buffer
            case let .cube(cube):
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: cube.table.count)
                _ = UnsafeMutableBufferPointer(start: buffer, count: cube.table.count).initialize(from: cube.table)
                cubes[index] = buffer
            case .matrix:
                break
            }
        }
        self.curves = curves
        self.cubes = cubes
    }

    deinit {
        curves.values.forEach { $0.deallocate() }
        cubes.values.forEach { $0.deallocate() }
    }
}

private func instance(_ raw: UnsafeMutableRawPointer?) -> Instance? {
    raw.map { Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue() }
}

private let createInstance: @convention(c) (Int32, UnsafePointer<Double>?) -> UnsafeMutableRawPointer? = { index, values in
    let types = exported.withLock { $0.types }
    guard types.indices.contains(Int(index)) else { return nil }
    let type = types[Int(index)]
    var arguments: [String: ParameterValue] = [:]
    for (p, parameter) in type.info.parameters.enumerated() {
        let value = values?[p] ?? 0
        switch parameter.kind {
        case .number: arguments[parameter.key] = .number(value)
        case let .integer(range):
            // Bounded before the conversion, so no value from the host can trap here.
            let clamped = value.isFinite ? min(max(value, Double(range.lowerBound)), Double(range.upperBound)) : Double(range.lowerBound)
            arguments[parameter.key] = .integer(Int(clamped))
        case .file: return nil
        }
    }
    guard let filter = try? type.init(arguments: FilterArguments(info: type.info, values: arguments)) else { return nil }
    return Unmanaged.passRetained(Instance(filter)).toOpaque()
}

private let destroyInstance: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    guard let raw else { return }
    Unmanaged<Instance>.fromOpaque(raw).release()
}

private let pointSteps: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<SwiftCamPointStep>?, Int32) -> Int32 = {
    raw, matrix, out, capacity in
    guard let instance = instance(raw), let out, instance.steps.count <= Int(capacity) else { return -1 }
    let color = ColorDescription(matrix: matrix == 1 ? .bt709 : .bt601)
    for (index, step) in instance.steps.enumerated() {
        var c = SwiftCamPointStep()
        switch step {
        case let .matrix(make):
            let m = make(color)
            c.kind = Int32(SWIFTCAM_STEP_MATRIX)
            c.matrix = (
                m.red.x, m.red.y, m.red.z, m.green.x, m.green.y, m.green.z, m.blue.x, m.blue.y, m.blue.z,
                m.offset.x, m.offset.y, m.offset.z
            )
        case .curve:
            c.kind = Int32(SWIFTCAM_STEP_CURVE)
            c.curve = UnsafePointer(instance.curves[index])
        case let .cube(cube):
            c.kind = Int32(SWIFTCAM_STEP_CUBE)
            c.cube_size = Int32(cube.size)
            c.cube = UnsafePointer(instance.cubes[index])
            c.cube_domain = (cube.domainMin.0, cube.domainMin.1, cube.domainMin.2, cube.domainMax.0, cube.domainMax.1, cube.domainMax.2)
        }
        out[index] = c
    }
    return Int32(instance.steps.count)
}

private let applyFrame:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<SwiftCamFrame>?, UnsafePointer<SwiftCamFrame>?,
        UnsafePointer<SwiftCamFrameContext>?
    ) -> Void = { raw, input, output, context in
        guard let filter = instance(raw)?.filter as? any FrameFilter, let input, let output, let context,
            let scratch = context.pointee.scratch, let source = frame(input.pointee), let destination = frame(output.pointee),
            (try? source.validate()) != nil, (try? destination.validate()) != nil
        else { return }
        let host = context.pointee.host
        let frameContext = FrameContext(threads: Int(context.pointee.threads)) { slot, bytes in
            // The host's scratch never fails; a block of our own only keeps a broken host from making us write through NULL.
            scratch(host, Int32(slot), Int64(bytes)) ?? UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 64), alignment: 64)
        }
        filter.apply(source, to: destination, context: frameContext)
    }

/// The Filters view of a frame the host described; nil for a format this build does not know.
private func frame(_ c: SwiftCamFrame) -> Frame? {
    guard let name = c.format.map({ String(cString: $0) }), let format = PixelFormat(gstName: name),
        Int(c.plane_count) == format.planeCount
    else { return nil }
    let pointers = [c.planes.0, c.planes.1, c.planes.2]
    let strides = [c.strides.0, c.strides.1, c.strides.2]
    var planes: [Plane] = []
    for index in 0..<format.planeCount {
        guard let base = pointers[index] else { return nil }
        planes.append(Plane(base: UnsafeMutableRawPointer(base), stride: Int(strides[index])))
    }
    let color = ColorDescription(matrix: c.matrix == 1 ? .bt709 : .bt601, range: c.range == 1 ? .full : .limited)
    return Frame(format: format, width: Int(c.width), height: Int(c.height), planes: planes, color: color)
}
