import Config
import GStreamer

/// Encodes one raw frame to JPEG or PNG with GStreamer's own encoders, on the caller's thread.
/// A small pipeline per still keeps the live graph free of per-frame encoding work.
enum StillEncoder {
    static func encode(_ sample: Sample, format: StillConfig.Format, quality: Int) throws -> [UInt8] {
        guard let caps = sample.caps, let buffer = sample.buffer else {
            throw SessionError.snapshotFailed(reason: "the frame has no caps or data")
        }
        let pipeline = try PipelineBuilder.stillEncoderGraph(format: format, quality: quality).build()
        guard let source = pipeline.element(named: "in", as: AppSrc.self),
            let sink = pipeline.element(named: "out", as: AppSink.self)
        else {
            throw SessionError.snapshotFailed(reason: "the encoder pipeline has no appsrc/appsink")
        }
        source.caps = caps
        pipeline.requestState(.playing)
        defer { try? pipeline.setState(.null) }
        // A fresh buffer sharing the frame's memory, with timestamps the encoder can start from.
        var frame = WritableBuffer(buffer)
        frame.pts = 0
        try source.push(frame)
        source.endOfStream()
        guard let encoded = sink.pullSample(timeout: 10), let data = encoded.buffer else {
            let message = pipeline.bus.pop(timeout: 0, types: .error)?.description ?? "no encoded frame came out"
            throw SessionError.snapshotFailed(reason: message)
        }
        return try data.withMappedBytes { Array($0.bindMemory(to: UInt8.self)) }
    }
}
