import Capture
import Dispatch
import GStreamer
import SwiftFilterElement
import Testing

/// `chain` changes while frames flow: each frame is processed wholly by one chain.
@Suite("swiftfilter chain swaps")
struct ChainSwapTests {
    init() { SwiftFilterElement.register() }

    @Test func eightThreadsToggleChainWhileFramesFlow() throws {
        let pipeline = Pipeline()
        let camera = try FrameSource(format: "RGBA", width: 64, height: 48)
        let filter = try Element.make("swiftfilter")
        try filter.set("n-threads", 2)
        let tap = try FrameTap(backlog: 4096)
        try pipeline.addChain([camera.source, filter, tap.sink])
        let verdicts = Collected()
        tap.onFrame { sample in verdicts.append(sample) }
        let bus = pipeline.bus
        pipeline.requestState(.playing)

        let group = DispatchGroup()
        let togglers = DispatchQueue(label: "togglers", attributes: .concurrent)
        for thread in 0..<8 {
            togglers.async(group: group) {
                for step in 0..<1000 {
                    try? filter.set("chain", (step + thread) % 2 == 0 ? "invert" : "")
                }
            }
        }
        var pushed = 0
        // Frames flow for as long as the togglers run (and at least 200 frames).
        while pushed < 200 || group.wait(timeout: .now()) == .timedOut {
            try camera.push { frame in
                let plane = frame.planes[0]
                frame.withMutablePlane(0) { bytes in
                    for y in 0..<plane.height {
                        for x in 0..<plane.width {   // R = G = B = 100, A = 255
                            let at = y * plane.stride + x * 4
                            (bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]) = (100, 100, 100, 255)
                        }
                    }
                }
            }
            pushed += 1
        }
        camera.endOfStream()
        guard case .eos? = bus.waitForEnd(timeout: 60) else {
            Issue.record("no end of stream")
            return
        }
        tap.drain()
        let samples = verdicts.all
        #expect(samples.count == pushed)
        var plain = 0, inverted = 0, mixed = 0
        for sample in samples {
            guard let info = sample.videoInfo, let buffer = sample.buffer else { mixed += 1; continue }
            try buffer.withMappedVideoFrame(info) { frame in
                let plane = frame.planes[0]
                var values = Set<UInt32>()
                frame.withPlane(0) { bytes in
                    for y in 0..<plane.height {
                        for x in 0..<plane.width {
                            let at = y * plane.stride + x * 4
                            values.insert(UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8
                                          | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
                        }
                    }
                }
                switch values {
                case [0xFF64_6464]: plain += 1
                case [0xFF9B_9B9B]: inverted += 1
                default:
                    mixed += 1
                    Issue.record("mixed frame pts \(buffer.pts ?? 0): \(values.count) values, e.g. \(values.prefix(4).map { String($0, radix: 16) })")
                }
            }
        }
        #expect(mixed == 0, "frames processed partly by one chain and partly by another")
        #expect(plain + inverted == pushed)
        try pipeline.setState(.null)
    }
}
