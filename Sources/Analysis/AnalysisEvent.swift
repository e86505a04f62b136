public import Filters

/// What an analyser saw, at a frame's time: `motion start area=0.12 box=0.40,0.20,0.10,0.30`.
public struct AnalysisEvent: Sendable, Equatable, Codable {
    /// The analyser's name (`motion`).
    public var source: String
    /// What happened (`start`, `end`).
    public var kind: String
    /// The frame's timestamp (pipeline running time, nanoseconds).
    public var time: UInt64
    /// The changed share of the watched picture (0–1), where the analyser measures one.
    public var area: Double?
    /// Where, in picture fractions (x, y, width, height).
    public var box: [Double]?

    /// An event `kind` of the analyser `source` at `time`, with its area and box where it has them.
    public init(source: String, kind: String, time: UInt64, area: Double? = nil, box: [Double]? = nil) {
        (self.source, self.kind, self.time, self.area, self.box) = (source, kind, time, area, box)
    }

    /// `source kind`, the name counters and triggers use (`motion start`).
    public var name: String { "\(source) \(kind)" }

    /// The event as the host prints it, after `event `: `motion start area=0.12 box=x,y,w,h`.
    public var line: String {
        var text = name
        if let area { text += " area=\(fmt(Self.bounded(area), 2))" }
        if let box { text += " box=" + box.map { fmt(Self.bounded($0), 2) }.joined(separator: ",") }
        return text + " t=\(fmt(Double(time) / 1e9, 3))"
    }

    /// The environment a per-event command gets: `SWIFTCAM_EVENT=motion start`, …
    public var environment: [String: String] {
        var values = [
            "SWIFTCAM_EVENT": name, "SWIFTCAM_EVENT_SOURCE": source, "SWIFTCAM_EVENT_KIND": kind,
            "SWIFTCAM_EVENT_TIME": fmt(Double(time) / 1e9, 3)
        ]
        if let area { values["SWIFTCAM_EVENT_AREA"] = fmt(Self.bounded(area), 2) }
        if let box { values["SWIFTCAM_EVENT_BOX"] = box.map { fmt(Self.bounded($0), 2) }.joined(separator: ",") }
        return values
    }
}

extension AnalysisEvent {
    /// An analyser of a user's may give any number: printed ones stay within what `fmt` handles.
    package static func bounded(_ value: Double) -> Double { value.isFinite ? min(max(value, -1e9), 1e9) : 0 }
}

extension MotionBox {
    /// x, y, width, height: an event's `box`.
    public var fractions: [Double] { [x, y, width, height] }
}

/// Fixed-point formatting without Foundation's locale machinery.
package func fmt(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(abs(scaled).truncatingRemainder(dividingBy: scale))
    guard decimals > 0 else { return "\(whole)" }
    var digits = String(fraction)
    while digits.count < decimals { digits = "0" + digits }
    return (value < 0 && whole == 0 ? "-" : "") + "\(whole).\(digits)"
}
