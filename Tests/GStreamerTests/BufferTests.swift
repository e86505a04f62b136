import GStreamer
import Testing

@Suite("Buffers")
struct BufferTests {
    /// A shared buffer is taken for writing as a copy: the other holder keeps its timestamps and bytes.
    @Test func writingASharedBufferLeavesOtherHoldersAlone() throws {
        let shared = try #require([UInt8](repeating: 1, count: 64).withUnsafeBytes { Buffer(copying: $0) })
        let otherHolder = Buffer(retaining: shared.pointer)  // as a queue or a sample would hold it
        var writable = WritableBuffer(shared)
        writable.pts = 42
        writable.duration = 7
        try writable.withMappedBytes { $0[0] = 9 }
        #expect(writable.pts == 42 && writable.duration == 7)
        #expect(otherHolder.pts == nil && otherHolder.duration == nil)
        #expect(try otherHolder.withMappedBytes { $0[0] } == 1)
        let done = Buffer(writable)
        #expect(try done.withMappedBytes { $0[0] } == 9)
        #expect(done.pts == 42)
    }

    /// The recorder's case: a frame from an appsink restamped for another pipeline; the sample keeps its time.
    @Test func restampingASampleBufferLeavesTheSampleAlone() throws {
        let pipeline = try Pipeline.parse("videotestsrc num-buffers=2 ! video/x-raw,width=8,height=8 ! appsink name=sink sync=false")
        let sink = try #require(pipeline.element(named: "sink", as: AppSink.self))
        try pipeline.setState(.playing)
        _ = try #require(sink.pullSample(timeout: 10))
        let sample = try #require(sink.pullSample(timeout: 10))
        let original = try #require(sample.buffer?.pts)
        #expect(original > 0)
        var restamped = WritableBuffer(try #require(sample.buffer))
        restamped.pts = 0
        #expect(restamped.pts == 0)
        #expect(sample.buffer?.pts == original)
        try pipeline.setState(.null)
    }
}
