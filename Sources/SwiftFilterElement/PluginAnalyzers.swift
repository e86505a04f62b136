import Analysis
import CFilterPlugin
import Filters

/// Analyser kinds from a plugin's C table: declared options become `AnalyzerOption`s (so configs are checked like a
/// built-in's), and each analyser made calls back into the plugin.
enum PluginAnalyzerFactory {
    /// A table entry, which lives as long as the process (GStreamer never unloads a plugin).
    /// Unchecked Sendable: the entry it points at is written once, when the plugin makes its table, then only read.
    struct Descriptor: @unchecked Sendable {
        let pointer: UnsafePointer<SwiftCamAnalyzerDescriptor>
    }

    /// The kind the entry declares, or why it cannot be registered.
    static func kind(_ pointer: UnsafePointer<SwiftCamAnalyzerDescriptor>, index: Int32) throws(AnalyzerOptionError) -> AnalyzerKind {
        let c = pointer.pointee
        let name = PluginFilterFactory.text(c.name)
        guard c.create != nil, c.destroy != nil, c.analyze != nil else {
            throw AnalyzerOptionError(key: "", reason: "analyser \"\(name)\" has no create, destroy or analyze function")
        }
        var options: [AnalyzerOption] = []
        for o in 0..<max(0, Int(c.option_count)) {
            guard let option = c.options?[o] else { break }
            let key = PluginFilterFactory.text(option.key)
            let kind: AnalyzerOption.Kind
            switch Int(option.kind) {
            case SWIFTCAM_OPTION_NUMBER:
                guard option.minimum.isFinite, option.maximum.isFinite, option.minimum <= option.maximum else {
                    throw AnalyzerOptionError(key: key, reason: "analyser \"\(name)\" declares option \"\(key)\" with an empty range")
                }
                kind = .number(option.minimum...option.maximum)
            case SWIFTCAM_OPTION_INTEGER:
                let low = PluginFilterFactory.whole(option.minimum), high = PluginFilterFactory.whole(option.maximum)
                guard low <= high else {
                    throw AnalyzerOptionError(key: key, reason: "analyser \"\(name)\" declares option \"\(key)\" with an empty range")
                }
                kind = .integer(low...high)
            case SWIFTCAM_OPTION_BOOL: kind = .bool
            case SWIFTCAM_OPTION_ZONES: kind = .zones
            default:
                throw AnalyzerOptionError(
                    key: key, reason: "analyser \"\(name)\" declares option \"\(key)\" of a kind this SwiftCam does not know")
            }
            options.append(AnalyzerOption(key, kind, PluginFilterFactory.text(option.summary)))
        }
        let descriptor = Descriptor(pointer: pointer)
        let declared = options
        return AnalyzerKind(name: name, summary: PluginFilterFactory.text(c.summary), options: options) {
            values throws(AnalyzerOptionError) in
            try PluginAnalyzer(descriptor, index: index, name: name, options: declared, values: values)
        }
    }
}

/// One analyser a plugin made; its frames cross as C luma planes, its events come back through `emit`.
///
/// Only the analyser's own queue calls `analyze` (the `FrameAnalyzer` contract), one frame at a time.
final class PluginAnalyzer: FrameAnalyzer {
    let name: String
    private let descriptor: PluginAnalyzerFactory.Descriptor
    private let instance: UnsafeMutableRawPointer

    init(
        _ descriptor: PluginAnalyzerFactory.Descriptor, index: Int32, name: String, options: [AnalyzerOption],
        values: AnalyzerOptions
    ) throws(AnalyzerOptionError) {
        self.name = name
        self.descriptor = descriptor
        let arguments = PluginAnalyzerArguments(options: options, values: values)
        defer { arguments.free() }
        var reason = [CChar](repeating: 0, count: 256)
        let made = reason.withUnsafeMutableBufferPointer { buffer in
            descriptor.pointer.pointee.create?(index, arguments.values, buffer.baseAddress, Int32(buffer.count))
        }
        guard let made else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw AnalyzerOptionError(key: "", reason: "\(name) refused its options" + (text.isEmpty ? "" : ": \(text)"))
        }
        instance = made
    }

    deinit { descriptor.pointer.pointee.destroy?(instance) }

    func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        let luma = frame.luma
        let needed = luma.height > 0 ? luma.stride * (luma.height - 1) + luma.width : 0
        guard luma.width > 0, luma.bytes.count >= needed else { return [] }
        let sink = EventSink(source: name, time: frame.time)
        luma.bytes.withUnsafeBufferPointer { bytes in
            var c = SwiftCamLumaFrame(
                time: frame.time, index: Int64(frame.index), width: Int32(clamping: luma.width),
                height: Int32(clamping: luma.height), stride: Int64(luma.stride),
                full_range: luma.isFullRange ? 1 : 0, luma: bytes.baseAddress)
            descriptor.pointer.pointee.analyze?(instance, &c, Unmanaged.passUnretained(sink).toOpaque(), emitEvent)
        }
        return sink.events
    }
}

/// The events one `analyze` call hands back, named with the analyser and stamped with the frame's time.
private final class EventSink {
    let source: String
    let time: UInt64
    var events: [AnalysisEvent] = []

    init(source: String, time: UInt64) {
        self.source = source
        self.time = time
    }
}

private let emitEvent: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<SwiftCamAnalysisEvent>?) -> Void = { host, event in
    guard let host, let event else { return }
    let sink = Unmanaged<EventSink>.fromOpaque(host).takeUnretainedValue()
    let c = event.pointee
    // An event's kind goes into one-line output (`event NAME KIND …`): a word, whatever the plugin wrote.
    let written = PluginFilterFactory.text(c.kind).unicodeScalars.prefix(64).map { scalar -> Character in
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
            ? Character(scalar) : "-"
    }
    let kind = written.isEmpty ? "event" : String(written)
    let box = c.has_box != 0 ? [c.box.0, c.box.1, c.box.2, c.box.3] : nil
    sink.events.append(AnalysisEvent(source: sink.source, kind: kind, time: sink.time, area: c.has_area != 0 ? c.area : nil, box: box))
}

/// The C values of a plugin analyser's options, in declaration order, alive until `free`.
private struct PluginAnalyzerArguments {
    let values: UnsafeMutablePointer<SwiftCamAnalyzerValue>
    private var blocks: [UnsafeMutableRawPointer] = []

    init(options: [AnalyzerOption], values given: AnalyzerOptions) {
        values = .allocate(capacity: max(1, options.count))
        for (index, option) in options.enumerated() {
            var value = SwiftCamAnalyzerValue()
            switch (option.kind, given.values[option.name]) {
            case let (_, .number(number)?):
                value.present = 1
                value.number = number
            case let (_, .bool(flag)?):
                value.present = 1
                value.number = flag ? 1 : 0
            case (.zones, _?):
                let zones = given.zones(option.name)
                let include = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, zones.count))
                let corners = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, zones.count))
                let points = UnsafeMutablePointer<Double>.allocate(capacity: max(1, 2 * zones.reduce(0) { $0 + $1.points.count }))
                var next = 0
                for (z, zone) in zones.enumerated() {
                    include[z] = zone.mode == .include ? 1 : 0
                    corners[z] = Int32(clamping: zone.points.count)
                    for point in zone.points {
                        (points[next], points[next + 1]) = (point.x, point.y)
                        next += 2
                    }
                }
                blocks += [UnsafeMutableRawPointer(include), UnsafeMutableRawPointer(corners), UnsafeMutableRawPointer(points)]
                value.present = 1
                value.zone_count = Int32(clamping: zones.count)
                (value.include, value.corners, value.points) = (UnsafePointer(include), UnsafePointer(corners), UnsafePointer(points))
            default:
                break
            }
            values[index] = value
        }
    }

    func free() {
        blocks.forEach { $0.deallocate() }
        values.deallocate()
    }
}
