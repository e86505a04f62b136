import GStreamer
import Testing

@Suite("Video frames")
struct VideoFrameTests {
    /// GStreamer's default layout for odd sizes: rows rounded up to 4 bytes, chroma rounded up.
    @Test func i420OddSizeLayout() throws {
        let frame = try mapOne(format: "I420", width: 33, height: 17)
        #expect(frame.planeCount == 3)
        #expect(frame.strides == [36, 20, 20])
        #expect(frame.widths == [33, 17, 17])
        #expect(frame.heights == [17, 9, 9])
        // Plane sizes follow GStreamer's offsets: Y is stride × rounded-up-even height, chroma a quarter of that.
        #expect(frame.sizes == [36 * 18, 20 * 9, 20 * 9])
    }

    @Test func nv12OddSizeLayout() throws {
        let frame = try mapOne(format: "NV12", width: 33, height: 17)
        #expect(frame.planeCount == 2)
        #expect(frame.strides == [36, 36])
        #expect(frame.widths == [33, 17])
        #expect(frame.heights == [17, 9])
        #expect(frame.rowBytes == [33, 34])
        #expect(frame.sizes == [36 * 18, 36 * 9])
    }

    @Test func yuy2AndRGBLayouts() throws {
        let yuy2 = try mapOne(format: "YUY2", width: 33, height: 17)
        // Pixel 32's chroma is the whole last Y/U/Y/V group: the row is 17 groups of 4 bytes, not 33 × 2.
        #expect(yuy2.planeCount == 1 && yuy2.strides == [68] && yuy2.rowBytes == [68] && yuy2.widths == [33])
        let rgbx = try mapOne(format: "RGBx", width: 33, height: 17)
        #expect(rgbx.planeCount == 1 && rgbx.strides == [132] && rgbx.rowBytes == [132])
    }

    @Test func videoInfoWithoutPipeline() throws {
        let info = try VideoInfo(format: "I420", width: 33, height: 17)
        #expect(info.size == 36 * 18 + 2 * 20 * 9)
        #expect(info.offset(plane: 1) == 36 * 18)
        #expect(info.caps?.description.contains("width=(int)33") == true)
        #expect(throws: GStreamerError.self) { try VideoInfo(format: "NOPE", width: 2, height: 2) }
        #expect(throws: GStreamerError.self) { try VideoInfo(caps: Caps(parsing: "audio/x-raw")) }
    }

    @Test func mappingATooSmallBufferThrows() throws {
        let info = try VideoInfo(format: "RGBA", width: 64, height: 64)
        let buffer = try #require([UInt8](repeating: 0, count: 16).withUnsafeBytes { Buffer(copying: $0) })
        #expect(throws: GStreamerError.self) {
            try buffer.withMappedVideoFrame(info) { _ in () }
        }
    }

    struct Layout {
        var planeCount = 0
        var strides: [Int] = [], widths: [Int] = [], heights: [Int] = [], rowBytes: [Int] = [], sizes: [Int] = []
    }

    /// Runs one frame of `format` through videotestsrc and reads its mapped layout.
    func mapOne(format: String, width: Int, height: Int) throws -> Layout {
        let pipeline = try Pipeline.parse(
            "videotestsrc num-buffers=1 ! video/x-raw,format=\(format),width=\(width),height=\(height) ! appsink name=sink")
        let sink = try #require(pipeline.element(named: "sink", as: AppSink.self))
        try pipeline.setState(.playing)
        let sample = try #require(sink.pullSample(timeout: 5))
        let info = try #require(sample.videoInfo)
        let buffer = try #require(sample.buffer)
        var layout = Layout()
        try buffer.withMappedVideoFrame(info) { frame in
            layout.planeCount = frame.planes.count
            layout.strides = frame.planes.map(\.stride)
            layout.widths = frame.planes.map(\.width)
            layout.heights = frame.planes.map(\.height)
            layout.rowBytes = frame.planes.map(\.rowBytes)
        }
        layout.sizes = (0..<info.planeCount).map { info.planeSize(plane: $0) }
        try pipeline.setState(.null)
        return layout
    }
}
