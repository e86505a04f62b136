import Filters
import GStreamer
import SwiftFilterElement
import Testing

/// Every `PixelFormat` the engine has is a format the element offers, and each goes through it.
@Suite("swiftfilter formats")
struct FormatTests {
    init() { SwiftFilterElement.register() }

    /// The pad templates (C, `SWIFTFILTER_FORMATS`) list exactly the engine's formats: one added to
    /// `PixelFormat` but not to the templates could never be negotiated, and one only in the templates
    /// would be negotiated and then refused.
    @Test(arguments: ["sink", "src"])
    func padTemplateFormatsAreThePixelFormats(pad: String) throws {
        let filter = try Element.make("swiftfilter")
        let caps = try #require(filter.padTemplateCaps(pad))
        #expect(caps.count == 1)
        let formats = try #require(caps.structure(at: 0)?.strings("format"))
        #expect(formats.count == Set(formats).count, "\(formats) lists a format twice")
        #expect(Set(formats) == Set(PixelFormat.allCases.map(\.gstName)))
    }

    /// videotestsrc frames of each format through `swiftfilter`, read to end-of-stream, equal byte for byte
    /// what the engine makes of the same frames in memory, and differ from the input. A point chain runs
    /// in place on videotestsrc's writable buffers, a spatial one into a new buffer.
    @Test(arguments: PixelFormat.allCases, ["sepia intensity=0.8 | vignette intensity=1.5 radius=2", "blur radius=2 | invert"])
    func everyFormatIsFilteredAsTheEngineSays(format: PixelFormat, chain: String) throws {
        let frames = 4
        // Odd sizes: padded rows, rounded-up chroma; the pattern scrolls, so every frame differs.
        let source =
            "videotestsrc num-buffers=\(frames) pattern=smpte horizontal-speed=5 "
            + "! video/x-raw,format=\(format.gstName),width=33,height=17"
        let inputs = try Self.run("\(source) ! appsink name=out sync=false")
        let outputs = try Self.run("\(source) ! swiftfilter chain=\"\(chain)\" ! appsink name=out sync=false")
        #expect(inputs.count == frames && outputs.count == frames)
        let compiled = try FilterChain(parsing: chain).compile(threads: 1)
        for (index, (input, output)) in zip(inputs, outputs).enumerated() {
            let expected = try input.processed(by: compiled, format: format)
            var wrong = 0, changed = 0
            for (p, plane) in input.planes.enumerated() {
                for y in 0..<plane.height {
                    // At an odd width YUY2's last group holds one Y too many: padding videotestsrc leaves unwritten.
                    for x in 0..<plane.rowBytes where !(format == .yuy2 && x == input.info.width * 2) {
                        let at = y * plane.stride + x
                        if output.bytes[p][at] != expected[p][at] { wrong += 1 }
                        if output.bytes[p][at] != input.bytes[p][at] { changed += 1 }
                    }
                }
            }
            #expect(wrong == 0, "\(format.gstName) frame \(index): \(wrong) bytes differ from the engine's")
            #expect(changed > 0, "\(format.gstName) frame \(index) came out unchanged")
        }
    }

    /// One decoded frame: its layout and each plane's bytes as mapped.
    struct Picture {
        var info: VideoInfo
        var planes: [VideoPlane]
        var bytes: [[UInt8]]

        init(_ sample: Sample) throws {
            info = try #require(sample.videoInfo)
            let info = info
            (planes, bytes) = try #require(sample.buffer).withMappedVideoFrame(info) { frame in
                (frame.planes, frame.planes.indices.map { p in frame.withPlane(p) { span in span.withUnsafeBufferPointer { Array($0) } } })
            }
        }

        /// What the engine makes of this picture, run in memory on a copy.
        func processed(by chain: CompiledChain, format: PixelFormat) throws -> [[UInt8]] {
            let copies = bytes.map { bytes in
                let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
                copy.copyBytes(from: bytes)
                return copy
            }
            defer { copies.forEach { $0.deallocate() } }
            // The colour description swiftfilter reads from the caps.
            let color = ColorDescription(matrix: info.isBT709 ? .bt709 : .bt601, range: info.isFullRange ? .full : .limited)
            let frame = Frame(
                format: format, width: info.width, height: info.height,
                planes: zip(copies, planes).map { Plane(base: $0.baseAddress!, stride: $1.stride) }, color: color)
            try chain.process(frame)
            return zip(copies, bytes).map { Array($0.prefix($1.count)) }
        }
    }

    /// The buffers swiftfilter writes into start on a 64-byte boundary, so the AVX-512 rows' 64-byte stores never
    /// straddle two cache lines (from the pool's default alignment every other buffer here began 32 bytes into one).
    /// A spatial chain, so every output is a new buffer from the pool.
    @Test func newOutputBuffersAreCacheLineAligned() throws {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=8 ! video/x-raw,format=RGBA,width=64,height=48 "
                + "! swiftfilter chain=\"blur radius=2\" ! appsink name=out sync=false")
        let sink = try #require(pipeline.element(named: "out", as: AppSink.self))
        try pipeline.setState(.playing)
        var offsets: [Int] = []
        while let sample = sink.pullSample(timeout: 20) {
            offsets.append(try #require(sample.buffer).withMappedBytes { Int(bitPattern: $0.baseAddress) % 64 })
        }
        try pipeline.setState(.null)
        #expect(offsets.count == 8)
        #expect(offsets.allSatisfy { $0 == 0 }, "offsets into a cache line: \(offsets)")
    }

    /// Runs a launch line to end-of-stream and returns the frames its appsink `out` received.
    static func run(_ launch: String) throws -> [Picture] {
        let pipeline = try Pipeline.parse(launch)
        let sink = try #require(pipeline.element(named: "out", as: AppSink.self))
        let bus = pipeline.bus
        try pipeline.setState(.playing)
        var pictures: [Picture] = []
        while let sample = sink.pullSample(timeout: 20) {
            pictures.append(try Picture(sample))
        }
        let error = bus.pop(timeout: 0, types: .error)
        try pipeline.setState(.null)
        #expect(sink.isEndOfStream, "no end of stream: \(error?.description ?? "timed out")")
        return pictures
    }
}
