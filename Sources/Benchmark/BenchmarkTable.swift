import Filters

/// The bench report as the text table `swiftcam bench` prints.
extension BenchmarkReport {
    /// A table per size: case, SwiftCam ms/frame, C ms/frame (median ± half range), speed-up, × memcpy;
    /// then the reasons for every skipped or failed side.
    public func table() -> String {
        var lines = [
            "swiftcam bench: \(date), \(machine.cores) cores, \(machine.cpu), \(machine.gstreamer), \(build) build, "
                + "Filters SIMD path \(machine.simdPath ?? SIMDPath.best.description), load \(Self.number(machine.load)) at start",
            "ms/frame = median of \(repetitions) repetitions x \(frames) frames, ± half their range, "
                + "appsrc ! identity ! fakesink baseline subtracted; speed-up = C / SwiftCam"
        ]
        var sizes: [String] = []
        for row in rows where !sizes.contains(row.size) { sizes.append(row.size) }
        for size in sizes {
            let sized = rows.filter { $0.size == size }
            let dimensions = sized.first.map { " (\($0.width)x\($0.height))" } ?? ""
            lines.append("")
            lines.append(Self.line(size + dimensions, "SwiftCam ms", "C ms", "speed-up", "x memcpy"))
            for row in sized {
                let title = row.heldBytes.map { row.title + ": \(Self.number(Double($0) / 1e6)) MB" } ?? row.title
                lines.append(
                    Self.line(
                        title, Self.cell(row.swiftcam), Self.cell(row.c),
                        row.speedUp.map { Self.number($0) + "x" } ?? "-",
                        row.timesMemcpy.map { Self.number($0) } ?? "-"))
            }
        }
        let notes = rows.compactMap { row in
            (row.skipped.map { "skipped" + ": \($0)" } ?? row.failed.map { "failed: \($0)" }).map { "  \(row.size) \(row.id): \($0)" }
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append("not measured:")
            lines.append(contentsOf: notes)
        }
        if rows.contains(where: { $0.id.hasPrefix("scaling") }) {
            lines.append("")
            lines.append("scaling rows: SwiftCam = n-threads=0 (all \(machine.cores) cores), C = the same chain with n-threads=1")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Column widths: case, SwiftCam, C, speed-up, × memcpy.
    static let widths = [44, 15, 15, 9, 8]

    static func line(_ columns: String...) -> String {
        var text = ""
        for (index, column) in columns.enumerated() {
            let width = index < widths.count ? widths[index] : 0
            text += column + String(repeating: " ", count: max(width - column.count, 0) + 1)
        }
        while text.last == " " { text.removeLast() }
        return text
    }

    /// "12.3 ±0.4", "skipped", "failed" or "-".
    static func cell(_ measurement: BenchmarkMeasurement?) -> String {
        guard let measurement else { return "-" }
        guard let median = measurement.medianMs else { return measurement.status }
        return number(median) + " ±" + number(measurement.spreadMs ?? 0)
    }

    /// Three significant digits at most, at least one decimal below 100: 0.123, 1.23, 12.3, 123.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let magnitude = abs(value)
        let places = magnitude < 1 ? 3 : magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((magnitude * Double(scale)).rounded())
        let whole = String(scaled / scale)
        var fraction = String(scaled % scale)
        fraction = String(repeating: "0", count: max(places - fraction.count, 0)) + fraction
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + whole + (places > 0 ? "." + fraction : "")
    }
}
