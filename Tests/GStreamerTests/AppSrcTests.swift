import Base
import GStreamer
import Testing

@Suite("AppSrc and AppSink")
struct AppSrcTests {
    @Test func swiftMadeFramesArriveUnchangedWithTimestamps() throws {
        let width = 16, height = 8
        let caps = try Caps(parsing: "video/x-raw,format=RGBA,width=\(width),height=\(height),framerate=10/1")
        let pipeline = Pipeline()
        let source = try AppSrc.make(name: "src", caps: caps)
        let convert = try Element.make("videoconvert")
        let sink = try AppSink.make(name: "sink")
        try sink.set("sync", false)
        try pipeline.addChain([source, convert, sink])
        // A non-live appsrc prerolls only once data arrives: ask for PLAYING without waiting.
        pipeline.requestState(.playing)

        let frameBytes = width * height * 4
        for index in 0..<10 {
            let bytes = (0..<frameBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 31) }
            guard var buffer = WritableBuffer(size: frameBytes) else {
                Issue.record("no buffer of \(frameBytes) bytes")
                return
            }
            try buffer.withMappedBytes { $0.copyBytes(from: bytes) }
            buffer.pts = UInt64(index) * 100_000_000
            buffer.duration = 100_000_000
            try source.push(buffer)
        }
        source.endOfStream()

        var received = 0
        while let sample = sink.pullSample(timeout: 5) {
            let buffer = try #require(sample.buffer)
            #expect(buffer.pts == UInt64(received) * 100_000_000)
            #expect(buffer.duration == 100_000_000)
            let expected = (0..<frameBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ received &* 31) }
            let got = try buffer.withMappedBytes { Array($0.bindMemory(to: UInt8.self)) }
            #expect(got == expected)
            received += 1
        }
        #expect(received == 10)
        try pipeline.setState(.null)
    }

    @Test func sampleCallbackSeesEveryFrame() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=12 ! video/x-raw,width=8,height=8 ! appsink name=sink")
        let sink = try #require(pipeline.element(named: "sink", as: AppSink.self))
        let counter = Counter()
        sink.onSample { sample in
            if sample.buffer != nil { counter.add() }
        }
        let bus = pipeline.bus
        try pipeline.setState(.playing)
        guard case .eos? = bus.waitForEnd(timeout: 10) else {
            Issue.record("no end of stream")
            return
        }
        #expect(counter.value == 12)
        sink.onSample(nil)
        try pipeline.setState(.null)
    }

    @Test func typedPropertiesRoundTripAndFailClearly() throws {
        let sink = try AppSink.make()
        sink.maxBuffers = 3
        sink.dropsOldSamples = true
        #expect(sink.maxBuffers == 3 && sink.dropsOldSamples)
        let source = try Element.make("videotestsrc")
        try source.set("is-live", true)
        try source.set("timestamp-offset", Int64(5))
        #expect(try source.get("timestamp-offset", as: Int64.self) == 5)
        #expect(throws: GStreamerError.propertyNotFound(element: source.name, property: "nope")) {
            try source.set("nope", 1)
        }
        #expect(throws: GStreamerError.self) { try source.set("is-live", "maybe") }
        #expect {
            try source.set("pattern", "plaid")
        } throws: { error in
            guard case let .invalidEnumValue(_, _, value, allowed)? = error as? GStreamerError else { return false }
            return value == "plaid" && allowed.contains("smpte")
        }
        #expect(throws: GStreamerError.self) { try source.set("num-buffers", Int.max) }
        let filter = try Element.make("capsfilter")
        try filter.set("caps", Caps(parsing: "video/x-raw,width=4"))
        #expect(try filter.get("caps", as: Caps.self).description == "video/x-raw, width=(int)4")
        // A structure property (v4l2src's extra-controls) round-trips, and is not read as caps.
        let camera = try Element.make("v4l2src")
        try camera.set("extra-controls", Structure(parsing: "controls,brightness=5"))
        #expect(try camera.get("extra-controls", as: Structure.self).int("brightness") == 5)
        #expect(throws: GStreamerError.self) { try camera.get("extra-controls", as: Caps.self) }
        let structure = Structure(name: "stats")
        structure.set("frames", UInt64(7))
        structure.set("chain", "sepia")
        #expect(structure.int("frames") == 7 && structure.string("chain") == "sepia")
        #expect(try Structure(parsing: structure.description).int("frames") == 7)
    }
}

@Suite struct KeyFrameRequestProbeTests {
    /// An upstream request for a key frame (what an RTP session sends for a PLI or FIR) is seen at the pad it crosses,
    /// until the probe is removed.
    @Test func anUpstreamKeyFrameRequestIsSeenAtThePad() throws {
        let caps = try Caps(parsing: "video/x-raw,format=RGBA,width=16,height=8,framerate=10/1")
        let pipeline = Pipeline()
        let source = try AppSrc.make(name: "src", caps: caps)
        let sink = try AppSink.make(name: "sink")
        try pipeline.addChain([source, sink])
        let seen = Condition(0)
        let pad = try source.staticPad("src")
        let probe = pad.onKeyFrameRequest { seen.withLock { $0 += 1 } }
        // Pads pass events once active; the source need not produce anything for that.
        pipeline.requestState(.playing)
        // Whatever appsrc answers (it has no use for them), the request crossed the pad.
        sink.requestKeyFrame()
        sink.requestKeyFrame()
        #expect(seen.withLock { $0 } == 2)
        pad.removeProbe(probe)
        sink.requestKeyFrame()
        #expect(seen.withLock { $0 } == 2)
        try pipeline.setState(.null)
    }
}
