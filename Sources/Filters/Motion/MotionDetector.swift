/// A point of a zone, in picture fractions: (0, 0) is the top left corner, (1, 1) the bottom right.
public struct MotionPoint: Sendable, Equatable {
    /// Across, 0 (left) to 1 (right).
    public var x: Double
    /// Down, 0 (top) to 1 (bottom).
    public var y: Double

    /// The point at `x` across and `y` down.
    public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
}

/// A polygon of the picture where motion counts (`include`) or never counts (`exclude`).
public struct MotionZone: Sendable, Equatable {
    /// Whether the zone is watched or masked.
    public enum Mode: String, Sendable, CaseIterable {
        /// Motion inside counts (when a config has include zones, motion elsewhere does not).
        case include
        /// Motion inside never counts.
        case exclude
    }

    /// Watched or masked.
    public var mode: Mode
    /// At least three corners, in picture fractions.
    public var points: [MotionPoint]

    /// A zone of `mode` with the corners `points`.
    public init(_ mode: Mode, _ points: [MotionPoint]) { (self.mode, self.points) = (mode, points) }

    /// Even-odd rule: whether `(x, y)` lies inside the polygon.
    func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var previous = points.count - 1
        for current in points.indices {
            let a = points[current], b = points[previous]
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            previous = current
        }
        return inside
    }
}

/// A box in picture fractions (x, y of the top left corner, width, height).
public struct MotionBox: Sendable, Equatable {
    /// The left and top edges, 0...1.
    public var x, y: Double
    /// The width and height, fractions of the picture's.
    public var width, height: Double

    /// The box with its top left corner at (`x`, `y`), `width` across and `height` down.
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The smallest box holding both.
    public func union(_ other: MotionBox) -> MotionBox {
        let left = min(x, other.x), top = min(y, other.y)
        return MotionBox(
            x: left, y: top, width: max(x + width, other.x + other.width) - left,
            height: max(y + height, other.y + other.height) - top)
    }
}

/// What the motion detector is told to look for.
public struct MotionSettings: Sendable, Equatable {
    /// How far (0–255 luma steps) a cell must differ from the background to count as changed: above the sensor's noise.
    public var threshold: Int = 20
    /// The share (0–1) of the watched picture that must change for motion.
    public var minArea: Double = 0.01
    /// Seconds without motion before the event ends, so a short pause does not split it.
    public var cooldown: Double = 2
    /// How fast the background follows the scene, per analysed frame (0–1): light that drifts is learned, a passer-by is not.
    public var learningRate: Double = 0.05
    /// The side of a grid cell in pixels (at least 4): the luma is compared at one cell per `cellSize` × `cellSize` pixels.
    public var cellSize: Int = 8
    /// Watched and masked areas; with no `include` zone the whole picture is watched.
    public var zones: [MotionZone] = []

    /// The defaults: threshold 20, 1 % of the picture, 2 s cooldown, learning rate 0.05, 8-pixel cells, no zones.
    public init() {}
}

/// Where the motion detector's state moved with a frame.
public enum MotionChange: Sendable, Equatable {
    /// Motion began: the changed share of the watched picture and the box around the changed cells.
    case start(area: Double, box: MotionBox)
    /// Motion ended (`cooldown` seconds after the last changed frame): the largest share seen and the box around all of it.
    case end(area: Double, box: MotionBox)
}

/// Motion on a luma plane: a grid of small cell means (two rows of four pixels at the centre of each cell) compared
/// with a running background. A cell changes when it differs by more than `threshold`; the frame has motion when the
/// changed cells cover `minArea` of the watched cells. Reading 8 bytes of every `cellSize`² costs far less than a copy
/// of the plane, so it keeps up with the camera. Not thread-safe: one detector per analyser queue.
public struct MotionDetector: Sendable {
    /// What it was made with.
    public let settings: MotionSettings
    private var columns = 0
    private var rows = 0
    /// Background means, one per cell (luma × 16, so slow learning still moves it).
    private var background: [Int32] = []
    /// 1 where the cell is watched, 0 where masked.
    private var watched: [UInt8] = []
    private var watchedCount = 0
    private var active = false
    private var lastMotion: UInt64 = 0
    private var peakArea = 0.0
    private var eventBox: MotionBox?
    private let learningShift: Int32

    /// The last frame's changed share of the watched picture (0 before the second frame).
    public private(set) var lastArea = 0.0
    /// The last frame's box around changed cells, nil when none changed.
    public private(set) var lastBox: MotionBox?

    /// A detector with no background yet: the first frame it sees becomes the background.
    public init(settings: MotionSettings) {
        self.settings = settings
        // The learning rate as a power of two (an add and a shift per cell): 0.05 → 1/16.
        let rate = min(max(settings.learningRate, 1.0 / 1024), 1)
        var shift: Int32 = 0
        while shift < 10, 1.0 / Double(1 << (shift + 1)) >= rate * 0.75 { shift += 1 }
        learningShift = shift
    }

    /// Whether an event is under way.
    public var isActive: Bool { active }

    /// Compares one frame's luma (`width` × `height`, rows `stride` bytes apart) at `time` (nanoseconds, the frame's
    /// timestamp) with the background, then learns it; returns the event edge this frame makes, if any.
    public mutating func process(luma: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int, time: UInt64) -> MotionChange? {
        let cell = max(4, settings.cellSize)  // the four samples of a row sit at cell / 2 - 2 … cell / 2 + 1
        guard width >= cell, height >= cell, stride >= width, luma.count >= stride * (height - 1) + width else { return nil }
        let columns = width / cell, rows = height / cell
        let first = columns != self.columns || rows != self.rows
        if first { reset(columns: columns, rows: rows) }
        let threshold = Int32(max(0, settings.threshold)) * 16
        let shift = learningShift
        var changed = 0, minX = Int.max, maxX = -1, minY = Int.max, maxY = -1
        guard let base = luma.baseAddress else { return nil }
        background.withUnsafeMutableBufferPointer { background in
            watched.withUnsafeBufferPointer { watched in
                guard let model = background.baseAddress, let mask = watched.baseAddress else { return }
                for row in 0..<rows {
                    // Two rows of four pixels at the centre of each cell: eight samples average the sensor's noise out.
                    let top = base + (row * cell + cell / 2 - 1) * stride + cell / 2 - 2
                    let bottom = top + stride
                    let cells = model + row * columns, watchedCells = mask + row * columns
                    var changedInRow = 0, rowMin = Int.max, rowMax = -1
                    for column in 0..<columns {
                        let offset = column &* cell
                        let upper = Int32(top[offset]) &+ Int32(top[offset &+ 1]) &+ Int32(top[offset &+ 2]) &+ Int32(top[offset &+ 3])
                        let lower =
                            Int32(bottom[offset]) &+ Int32(bottom[offset &+ 1]) &+ Int32(bottom[offset &+ 2]) &+ Int32(bottom[offset &+ 3])
                        let value = (upper &+ lower) &<< 1  // luma × 16
                        if first {
                            cells[column] = value
                            continue
                        }
                        let difference = value &- cells[column]
                        cells[column] = cells[column] &+ (difference &>> shift)
                        if watchedCells[column] != 0, difference > threshold || difference < -threshold {
                            changedInRow &+= 1
                            rowMin = min(rowMin, column)
                            rowMax = column
                        }
                    }
                    if changedInRow > 0 {
                        changed += changedInRow
                        minX = min(minX, rowMin)
                        maxX = max(maxX, rowMax)
                        minY = min(minY, row)
                        maxY = row
                    }
                }
            }
        }
        if first { return nil }
        lastArea = watchedCount > 0 ? Double(changed) / Double(watchedCount) : 0
        lastBox =
            changed > 0
            ? MotionBox(
                x: Double(minX) / Double(columns), y: Double(minY) / Double(rows),
                width: Double(maxX - minX + 1) / Double(columns),
                height: Double(maxY - minY + 1) / Double(rows)) : nil
        return advance(time: time)
    }

    /// The same over a plane held in an array.
    public mutating func process(luma: [UInt8], width: Int, height: Int, stride: Int, time: UInt64) -> MotionChange? {
        luma.withUnsafeBufferPointer { process(luma: $0, width: width, height: height, stride: stride, time: time) }
    }

    private mutating func advance(time: UInt64) -> MotionChange? {
        if lastArea >= settings.minArea, lastArea > 0, let box = lastBox {
            lastMotion = time
            peakArea = max(peakArea, lastArea)
            eventBox = eventBox.map { $0.union(box) } ?? box
            guard !active else { return nil }
            active = true
            return .start(area: lastArea, box: box)
        }
        let cooldown = UInt64(min(max(settings.cooldown, 0), 1e9) * 1e9)
        guard active, time >= lastMotion, time - lastMotion >= cooldown else { return nil }
        let change = MotionChange.end(area: peakArea, box: eventBox ?? MotionBox(x: 0, y: 0, width: 0, height: 0))
        active = false
        peakArea = 0
        eventBox = nil
        return change
    }

    private mutating func reset(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        background = Array(repeating: 0, count: columns * rows)
        watched = Array(repeating: 1, count: columns * rows)
        let includes = settings.zones.filter { $0.mode == .include }
        let excludes = settings.zones.filter { $0.mode == .exclude }
        for row in 0..<rows {
            for column in 0..<columns {
                let x = (Double(column) + 0.5) / Double(columns), y = (Double(row) + 0.5) / Double(rows)
                var isWatched = includes.isEmpty || includes.contains { $0.contains(x: x, y: y) }
                if excludes.contains(where: { $0.contains(x: x, y: y) }) { isWatched = false }
                watched[row * columns + column] = isWatched ? 1 : 0
            }
        }
        watchedCount = watched.reduce(0) { $0 + Int($1) }
        active = false
        peakArea = 0
        eventBox = nil
    }
}
