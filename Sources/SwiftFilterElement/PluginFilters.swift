import CFilterPlugin
import Filters

/// One filter made by a plugin's C table; destroyed through the same table when the last filter value using it goes.
///
/// Unchecked Sendable: the pointers never change after creation, and the table's functions are safe to call from
/// any thread (those `FilterPlugin` writes only read the instance, whose filter is `Sendable`).
final class PluginInstance: @unchecked Sendable {
    /// A table entry, which lives as long as the process (GStreamer never unloads a plugin).
    /// Unchecked Sendable: the entry it points at is written once, when the plugin makes its table, then only read.
    struct Descriptor: @unchecked Sendable {
        let pointer: UnsafePointer<SwiftCamFilterDescriptor>
    }

    let descriptor: UnsafePointer<SwiftCamFilterDescriptor>
    let pointer: UnsafeMutableRawPointer

    init?(_ descriptor: UnsafePointer<SwiftCamFilterDescriptor>, index: Int32, values: [Double]) {
        guard let create = descriptor.pointee.create,
            let pointer = values.withUnsafeBufferPointer({ create(index, $0.baseAddress) })
        else { return nil }
        self.descriptor = descriptor
        self.pointer = pointer
    }

    deinit { descriptor.pointee.destroy?(pointer) }
}

/// Registrations for a plugin's filters: the description from its C table, filters that call back into it.
enum PluginFilterFactory {
    static func registration(_ pointer: UnsafePointer<SwiftCamFilterDescriptor>, index: Int32) -> FilterRegistration {
        let descriptor = PluginInstance.Descriptor(pointer: pointer)
        let info = info(pointer.pointee)
        let isFrame = pointer.pointee.kind == SWIFTCAM_FILTER_FRAME
        return FilterRegistration(info: info) { arguments throws(FilterSpecError) in
            var values: [ParameterValue] = []
            var numbers: [Double] = []
            for parameter in info.parameters {
                let value = arguments.values[parameter.key] ?? parameter.defaultValue
                values.append(value)
                switch value {
                case let .number(number): numbers.append(number)
                case let .integer(integer): numbers.append(Double(integer))
                case .text: numbers.append(0)
                }
            }
            guard let instance = PluginInstance(descriptor.pointer, index: index, values: numbers) else {
                throw .refused(filter: info.name, position: arguments.position)
            }
            return isFrame
                ? PluginFrameFilter(filterInfo: info, values: values, instance: instance)
                : PluginPointFilter(filterInfo: info, values: values, instance: instance)
        }
    }

    /// A table's string; empty for NULL.
    static func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    /// A table's whole number, bounded before conversion: a table is input, and Int(_:) traps on what does not fit.
    static func whole(_ x: Double) -> Int { x.isFinite ? Int(min(max(x, -1e15), 1e15)) : 0 }

    private static func info(_ c: SwiftCamFilterDescriptor) -> FilterInfo {
        var parameters: [ParameterInfo] = []
        for index in 0..<max(0, Int(c.parameter_count)) {
            guard let p = c.parameters?[index] else { break }
            let kind: ParameterKind, value: ParameterValue
            if p.kind == SWIFTCAM_PARAMETER_INTEGER {
                let low = whole(p.minimum), high = whole(p.maximum)
                kind = .integer(low...max(low, high))
                value = .integer(whole(p.default_value))
            } else {
                let low = p.minimum.isFinite ? p.minimum : 0, high = p.maximum.isFinite ? p.maximum : 0
                kind = .number(low...max(low, high))
                value = .number(p.minimum <= p.maximum ? p.default_value : .nan)
            }
            parameters.append(
                ParameterInfo(key: text(p.key), defaultValue: value, kind: kind, summary: text(p.summary), unit: text(p.unit)))
        }
        return FilterInfo(name: text(c.name), summary: text(c.summary), parameters: parameters)
    }
}

/// What the plugin's filters share: the registry makes them through `PluginFilterFactory` (with their memberwise
/// initializers), never from text arguments.
protocol PluginFilter: Filter {}

extension PluginFilter {
    init(arguments: FilterArguments) throws(FilterSpecError) {
        throw .unknownFilter(name: Self.info.name, position: arguments.position)
    }
}

/// A plugin's point filter: its steps, read through the C table, fuse with the built-in point filters.
struct PluginPointFilter: PointFilter, PluginFilter {
    static let info = FilterInfo(name: "plugin-point-filter", summary: "a point filter from a plugin")
    let filterInfo: FilterInfo
    let values: [ParameterValue]
    let instance: PluginInstance

    var pointMap: PointMap {
        let instance = instance
        let layout = steps(instance, matrix: 0)
        var result: [PointMap.Step] = []
        for (index, step) in layout.enumerated() {
            switch step.kind {
            case Int32(SWIFTCAM_STEP_MATRIX):
                result.append(
                    .matrix { color in
                        let all = steps(instance, matrix: color.matrix == .bt709 ? 1 : 0)
                        guard all.indices.contains(index) else { return .identity }
                        let m = all[index].matrix
                        return ColorMatrix(red: [m.0, m.1, m.2], green: [m.3, m.4, m.5], blue: [m.6, m.7, m.8], offset: [m.9, m.10, m.11])
                    })
            case Int32(SWIFTCAM_STEP_CURVE):
                guard let samples = step.curve else { continue }
                let table = Array(UnsafeBufferPointer(start: samples, count: Int(SWIFTCAM_CURVE_SAMPLES)))
                result.append(
                    .curve { x in
                        let position = min(max(x, 0), 1) * Double(table.count - 1)
                        let i = min(Int(position), table.count - 2)
                        return table[i] + (table[i + 1] - table[i]) * (position - Double(i))
                    })
            case Int32(SWIFTCAM_STEP_CUBE):
                let size = Int(step.cube_size)
                guard (2...256).contains(size), let data = step.cube else { continue }
                let d = step.cube_domain
                if let cube = Cube3D(
                    size: size, table: Array(UnsafeBufferPointer(start: data, count: size * size * size * 3)),
                    domainMin: (d.0, d.1, d.2), domainMax: (d.3, d.4, d.5))
                {
                    result.append(.cube(cube))
                }
            default:
                continue
            }
        }
        return PointMap(steps: result)
    }
}

/// The instance's point steps for a colour matrix; empty when the plugin fails.
private func steps(_ instance: PluginInstance, matrix: Int32) -> [SwiftCamPointStep] {
    guard let function = instance.descriptor.pointee.point_steps else { return [] }
    var buffer = [SwiftCamPointStep](repeating: SwiftCamPointStep(), count: Int(SWIFTCAM_MAX_POINT_STEPS))
    let count = buffer.withUnsafeMutableBufferPointer { function(instance.pointer, matrix, $0.baseAddress, Int32($0.count)) }
    guard count > 0 else { return [] }
    return Array(buffer[0..<min(Int(count), buffer.count)])
}

/// A plugin's frame filter: each frame's planes go to the plugin through the C table, with the chain's scratch.
struct PluginFrameFilter: FrameFilter, PluginFilter {
    static let info = FilterInfo(name: "plugin-frame-filter", summary: "a frame filter from a plugin")
    let filterInfo: FilterInfo
    let values: [ParameterValue]
    let instance: PluginInstance

    func apply(_ input: Frame, to output: Frame, context: FrameContext) {
        guard let apply = instance.descriptor.pointee.apply else { return }
        input.gstName.withCString { format in
            var source = cFrame(input, format: format)
            var destination = cFrame(output, format: format)
            withUnsafePointer(to: context) { host in
                var c = SwiftCamFrameContext(
                    host: UnsafeMutableRawPointer(mutating: host),
                    scratch: { host, slot, bytes in
                        guard let host else { return nil }
                        return host.assumingMemoryBound(to: FrameContext.self).pointee.scratch(Int(slot), bytes: Int(clamping: bytes))
                    }, threads: Int32(clamping: context.threads))
                apply(instance.pointer, &source, &destination, &c)
            }
        }
    }

    private func cFrame(_ frame: Frame, format: UnsafePointer<CChar>) -> SwiftCamFrame {
        func plane(_ index: Int) -> (UnsafeMutablePointer<UInt8>?, Int64) {
            guard frame.planes.indices.contains(index) else { return (nil, 0) }
            return (frame.planes[index].base.assumingMemoryBound(to: UInt8.self), Int64(frame.planes[index].stride))
        }
        let (p0, s0) = plane(0), (p1, s1) = plane(1), (p2, s2) = plane(2)
        return SwiftCamFrame(
            format: format, width: Int32(clamping: frame.width), height: Int32(clamping: frame.height),
            matrix: frame.color.matrix == .bt709 ? 1 : 0, range: frame.color.range == .full ? 1 : 0,
            plane_count: Int32(frame.planes.count), planes: (p0, p1, p2), strides: (s0, s1, s2))
    }
}

extension Frame {
    fileprivate var gstName: String { format.gstName }
}
