// The plugin side of a plugin's analysers: their declarations in the C table, and the calls the host makes through it
// (create from checked option values, analyse one frame's luma, destroy). The host's copy of Analysis and this one
// share no Swift type, so options, frames and events cross as C values.
import Analysis
import CFilterPlugin
import Synchronization

/// The table entries of `kinds`; made once, never freed (the plugin stays loaded).
func analyzerTable(_ kinds: [AnalyzerKind]) -> UnsafeMutablePointer<SwiftCamAnalyzerDescriptor> {
    let descriptors = UnsafeMutablePointer<SwiftCamAnalyzerDescriptor>.allocate(capacity: max(1, kinds.count))
    for (index, kind) in kinds.enumerated() {
        let options = UnsafeMutablePointer<SwiftCamAnalyzerOption>.allocate(capacity: max(1, kind.options.count))
        for (o, option) in kind.options.enumerated() {
            var c = SwiftCamAnalyzerOption(
                key: keep(option.name), summary: keep(option.summary), kind: Int32(SWIFTCAM_OPTION_NUMBER),
                minimum: 0, maximum: 0)
            switch option.kind {
            case let .number(range):
                (c.minimum, c.maximum) = (range.lowerBound, range.upperBound)
            case let .integer(range):
                c.kind = Int32(SWIFTCAM_OPTION_INTEGER)
                (c.minimum, c.maximum) = (Double(range.lowerBound), Double(range.upperBound))
            case .bool:
                c.kind = Int32(SWIFTCAM_OPTION_BOOL)
            case .zones:
                c.kind = Int32(SWIFTCAM_OPTION_ZONES)
            }
            options[o] = c
        }
        descriptors[index] = SwiftCamAnalyzerDescriptor(
            name: keep(kind.name), summary: keep(kind.summary), option_count: Int32(kind.options.count), options: options,
            create: createAnalyzer, destroy: destroyAnalyzer, analyze: analyzeFrame)
    }
    return descriptors
}

/// One analyser made for the host; only its queue calls it.
private final class AnalyzerInstance {
    let analyzer: any FrameAnalyzer

    init(_ analyzer: any FrameAnalyzer) {
        self.analyzer = analyzer
    }
}

/// The options a host passed, back in their JSON shape, so the kind checks and reads them as from a config.
private func options(of kind: AnalyzerKind, values: UnsafePointer<SwiftCamAnalyzerValue>?) -> AnalyzerOptions {
    var result: [String: AnalyzerValue] = [:]
    guard let values else { return AnalyzerOptions() }
    for (index, option) in kind.options.enumerated() where values[index].present != 0 {
        let value = values[index]
        switch option.kind {
        case .number, .integer:
            result[option.name] = .number(value.number)
        case .bool:
            result[option.name] = .bool(value.number != 0)
        case .zones:
            var zones: [AnalyzerValue] = []
            var point = 0
            for zone in 0..<max(0, Int(value.zone_count)) {
                guard let include = value.include, let corners = value.corners, let points = value.points else { break }
                let count = max(0, Int(corners[zone]))
                let polygon = (0..<count).map { corner in
                    AnalyzerValue.list([.number(points[2 * (point + corner)]), .number(points[2 * (point + corner) + 1])])
                }
                point += count
                zones.append(.object([include[zone] != 0 ? "include" : "exclude": .list(polygon)]))
            }
            result[option.name] = .list(zones)
        }
    }
    return AnalyzerOptions(result)
}

private let createAnalyzer:
    @convention(c) (Int32, UnsafePointer<SwiftCamAnalyzerValue>?, UnsafeMutablePointer<CChar>?, Int32)
        -> UnsafeMutableRawPointer? = { index, values, reason, capacity in
            let kinds = exported.withLock { $0.analyzers }
            guard kinds.indices.contains(Int(index)) else { return nil }
            let kind = kinds[Int(index)]
            let options = options(of: kind, values: values)
            do throws(AnalyzerOptionError) {
                try kind.validate(options)
                return Unmanaged.passRetained(AnalyzerInstance(try kind.make(options))).toOpaque()
            } catch {
                if let reason, capacity > 0 {
                    let bytes = Array(error.description.utf8.prefix(Int(capacity) - 1))
                    for (offset, byte) in bytes.enumerated() { reason[offset] = CChar(bitPattern: byte) }
                    reason[bytes.count] = 0
                }
                return nil
            }
        }

private let destroyAnalyzer: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    guard let raw else { return }
    Unmanaged<AnalyzerInstance>.fromOpaque(raw).release()
}

private let analyzeFrame:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<SwiftCamLumaFrame>?, UnsafeMutableRawPointer?,
        (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<SwiftCamAnalysisEvent>?) -> Void)?
    )
        -> Void = { raw, frame, host, emit in
            guard let raw, let frame, let emit, let bytes = frame.pointee.luma else { return }
            let c = frame.pointee
            // A frame the host describes impossibly is not read at all.
            guard c.width > 0, c.height > 0, c.width <= 1 << 15, c.height <= 1 << 15, c.stride >= Int64(c.width), c.stride <= 1 << 20 else {
                return
            }
            let (width, height, stride) = (Int(c.width), Int(c.height), Int(c.stride))
            let luma = LumaPlane(
                width: width, height: height, stride: stride, isFullRange: c.full_range != 0,
                bytes: Array(UnsafeBufferPointer(start: bytes, count: stride * (height - 1) + width)))
            let analyzer = Unmanaged<AnalyzerInstance>.fromOpaque(raw).takeUnretainedValue().analyzer
            for event in analyzer.analyze(AnalysisFrame(time: c.time, index: Int(c.index), luma: luma)) {
                let box = event.box ?? []
                event.kind.withCString { kind in
                    var out = SwiftCamAnalysisEvent(
                        kind: kind, has_area: event.area == nil ? 0 : 1, area: event.area ?? 0,
                        has_box: box.count == 4 ? 1 : 0, box: (0, 0, 0, 0))
                    if box.count == 4 { out.box = (box[0], box[1], box[2], box[3]) }
                    emit(host, &out)
                }
            }
        }
