import Base
import Capture
import Dispatch
import GStreamer
import SwiftFilterElement
import Testing

/// `chain` changes while frames flow: each frame is processed wholly by one chain, and the chain does change.
@Suite("swiftfilter chain swaps")
struct ChainSwapTests {
    init() { SwiftFilterElement.register() }

    /// R = G = B = 100, A = 255 as a little-endian RGBA word, and the same inverted (255 − 100 = 155).
    static let plain: UInt32 = 0xFF64_6464
    static let inverted: UInt32 = 0xFF9B_9B9B

    @Test func eightThreadsToggleChainWhileFramesFlow() throws {
        let pipeline = Pipeline()
        let camera = try FrameSource(format: "RGBA", width: 64, height: 48)
        let filter = try Element.make("swiftfilter")
        try filter.set("n-threads", 2)
        let tap = try FrameTap(backlog: 4096)
        try pipeline.addChain([camera.source, filter, tap.sink])
        let arrived = Arrivals()
        tap.onFrame { sample in arrived.append(sample) }
        let bus = pipeline.bus
        pipeline.requestState(.playing)

        var pushed = 0
        func push() throws {
            try camera.push { frame in
                let plane = frame.planes[0]
                frame.withMutablePlane(0) { bytes in
                    for y in 0..<plane.height {
                        for x in 0..<plane.width {
                            let at = y * plane.stride + x * 4
                            (bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]) = (100, 100, 100, 255)
                        }
                    }
                }
            }
            pushed += 1
        }

        // Eight threads toggle the chain for as long as frames flow (and at least 200 frames).
        let group = DispatchGroup()
        let togglers = DispatchQueue(label: "togglers", attributes: .concurrent)
        for thread in 0..<8 {
            togglers.async(group: group) {
                for step in 0..<1000 {
                    try? filter.set("chain", (step + thread) % 2 == 0 ? "invert" : "")
                }
            }
        }
        while pushed < 200 || group.wait(timeout: .now()) == .timedOut {
            try push()
        }

        // Then chains set one after the other: the frames pushed after each must show it. A chain that never
        // changes (stuck at either value) fails here even if every toggled frame looked whole.
        try filter.set("chain", "invert")
        let invertedFrom = pushed
        for _ in 0..<20 { try push() }
        #expect(arrived.wait(until: pushed, seconds: 60), "only \(arrived.count) of \(pushed) frames arrived")
        try filter.set("chain", "")
        let plainFrom = pushed
        for _ in 0..<20 { try push() }

        camera.endOfStream()
        guard case .eos? = bus.waitForEnd(timeout: 60) else {
            Issue.record("no end of stream")
            return
        }
        tap.drain()
        let samples = arrived.all
        #expect(samples.count == pushed)
        let frameDuration = try #require(camera.frameDuration)
        var plain = 0, inverted = 0, mixed = 0
        for sample in samples {
            guard let info = sample.videoInfo, let buffer = sample.buffer, let pts = buffer.pts else { mixed += 1; continue }
            let index = Int(pts / frameDuration)
            let values = try buffer.withMappedVideoFrame(info) { frame in
                let plane = frame.planes[0]
                return frame.withPlane(0) { bytes in
                    var values = Set<UInt32>()
                    for y in 0..<plane.height {
                        for x in 0..<plane.width {
                            let at = y * plane.stride + x * 4
                            values.insert(
                                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8
                                    | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
                        }
                    }
                    return values
                }
            }
            switch values {
            case [Self.plain]:
                plain += 1
                #expect(!(invertedFrom..<plainFrom).contains(index), "frame \(index), pushed after chain=invert, is plain")
            case [Self.inverted]:
                inverted += 1
                #expect(index < plainFrom, "frame \(index), pushed after chain=\"\", is inverted")
            default:
                mixed += 1
                Issue.record("mixed frame \(index): \(values.count) values, e.g. \(values.prefix(4).map { String($0, radix: 16) })")
            }
        }
        #expect(mixed == 0, "frames processed partly by one chain and partly by another")
        #expect(plain + inverted == pushed)
        #expect(inverted >= 20 && plain >= 20)
        try pipeline.setState(.null)
    }
}

/// Samples from a tap's queue, with a wait for a count of them.
final class Arrivals: Sendable {
    private let samples = Locked<[Sample]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func append(_ sample: Sample) {
        samples.withLock { $0.append(sample) }
        arrived.signal()
    }

    var all: [Sample] { samples.withLock { $0 } }
    var count: Int { samples.withLock { $0.count } }

    /// Waits until `count` samples have arrived, at most `seconds` in all.
    func wait(until count: Int, seconds: Double) -> Bool {
        let deadline = DispatchTime.now() + seconds
        // One signal per sample: take them until enough arrived or the deadline passes.
        while self.count < count {
            guard arrived.wait(timeout: deadline) == .success else { return self.count >= count }
        }
        return true
    }
}
