import Filters
import GStreamer
import Glibc

/// The frame analysis variants: work called on each frame in this process, like a memcpy.
enum AnalysisTimers {
    static func make(_ analysis: String, frames: BenchmarkFrames, configuration: BenchmarkConfiguration) throws -> any BenchmarkTimer {
        let info = frames.info
        let width = info.width, height = info.height, stride = info.stride(plane: 0), offset = info.offset(plane: 0)
        switch analysis {
        case "motion":
            // The detector keeps its background from frame to frame, as it would on a camera.
            let detector = DetectorBox()
            var time: UInt64 = 0
            return try CallTimer(frames: frames, configuration: configuration) { source, _ in
                let plane = UnsafeBufferPointer(
                    start: (source + offset).assumingMemoryBound(to: UInt8.self), count: stride * (height - 1) + width)
                time += 33_333_333
                _ = detector.value.process(luma: plane, width: width, height: height, stride: stride, time: time)
            }
        case "luma-copy":
            return try CallTimer(frames: frames, configuration: configuration) { source, destination in
                Glibc.memcpy(destination, source + offset, stride * height)
            }
        case "preroll":
            return try PreRollTimer(frames: frames, configuration: configuration)
        default:
            throw GStreamerError.mapFailed("an analysis variant named \(analysis)")
        }
    }

    final class DetectorBox {
        var value = MotionDetector(settings: MotionSettings())
    }
}

/// The pre-roll ring of a recording on events: a 5 s ring taking a 2 Mbit/s stream at 30 fps with a key frame each
/// second (key frames five times a delta frame's size, as x264 makes them at this rate). Times an append per frame
/// and keeps the most bytes the ring held (the row's memory figure): a ring bounded by time holds the pre-roll plus
/// at most one group of pictures, whatever the picture size.
final class PreRollTimer: BenchmarkTimer {
    private var ring = KeyFrameRing<Int>(seconds: 5, maxBytes: 64_000_000)
    private let configuration: BenchmarkConfiguration
    private var index = 0
    private static let bitrate = 2_000_000, fps = 30, keyInterval = 30

    init(frames: BenchmarkFrames, configuration: BenchmarkConfiguration) throws {
        self.configuration = configuration
        // Fill the ring past its span first, so every timed append also trims.
        append(Self.fps * 10)
    }

    /// Bytes held at most.
    var heldBytes: Int { ring.peakBytes }

    func repetition() throws -> Double {
        let clock = ContinuousClock(), start = clock.now
        append(configuration.frames)
        return (clock.now - start).milliseconds / Double(configuration.frames)
    }

    func finish() throws {}

    private func append(_ count: Int) {
        // A group of 30: one key frame of 5 units and 29 delta frames of 1, 2 Mbit/s in all.
        let unit = Self.bitrate / 8 / (Self.fps / Self.keyInterval) / (Self.keyInterval + 4)
        for _ in 0..<count {
            let isKey = index % Self.keyInterval == 0
            ring.append(
                .init(
                    time: UInt64(index) * 1_000_000_000 / UInt64(Self.fps), bytes: isKey ? unit * 5 : unit,
                    isKeyFrame: isKey, payload: index))
            index += 1
        }
    }
}
