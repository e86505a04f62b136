import Foundation
import GStreamer

/// A scene made for the motion tests: a textured still picture with sensor-like noise on every pixel of every frame,
/// and from frame `motionStart` for `motionFrames` frames a bright square crossing the middle band from left to right
/// (entering at the left edge, leaving at the right). Deterministic: the noise comes from a fixed-seed generator.
struct MotionScene {
    var width = 320
    var height = 240
    var fps = 30
    var frames = 150
    var motionStart = 60
    var motionFrames = 30
    var side = 64
    /// Each pixel's noise is uniform in ±`noise`.
    var noise = 10

    /// The square's top edge: the middle band (y 0.37–0.63 of the picture).
    var objectTop: Int { (height - side) / 2 }

    /// Whether the square shows in frame `index`.
    func hasObject(_ index: Int) -> Bool { index >= motionStart && index < motionStart + motionFrames }

    /// Nanoseconds of frame `index`.
    func time(_ index: Int) -> UInt64 { UInt64(index) * 1_000_000_000 / UInt64(fps) }

    /// The luma of frame `index`: the background, the square, then each pixel's noise from a table of uniform values
    /// read at an offset that changes from frame to frame.
    func luma(_ index: Int) -> [UInt8] {
        var plane = [UInt8](repeating: 0, count: width * height)
        let noiseTable = noise == 10 ? MotionScene.tenLevelNoise : MotionScene.noiseTable(noise)
        let left: Int? = hasObject(index) ? -side + (width + side) * (index - motionStart + 1) / motionFrames : nil
        let offset = (index &* 7919) % 4096
        plane.withUnsafeMutableBufferPointer { plane in
            noiseTable.withUnsafeBufferPointer { table in
                for y in 0..<height {
                    let inBand = y >= objectTop && y < objectTop + side
                    for x in 0..<width {
                        var value = 50 + (x * 3 + y * 2) % 90 + ((x / 16 + y / 16) % 2) * 30
                        if inBand, let left, x >= left, x < left + side { value = 235 }
                        plane[y * width + x] = UInt8(clamping: value + Int(table[(offset + y * width + x) % table.count]))
                    }
                }
            }
        }
        return plane
    }

    /// The noise of every scene here, made once.
    static let tenLevelNoise = noiseTable(10)

    /// Uniform values in ±`noise`, from a fixed-seed generator (a prime count, so frames never repeat a pattern).
    static func noiseTable(_ noise: Int) -> [Int8] {
        var state: UInt32 = 12345
        return (0..<65_521).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int8(Int(state >> 24) % (2 * noise + 1) - noise)
        }
    }

    /// Writes the scene as raw I420 in Matroska (lossless, so the noise is the scene's own) through an appsrc.
    func write(to path: String) throws {
        let pipeline = try Pipeline.parse("appsrc name=in format=time ! matroskamux ! filesink location=\"\(path)\"")
        guard let source = pipeline.element(named: "in", as: AppSrc.self) else { throw SceneError(reason: "no appsrc") }
        source.caps = try Caps(parsing: "video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(fps)/1")
        // PLAYING completes only with the first buffer (the muxer prerolls on it): asked for, not waited for.
        guard pipeline.requestState(.playing) else { throw SceneError(reason: "the scene writer would not play") }
        defer { try? pipeline.setState(.null) }
        let chroma = [UInt8](repeating: 128, count: width * height / 2)
        for index in 0..<frames {
            guard var buffer = WritableBuffer(size: width * height * 3 / 2) else { throw SceneError(reason: "no buffer") }
            let bytes = luma(index) + chroma
            try buffer.withMappedBytes { target in
                bytes.withUnsafeBytes { target.copyMemory(from: $0) }
            }
            buffer.pts = time(index)
            buffer.duration = time(1)
            try source.push(buffer)
        }
        source.endOfStream()
        _ = pipeline.bus.waitForEnd(timeout: 60)
    }
}

struct SceneError: Error {
    let reason: String
}
