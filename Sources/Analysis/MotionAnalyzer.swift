public import Filters

/// The built-in `motion` analyser: `MotionDetector` on each frame's luma, `motion start` and `motion end` events.
public final class MotionAnalyzer: FrameAnalyzer {
    /// The events' source (`motion`).
    public let name: String
    private var detector: MotionDetector

    /// An analyser named `name` (the events' source) with `settings`.
    public init(name: String = "motion", settings: MotionSettings = MotionSettings()) {
        self.name = name
        detector = MotionDetector(settings: settings)
    }

    /// Runs the detector on the frame's luma: a `start` or `end` event when motion begins or ends.
    public func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent] {
        let luma = frame.luma
        switch detector.process(luma: luma.bytes, width: luma.width, height: luma.height, stride: luma.stride, time: frame.time) {
        case let .start(area, box)?:
            return [AnalysisEvent(source: name, kind: "start", time: frame.time, area: area, box: box.fractions)]
        case let .end(area, box)?:
            return [AnalysisEvent(source: name, kind: "end", time: frame.time, area: area, box: box.fractions)]
        case nil:
            return []
        }
    }

    /// The options configs give `motion`, and how they make its settings.
    public static let kind = AnalyzerKind(
        name: "motion",
        summary: "luma against a running background; motion start / motion end with the changed area and its box",
        options: [
            AnalyzerOption("threshold", .integer(1...255), "luma steps a cell must differ from the background (default 20)"),
            AnalyzerOption("minArea", .number(0.0001...1), "share of the watched picture that must change (default 0.01)"),
            AnalyzerOption("cooldown", .number(0...3600), "seconds without motion before the event ends (default 2)"),
            AnalyzerOption("learningRate", .number(0.001...1), "how fast the background follows the scene per frame (default 0.05)"),
            AnalyzerOption("cellSize", .integer(4...64), "pixels per grid cell side (default 8)"),
            AnalyzerOption("zones", .zones, "[{\"include\" | \"exclude\": [[x, y], …]}] in picture fractions")
        ],
        make: { options in MotionAnalyzer(settings: settings(options)) })

    /// The detector's settings from validated options; a key not given keeps its default.
    public static func settings(_ options: AnalyzerOptions) -> MotionSettings {
        var settings = MotionSettings()
        if let value = options.integer("threshold") { settings.threshold = value }
        if let value = options.number("minArea") { settings.minArea = value }
        if let value = options.number("cooldown") { settings.cooldown = value }
        if let value = options.number("learningRate") { settings.learningRate = value }
        if let value = options.integer("cellSize") { settings.cellSize = value }
        settings.zones = options.zones("zones")
        return settings
    }
}
