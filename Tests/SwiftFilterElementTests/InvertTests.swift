import Base
import Capture
import Filters
import GStreamer
import SwiftFilterElement
import Testing

/// Frames made in Swift go through `swiftfilter chain=invert` and are compared byte for byte.
@Suite("swiftfilter pixels")
struct InvertTests {
    init() { SwiftFilterElement.register() }

    /// How `invert` maps each plane's bytes: RGB components 255 − v (alpha and padding bytes kept);
    /// limited-range YUV mirrors luma within 16…235 (251 − Y) and chroma about 128 (256 − C).
    static func inverted(_ value: UInt8, format: String, plane: Int, byteInPixel: Int) -> UInt8 {
        switch format {
        case "RGBA": byteInPixel == 3 ? value : 255 - value
        case "BGRx": byteInPixel == 3 ? value : 255 - value
        default: plane == 0 ? 251 - value : UInt8(256 - Int(value))
        }
    }

    /// A deterministic picture whose YUV samples stay in the legal limited range.
    static func sample(_ frameIndex: Int, _ plane: Int, _ x: Int, _ y: Int) -> UInt8 {
        let mixed: Int = x &* 7 &+ y &* 13 &+ frameIndex &* 29 &+ plane &* 41
        return UInt8(16 + mixed % 220)
    }

    @Test(arguments: [("RGBA", 33, 17), ("BGRx", 32, 18), ("I420", 33, 17), ("NV12", 33, 17), ("NV12", 64, 48)])
    func invertIsExactPerByte(format: String, width: Int, height: Int) throws {
        let pipeline = Pipeline()
        let camera = try FrameSource(format: format, width: width, height: height, framerate: (30, 1))
        let filter = try Element.make("swiftfilter")
        try filter.set("chain", "invert")
        let tap = try FrameTap(backlog: 64)
        try pipeline.addChain([camera.source, filter, tap.sink])
        let collected = Collected()
        tap.onFrame { sample in collected.append(sample) }
        let bus = pipeline.bus
        pipeline.requestState(.playing)

        let frames = 6
        for index in 0..<frames {
            try camera.push { frame in
                for (p, plane) in frame.planes.enumerated() {
                    frame.withMutablePlane(p) { bytes in
                        for y in 0..<plane.height {
                            for x in 0..<plane.rowBytes { bytes[y * plane.stride + x] = Self.sample(index, p, x, y) }
                        }
                    }
                }
            }
        }
        camera.endOfStream()
        guard case .eos? = bus.waitForEnd(timeout: 20) else {
            Issue.record("pipeline did not reach end of stream")
            return
        }
        tap.drain()
        let samples = collected.all
        #expect(samples.count == frames)
        let bytesPerPixel = format.count == 4 && !["I420", "NV12", "YUY2"].contains(format) ? 4 : 1
        for (index, sample) in samples.enumerated() {
            let info = try #require(sample.videoInfo)
            var mismatches = 0
            try #require(sample.buffer).withMappedVideoFrame(info) { frame in
                for (p, plane) in frame.planes.enumerated() {
                    frame.withPlane(p) { bytes in
                        for y in 0..<plane.height {
                            for x in 0..<plane.rowBytes {
                                let expected = Self.inverted(
                                    Self.sample(index, p, x, y), format: format, plane: p,
                                    byteInPixel: x % bytesPerPixel)
                                if bytes[y * plane.stride + x] != expected { mismatches += 1 }
                            }
                        }
                    }
                }
            }
            #expect(mismatches == 0, "frame \(index) of \(format) \(width)x\(height): \(mismatches) bytes differ")
        }
        try pipeline.setState(.null)
    }

    @Test func emptyChainPassesTheSameMemoryThrough() throws {
        let pipeline = Pipeline()
        let camera = try FrameSource(format: "RGBA", width: 16, height: 16)
        let filter = try Element.make("swiftfilter")
        let sink = try AppSink.make()
        try sink.set("sync", false)
        try pipeline.addChain([camera.source, filter, sink])
        pipeline.requestState(.playing)
        guard var frame = WritableBuffer(size: camera.info.size) else {
            Issue.record("no buffer of \(camera.info.size) bytes")
            return
        }
        _ = try frame.withMappedBytes { $0.initializeMemory(as: UInt8.self, repeating: 7) }
        let pushedAddress = frame.dataAddress
        try camera.push(frame)
        camera.endOfStream()
        let sample = try #require(sink.pullSample(timeout: 10))
        let buffer = try #require(sample.buffer)
        // appsrc may wrap it in a new GstBuffer for timestamps, but the pixels are never copied.
        #expect(buffer.dataAddress != nil && buffer.dataAddress == pushedAddress)
        let stats = try #require(SwiftFilterElement.stats(of: filter))
        #expect(stats.chain == "")
        try pipeline.setState(.null)
    }

    @Test func invalidChainBeforeStartFailsTheStateChangeNamingTheProblem() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=3 ! swiftfilter name=f chain=\"sepia | nosuch\" ! fakesink")
        #expect {
            try pipeline.setState(.playing)
        } throws: { error in
            guard case let .stateChangeFailed(element, _, message)? = error as? GStreamerError else { return false }
            return element == "f" && message.contains("nosuch") && message.contains("column")
        }
        try pipeline.setState(.null)
    }

    @Test func invalidChainWhilePlayingWarnsAndKeepsTheRunningChain() throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc is-live=true ! video/x-raw,width=32,height=24 ! swiftfilter name=f chain=mono ! fakesink")
        let filter = try #require(pipeline.element(named: "f"))
        try pipeline.setState(.playing)
        let bus = pipeline.bus
        try filter.set("chain", "sepia intensity=7")
        let warning = bus.pop(timeout: 5, types: [.warning, .error])
        guard case let .warning(source, message, _)? = warning else {
            Issue.record("expected a warning, got \(String(describing: warning))")
            return
        }
        #expect(source == "f")
        #expect(message.contains("intensity"))
        #expect(try filter.get("chain", as: String.self) == "mono")
        try pipeline.setState(.null)
    }

    @Test func statsCountFramesAndTime() throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=20 ! video/x-raw,format=NV12,width=64,height=48 ! swiftfilter name=f chain=\"sepia | blur radius=2\" ! fakesink"
        )
        let filter = try #require(pipeline.element(named: "f"))
        let bus = pipeline.bus
        try pipeline.setState(.playing)
        guard case .eos? = bus.waitForEnd(timeout: 20) else {
            Issue.record("no end of stream")
            return
        }
        let stats = try #require(SwiftFilterElement.stats(of: filter))
        #expect(stats.frames == 20)
        #expect(stats.dropped == 0)
        #expect(stats.meanMilliseconds > 0 && stats.maxMilliseconds >= stats.meanMilliseconds)
        #expect(stats.chain == (try FilterChain(parsing: "sepia | blur radius=2")).description)
        try pipeline.setState(.null)
    }
}

/// Samples collected from a tap's queue.
final class Collected: Sendable {
    private let samples = Locked<[Sample]>([])
    func append(_ sample: Sample) { samples.withLock { $0.append(sample) } }
    var all: [Sample] { samples.withLock { $0 } }
}

/// Late frames are dropped by GstBaseTransform's QoS before they reach the chain, and counted.
@Suite("swiftfilter QoS")
struct QoSTests {
    init() { SwiftFilterElement.register() }

    @Test func lateFramesAreDroppedNotProcessedAndCounted() throws {
        // A live 60 fps source and a chain far slower than 16 ms a frame on one thread: the synced sink
        // reports lateness upstream and the filter skips frames instead of falling further behind.
        let pipeline = try Pipeline.parse(
            """
            videotestsrc is-live=true num-buffers=40 ! video/x-raw,format=RGBA,width=640,height=360,framerate=60/1 \
            ! swiftfilter name=f chain="blur radius=12 | sharpen radius=8 | edges" n-threads=1 ! fakesink sync=true qos=true
            """)
        let filter = try #require(pipeline.element(named: "f"))
        let bus = pipeline.bus
        try pipeline.setState(.playing, timeout: 120)  // the first frame is slow under the sanitizers
        guard case .eos? = bus.waitForEnd(timeout: 120) else {
            Issue.record("no end of stream")
            return
        }
        let stats = try #require(SwiftFilterElement.stats(of: filter))
        try pipeline.setState(.null)
        #expect(stats.dropped > 0, "late frames were dropped")
        #expect(stats.frames + stats.dropped == 40, "each frame was either processed or dropped: \(stats)")
    }
}
