public import Analysis
import Base
import Dispatch
public import GStreamer

/// How one analyser is keeping up, for `stats` and `/metrics`.
public struct AnalyzerStats: Sendable, Equatable, Codable {
    /// The analyser's name.
    public var name: String
    /// Frames offered to it, frames it analysed, and frames dropped because it was still busy with an earlier one.
    public var frames: Int
    public var analysed: Int
    public var dropped: Int
    /// Frames it could not read (a format without a luma plane), and events it made.
    public var unreadable: Int
    public var events: Int

    public init(name: String, frames: Int, analysed: Int, dropped: Int, unreadable: Int, events: Int) {
        (self.name, self.frames, self.analysed) = (name, frames, analysed)
        (self.dropped, self.unreadable, self.events) = (dropped, unreadable, events)
    }
}

/// One analyser on a serial queue of its own. `offer` is called on the analysis branch's streaming thread with
/// every frame and never waits: when the analyser is idle the frame's luma is copied (the buffer goes back at once)
/// and analysed on the queue; when it is busy the frame is dropped and counted.
/// Unchecked Sendable: the non-`Sendable` `analyzer` and the `scratch` array are touched only on `queue` after
/// `init`, and the counts are behind `Locked`.
final class AnalyzerRunner: @unchecked Sendable {
    let name: String
    /// Touched only on `queue`.
    private let analyzer: any FrameAnalyzer
    private let wantsFullFrame: Bool
    private let queue: DispatchQueue
    private let counts = Locked(Counts())
    private let onEvents: @Sendable ([AnalysisEvent]) -> Void
    /// The copy of the last luma plane, reused from frame to frame (only touched on `queue`).
    private var scratch: [UInt8] = []

    private struct Counts {
        var busy = false
        var stopped = false
        var frames = 0
        var analysed = 0
        var dropped = 0
        var unreadable = 0
        var events = 0
    }

    init(_ analyzer: any FrameAnalyzer, onEvents: @escaping @Sendable ([AnalysisEvent]) -> Void) {
        self.analyzer = analyzer
        name = analyzer.name
        wantsFullFrame = analyzer.wantsFullFrame
        self.onEvents = onEvents
        queue = DispatchQueue(label: "swiftcam.analysis.\(analyzer.name)")
    }

    var stats: AnalyzerStats {
        counts.withLock {
            AnalyzerStats(
                name: name, frames: $0.frames, analysed: $0.analysed, dropped: $0.dropped,
                unreadable: $0.unreadable, events: $0.events)
        }
    }

    /// On the streaming thread: hands `sample` to the analyser's queue unless it is busy. Never blocks, never traps.
    func offer(_ sample: Sample) {
        let index = counts.withLock { counts -> Int? in
            guard !counts.stopped else { return nil }
            counts.frames += 1
            guard !counts.busy else {
                counts.dropped += 1
                return nil
            }
            counts.busy = true
            return counts.frames - 1
        }
        guard let index else { return }
        queue.async { self.run(sample, index: index) }
    }

    /// Stops taking frames; waits for a frame under analysis.
    func stop() {
        counts.withLock { $0.stopped = true }
        queue.sync {}
    }

    /// Waits until the frame under analysis (if any) is done: its events are out.
    func drain() {
        queue.sync {}
    }

    private func run(_ sample: Sample, index: Int) {
        defer { counts.withLock { $0.busy = false } }
        guard let buffer = sample.buffer, let info = sample.videoInfo,
            let luma = LumaCopy.copy(buffer, info: info, into: &scratch)
        else {
            counts.withLock { $0.unreadable += 1 }
            return
        }
        let frame = AnalysisFrame(time: buffer.pts ?? 0, index: index, luma: luma, fullFrame: wantsFullFrame ? sample : nil)
        let events = analyzer.analyze(frame)
        counts.withLock {
            $0.analysed += 1
            $0.events += events.count
        }
        if !events.isEmpty { onEvents(events) }
    }
}

/// Copies a frame's luma into a reused array.
enum LumaCopy {
    /// Formats whose first plane is luma.
    static let lumaFirst: Set<String> = ["NV12", "NV21", "I420", "YV12", "Y42B", "Y444", "GRAY8", "NV16", "NV24"]
    /// Packed RGB formats: the byte offsets of R, G and B in a 4-byte pixel.
    static let rgb: [String: (Int, Int, Int)] = [
        "RGBA": (0, 1, 2), "RGBx": (0, 1, 2), "BGRA": (2, 1, 0), "BGRx": (2, 1, 0),
        "ARGB": (1, 2, 3), "xRGB": (1, 2, 3), "ABGR": (3, 2, 1), "xBGR": (3, 2, 1)
    ]

    /// Whether frames of `format` can be analysed.
    static func canRead(_ format: String) -> Bool { lumaFirst.contains(format) || rgb[format] != nil }

    /// The luma of `buffer`, or nil when the format has none to read or the buffer will not map.
    static func copy(_ buffer: Buffer, info: VideoInfo, into scratch: inout [UInt8]) -> LumaPlane? {
        let format = info.formatName, width = info.width, height = info.height
        guard width > 0, height > 0, canRead(format) else { return nil }
        if scratch.count != width * height { scratch = Array(repeating: 0, count: width * height) }
        let ok: Bool? = try? buffer.withMappedVideoFrame(info) { frame in
            let plane = frame.planes[0]
            return frame.withPlane(0) { span in
                span.withUnsafeBufferPointer { source in
                    scratch.withUnsafeMutableBufferPointer { target in
                        guard let from = source.baseAddress, let to = target.baseAddress else { return false }
                        if let (r, g, b) = rgb[format] {
                            for row in 0..<height {
                                let line = from + row * plane.stride, out = to + row * width
                                for x in 0..<width {
                                    let pixel = line + x * 4
                                    // BT.601 weights in 256ths: 77 R + 150 G + 29 B.
                                    let red = 77 * Int(pixel[r]), green = 150 * Int(pixel[g]), blue = 29 * Int(pixel[b])
                                    out[x] = UInt8(truncatingIfNeeded: (red + green + blue) >> 8)
                                }
                            }
                        } else if plane.stride == width {
                            to.update(from: from, count: width * height)
                        } else {
                            for row in 0..<height { (to + row * width).update(from: from + row * plane.stride, count: width) }
                        }
                        return true
                    }
                }
            }
        }
        guard ok == true else { return nil }
        return LumaPlane(width: width, height: height, stride: width, isFullRange: info.isFullRange || rgb[format] != nil, bytes: scratch)
    }
}

extension AnalysisFrame {
    /// The whole frame (its buffer and caps) the host filled in for an analyser whose `wantsFullFrame` is true.
    public var sample: Sample? { fullFrame as? Sample }
}
