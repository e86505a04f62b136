import Analysis

/// `brightness start` when the picture's mean luma rises past `level` + `hysteresis`, `brightness end` when it falls
/// below `level` − `hysteresis` again: lights switched on and off, a door opened onto daylight.
///
/// The band between the two thresholds is the hysteresis: a picture whose mean hovers around `level` (sensor noise,
/// flicker) makes one event, not one per frame.
public final class Brightness: FrameAnalyzer {
    public let name = "brightness"
    /// The mean luma (0–255, as the camera delivers it) the picture crosses.
    public let level: Double
    /// How far past `level` the mean must go, either way, to count as a crossing.
    public let hysteresis: Double
    private var bright = false

    public init(level: Double = 128, hysteresis: Double = 8) {
        self.level = level
        self.hysteresis = hysteresis
    }

    public func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        let mean = Self.mean(frame.luma)
        if !bright, mean >= level + hysteresis {
            bright = true
            return [AnalysisEvent(source: name, kind: "start", time: frame.time)]
        }
        if bright, mean <= level - hysteresis {
            bright = false
            return [AnalysisEvent(source: name, kind: "end", time: frame.time)]
        }
        return []
    }

    /// The mean of the visible bytes (rows may be padded to `stride`).
    public static func mean(_ luma: LumaPlane) -> Double {
        guard luma.width > 0, luma.height > 0 else { return 0 }
        var total = 0
        luma.bytes.withUnsafeBufferPointer { bytes in
            for row in 0..<luma.height {
                var sum = 0
                for byte in bytes[row * luma.stride..<row * luma.stride + luma.width] { sum += Int(byte) }
                total += sum
            }
        }
        return Double(total) / Double(luma.width * luma.height)
    }

    /// What a config's `"analyze": [{"brightness": {"level": 100, "hysteresis": 10}}]` makes.
    public static let kind = AnalyzerKind(
        name: "brightness",
        summary: "brightness start / brightness end when the mean luma crosses a level, with hysteresis",
        options: [
            AnalyzerOption("level", .number(0...255), "mean luma the picture crosses, 0–255 (default 128)"),
            AnalyzerOption("hysteresis", .number(0...64), "how far past the level the mean must go, either way (default 8)")
        ],
        make: { options in Brightness(level: options.number("level") ?? 128, hysteresis: options.number("hysteresis") ?? 8) })
}
