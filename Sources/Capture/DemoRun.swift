import GStreamer

/// A test-pattern pipeline that needs no camera: what `make demo` shows before anything else.
public enum DemoRun {
    /// Plays `videotestsrc` into an appsink for about `seconds`, counting frames; returns a one-paragraph report.
    public static func start(seconds: Double) throws -> String {
        let frames = Int(seconds * 30)
        let pipeline = try Pipeline.parse("""
            videotestsrc pattern=smpte num-buffers=\(frames) ! video/x-raw,format=NV12,width=640,height=480,framerate=30/1 \
            ! appsink name=frames sync=true
            """)
        guard let sink = pipeline.element(named: "frames", as: AppSink.self) else {
            throw GStreamerError.padNotFound(element: "pipeline", pad: "frames")
        }
        try pipeline.setState(.playing)
        var count = 0
        var format = ""
        while let sample = sink.pullSample(timeout: seconds + 5) {
            count += 1
            if let info = sample.videoInfo { format = "\(info.formatName) \(info.width)x\(info.height)" }
        }
        try pipeline.setState(.null)
        return "demo: played \(count) frames of \(format) from videotestsrc in real time"
    }
}
