/// One way a camera can send frames: a pixel format at one size and one frame rate, e.g. `MJPG 1280x720@30`.
public struct CameraMode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The V4L2 four-character code, e.g. `YUYV`, `NV12`, `MJPG`.
    public let fourcc: String
    /// True for compressed formats (MJPEG): the frames need a decoder.
    public let compressed: Bool
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Seconds per frame, as the driver states it (1/30, 1001/30000, …).
    public let interval: FrameInterval

    /// Frames per second.
    public var framesPerSecond: Double { interval.framesPerSecond }

    /// Width × height.
    public var area: Int { width * height }

    /// `MJPG 1280x720@30`.
    public var description: String { "\(fourcc) \(width)x\(height)@\(interval)" }
}

/// What a config asks of a camera: any of size, rate and camera format may be left open.
public struct ModeRequest: Hashable, Sendable {
    /// The width the picture must reach (nil: any).
    public var width: Int?
    /// The height the picture must reach (nil: any).
    public var height: Int?
    /// The frame rate the camera must reach (nil: the best rate for live use).
    public var framesPerSecond: Double?
    /// The camera format to use, as a V4L2 fourcc (`YUYV`, `MJPG`, …); nil lets the choice decide.
    public var fourcc: String?

    /// Creates a request.
    public init(width: Int? = nil, height: Int? = nil, framesPerSecond: Double? = nil, fourcc: String? = nil) {
        (self.width, self.height, self.framesPerSecond, self.fourcc) = (width, height, framesPerSecond, fourcc)
    }

    /// True when the request names no size and no rate: the camera's best live mode is wanted.
    var isOpen: Bool { width == nil && height == nil && framesPerSecond == nil }
}

/// The mode chosen for a request, and why when the choice is not the obvious one.
public struct ModeChoice: Hashable, Sendable {
    /// The mode the camera is asked for.
    public let mode: CameraMode
    /// Why a compressed mode was chosen over raw ones, e.g. `raw YUYV reaches only 10 fps at 1280x720 here`;
    /// nil when the mode is raw or the camera offers nothing raw worth naming.
    public let reason: String?
}

/// Why no mode of a camera serves a request; `description` names what the camera can do instead.
public struct ModeChoiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The camera's device node.
    public let path: String
    /// What was asked, e.g. `1920x1080 at 60 fps`.
    public let asked: String
    /// The nearest modes the camera does offer (the fastest at the largest sizes), at most four.
    public let offered: [CameraMode]
    /// Why, when the camera offers nothing usable at all (only formats SwiftCam cannot decode).
    public let note: String?

    /// What the camera cannot do and what it can, without the device: `cannot deliver 60 fps; it offers …`.
    public var problem: String {
        if offered.isEmpty { return "cannot deliver \(asked): \(note ?? "it reports no modes")" }
        return "cannot deliver \(asked); it offers \(offered.map(\.description).joined(separator: ", "))"
    }

    public var description: String { "camera \(path) \(problem) (`swiftcam devices` lists every mode)." }

    /// What `path` cannot deliver (`asked`), the modes it offers instead, and a note when it offers none.
    public init(path: String, asked: String, offered: [CameraMode], note: String?) {
        (self.path, self.asked, self.offered, self.note) = (path, asked, offered, note)
    }
}

/// Picks the camera mode that serves a config, like AVFoundation's session picking an `activeFormat` for a preset.
///
/// The asked rate comes first, then the smallest size at least as large as asked (the same shape preferred,
/// so less is cropped), raw when a raw mode reaches both (decoding JPEG costs more than scaling), else MJPEG.
/// With nothing asked, the camera's best mode for live use: the largest reaching 25 fps (raw on a tie).
public enum ModeChooser {
    /// The rate below which a mode is not smooth enough for a live picture.
    public static let liveRate = 25.0

    /// Raw fourccs v4l2src delivers as `video/x-raw`, with GStreamer's format names.
    public static let rawFormats: [String: String] = [
        "YUYV": "YUY2", "UYVY": "UYVY", "YVYU": "YVYU", "NV12": "NV12", "NV21": "NV21", "YU12": "I420",
        "YV12": "YV12", "NV16": "NV16", "GREY": "GRAY8", "RGB3": "RGB", "BGR3": "BGR", "XR24": "BGRx",
        "AR24": "BGRA", "RX24": "xBGR", "XB24": "RGBx", "AB24": "RGBA", "BA24": "ARGB", "RGBP": "RGB16"
    ]
    /// Compressed fourccs v4l2src delivers as `image/jpeg`.
    public static let jpegFormats: Set<String> = ["MJPG", "JPEG"]

    /// The camera fourcc a config's `format` names: a fourcc (`YUYV`, `MJPG`) or a GStreamer name (`YUY2`, `I420`).
    public static func fourcc(named name: String) -> String? {
        let upper = name.uppercased()
        if rawFormats[upper] != nil || jpegFormats.contains(upper) { return upper }
        return rawFormats.first { $0.value.uppercased() == upper }?.key
    }

    /// Every mode of `formats` SwiftCam can use (raw formats v4l2src maps, and MJPEG), one per size and rate.
    /// Stepwise sizes give their largest size and, when a request names a size inside the range, that size too.
    public static func modes(of formats: [PixelFormatDescription], near request: ModeRequest = ModeRequest()) -> [CameraMode] {
        var modes: [CameraMode] = []
        for format in formats where !format.emulated && isUsable(format.fourcc) {
            for offer in format.sizes {
                for (width, height) in sizes(of: offer.size, near: request) {
                    for interval in intervals(of: offer.rates, near: request.framesPerSecond) {
                        modes.append(
                            CameraMode(
                                fourcc: format.fourcc, compressed: jpegFormats.contains(format.fourcc),
                                width: width, height: height, interval: interval))
                    }
                }
            }
        }
        return Array(Set(modes)).sorted(by: Self.listOrder)
    }

    /// The mode for `request` among `formats` of the camera at `path`.
    public static func choose(
        _ request: ModeRequest, from formats: [PixelFormatDescription],
        path: String
    ) throws(ModeChoiceError) -> ModeChoice {
        var all = modes(of: formats, near: request)
        guard !all.isEmpty else {
            let names = formats.map(\.fourcc)
            let note =
                names.isEmpty
                ? "it reports no formats"
                : "it offers only \(names.joined(separator: ", ")), which SwiftCam cannot decode"
            throw ModeChoiceError(path: path, asked: describe(request), offered: [], note: note)
        }
        if let wanted = request.fourcc {
            let matching = all.filter { $0.fourcc == wanted }
            guard !matching.isEmpty else {
                let formats = Set(all.map(\.fourcc)).sorted().joined(separator: ", ")
                throw ModeChoiceError(path: path, asked: "format \(wanted)", offered: [], note: "it offers \(formats)")
            }
            all = matching
        }
        let bigEnough = all.filter { reaches($0, width: request.width, height: request.height) }
        let candidates: [CameraMode]
        if let rate = request.framesPerSecond {
            candidates = bigEnough.filter { reaches($0, rate: rate) }
        } else {
            // Nothing asked of the rate: live-smooth modes if any reach the size, else the fastest that do.
            let smooth = bigEnough.filter { reaches($0, rate: liveRate) }
            let fastest = bigEnough.map(\.framesPerSecond).max() ?? 0
            candidates = smooth.isEmpty ? bigEnough.filter { $0.framesPerSecond == fastest } : smooth
        }
        guard !candidates.isEmpty else {
            throw ModeChoiceError(path: path, asked: describe(request), offered: nearest(all, to: request), note: nil)
        }
        // With a size asked, raw wins whenever a raw mode reaches it; with none, the largest wins and raw only breaks ties.
        let raw = candidates.filter { !$0.compressed }
        let sizeAsked = request.width != nil || request.height != nil
        let pool = raw.isEmpty || !sizeAsked ? candidates : raw
        let best = pool.min { better($0, than: $1, for: request) }!
        return ModeChoice(mode: best, reason: best.compressed ? rawShortfall(of: all, against: best, request: request) : nil)
    }

    // MARK: - Ordering

    /// True when `a` serves `request` better than `b` (both reach it): the smallest size when one is asked,
    /// else the largest; the asked shape first; the rate nearest the asked one (or 30 for live use) from above.
    static func better(_ a: CameraMode, than b: CameraMode, for request: ModeRequest) -> Bool {
        let sizeAsked = request.width != nil || request.height != nil
        if sizeAsked {
            let shapeA = sameShape(a, request), shapeB = sameShape(b, request)
            if shapeA != shapeB { return shapeA }
            if a.area != b.area { return a.area < b.area }
        } else if a.area != b.area {
            return a.area > b.area
        } else if a.compressed != b.compressed {
            return !a.compressed
        }
        let target = request.framesPerSecond ?? 30
        let distanceA = rateDistance(a.framesPerSecond, target), distanceB = rateDistance(b.framesPerSecond, target)
        if distanceA != distanceB { return distanceA < distanceB }
        return listOrder(a, b)
    }

    /// How far a rate is from the target: reaching it exactly is best, above it next, below it last.
    private static func rateDistance(_ rate: Double, _ target: Double) -> Double {
        rate >= target * rateTolerance ? abs(rate - target) : 1_000_000 + target - rate
    }

    /// NTSC rates (29.97) count as the round rate they stand for.
    private static let rateTolerance = 0.995

    /// The order `swiftcam devices` lists modes in: format, then largest first, then fastest first.
    static func listOrder(_ a: CameraMode, _ b: CameraMode) -> Bool {
        if a.fourcc != b.fourcc { return formatRank(a.fourcc) < formatRank(b.fourcc) }
        if a.area != b.area { return a.area > b.area }
        if a.width != b.width { return a.width > b.width }
        return a.framesPerSecond > b.framesPerSecond
    }

    /// Raw formats before compressed ones; among raw, the ones swiftfilter works on without conversion first.
    private static func formatRank(_ fourcc: String) -> Int {
        let order = ["NV12", "YU12", "YUYV", "UYVY", "XR24", "AR24", "XB24", "AB24"]
        if let index = order.firstIndex(of: fourcc) { return index }
        return jpegFormats.contains(fourcc) ? 200 : 100
    }

    private static func sameShape(_ mode: CameraMode, _ request: ModeRequest) -> Bool {
        guard let width = request.width, let height = request.height, width > 0, height > 0 else { return true }
        return abs(Double(mode.width) / Double(mode.height) - Double(width) / Double(height)) < 0.01
    }

    static func reaches(_ mode: CameraMode, width: Int?, height: Int?) -> Bool {
        mode.width >= (width ?? 0) && mode.height >= (height ?? 0)
    }

    static func reaches(_ mode: CameraMode, rate: Double) -> Bool {
        mode.framesPerSecond >= rate * rateTolerance
    }

    // MARK: - Explaining

    /// Why no raw mode served: the best raw rate at the chosen size, or that no raw mode is that large.
    private static func rawShortfall(of all: [CameraMode], against chosen: CameraMode, request: ModeRequest) -> String? {
        let raw = all.filter { !$0.compressed }
        guard !raw.isEmpty else { return nil }
        let atSize = raw.filter { $0.width >= chosen.width && $0.height >= chosen.height }
        let size = "\(chosen.width)x\(chosen.height)"
        guard let fastest = atSize.max(by: { $0.framesPerSecond < $1.framesPerSecond }) else {
            let largest = raw.max { $0.area < $1.area }!
            return "raw \(largest.fourcc) reaches only \(largest.width)x\(largest.height) here"
        }
        return "raw \(fastest.fourcc) reaches only \(fastest.interval) fps at \(size) here"
    }

    /// The modes worth naming when a request cannot be served: per format, the largest that reaches the asked rate
    /// and the fastest that reaches the asked size (the largest when neither was asked); fastest first, at most four.
    private static func nearest(_ modes: [CameraMode], to request: ModeRequest) -> [CameraMode] {
        var picked: [CameraMode] = []
        func add(_ mode: CameraMode?) {
            if let mode, !picked.contains(mode) { picked.append(mode) }
        }
        // Orders for `max(by:)`: by size then rate, and by rate then size.
        let largestFirst: (CameraMode, CameraMode) -> Bool = { a, b in
            a.area != b.area ? a.area < b.area : a.framesPerSecond < b.framesPerSecond
        }
        let fastestFirst: (CameraMode, CameraMode) -> Bool = { a, b in
            a.framesPerSecond != b.framesPerSecond ? a.framesPerSecond < b.framesPerSecond : a.area < b.area
        }
        let byFormat = Dictionary(grouping: modes, by: \.fourcc)
        let formats = byFormat.keys.sorted { formatRank($0) < formatRank($1) }
        for fourcc in formats {
            let modes = byFormat[fourcc] ?? []
            let sizeAsked = request.width != nil || request.height != nil
            if let rate = request.framesPerSecond {
                add(modes.filter { reaches($0, rate: rate) }.max(by: largestFirst))
            }
            if sizeAsked {
                add(modes.filter { reaches($0, width: request.width, height: request.height) }.max(by: fastestFirst))
            }
            if request.framesPerSecond == nil && !sizeAsked {
                add(modes.max(by: largestFirst))
            }
        }
        if picked.isEmpty {
            for fourcc in formats { add(byFormat[fourcc]?.max(by: largestFirst)) }
        }
        return Array(
            picked.sorted { $0.framesPerSecond != $1.framesPerSecond ? $0.framesPerSecond > $1.framesPerSecond : listOrder($0, $1) }.prefix(
                4))
    }

    /// `1920x1080 at 60 fps`, `60 fps`, `1920x1080`.
    static func describe(_ request: ModeRequest) -> String {
        var parts: [String] = []
        if request.width != nil || request.height != nil {
            parts.append("\(request.width.map(String.init) ?? "any")x\(request.height.map(String.init) ?? "any")")
        }
        if let rate = request.framesPerSecond {
            parts.append("\(FrameInterval(framesPerSecond: rate)) fps")
        }
        if let fourcc = request.fourcc { parts.append("as \(fourcc)") }
        return parts.isEmpty ? "any mode" : parts.joined(separator: " at ")
    }

    // MARK: - Expanding the driver's lists

    private static func isUsable(_ fourcc: String) -> Bool {
        rawFormats[fourcc] != nil || jpegFormats.contains(fourcc)
    }

    /// A discrete size, or for a stepwise range its largest size and the asked size rounded up onto the grid.
    private static func sizes(of size: FrameSize, near request: ModeRequest) -> [(Int, Int)] {
        switch size {
        case let .discrete(width, height):
            return [(Int(width), Int(height))]
        case let .stepwise(minW, maxW, stepW, minH, maxH, stepH):
            var result = [(Int(maxW), Int(maxH))]
            if let width = request.width ?? request.height.map({ _ in Int(maxW) }),
                let height = request.height ?? request.width.map({ _ in Int(maxH) }),
                let w = onGrid(width, min: minW, max: maxW, step: stepW),
                let h = onGrid(height, min: minH, max: maxH, step: stepH),
                (w, h) != (Int(maxW), Int(maxH))
            {
                result.append((w, h))
            }
            return result
        }
    }

    /// The smallest grid value at least `value`, or nil when it is past `max`.
    private static func onGrid(_ value: Int, min: UInt32, max: UInt32, step: UInt32) -> Int? {
        let low = Int(min), high = Int(max), step = Swift.max(1, Int(step))
        guard value <= high else { return nil }
        guard value > low else { return low }
        let steps = (value - low + step - 1) / step
        let result = low + steps * step
        return result <= high ? result : nil
    }

    /// Discrete intervals as they are; a stepwise range as its fastest rate and, inside it, the asked one.
    private static func intervals(of rates: FrameRates, near asked: Double?) -> [FrameInterval] {
        switch rates {
        case let .discrete(list):
            return list.filter { $0.numerator > 0 && $0.denominator > 0 }
        case let .stepwise(fastest, slowest, _):
            guard fastest.numerator > 0, fastest.denominator > 0 else { return [] }
            var result = [fastest]
            let target = asked ?? 30
            if target < fastest.framesPerSecond, target >= slowest.framesPerSecond {
                result.append(FrameInterval(framesPerSecond: target))
            }
            return result
        }
    }
}

extension FrameInterval {
    /// The interval of a rate: whole rates as `1/N`, others to a thousandth (`1000/29970`).
    public init(framesPerSecond rate: Double) {
        if rate.isFinite, rate >= 1, rate <= 1_000_000, rate == rate.rounded() {
            self.init(numerator: 1, denominator: UInt32(rate))
        } else if rate.isFinite, rate > 0, rate <= 1_000_000 {
            self.init(numerator: 1000, denominator: UInt32((rate * 1000).rounded()))
        } else {
            self.init(numerator: 0, denominator: 1)
        }
    }
}
