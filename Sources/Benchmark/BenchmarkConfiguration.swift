import Filters
import Glibc

/// A frame size the bench runs at.
public struct BenchmarkSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the table calls it, e.g. "1080p".
    public var name: String
    /// Width and height in pixels.
    public var width, height: Int

    /// A size with a name of its own.
    public init(name: String, width: Int, height: Int) {
        (self.name, self.width, self.height) = (name, width, height)
    }

    /// 1920×1080.
    public static let hd1080 = BenchmarkSize(name: "1080p", width: 1920, height: 1080)
    /// 1280×720.
    public static let hd720 = BenchmarkSize(name: "720p", width: 1280, height: 720)

    /// Reads "1080p", "720p", "480p" or "WIDTHxHEIGHT" (each side 16…8192); nil for anything else.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "1080p": self = .hd1080
        case "720p": self = .hd720
        case "480p": self.init(name: "480p", width: 640, height: 480)
        default:
            let sides = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]),
                (16...8192).contains(width), (16...8192).contains(height)
            else { return nil }
            self.init(name: "\(width)x\(height)", width: width, height: height)
        }
    }

    /// "1080p (1920x1080)".
    public var description: String { "\(name) (\(width)x\(height))" }
}

/// What one `swiftcam bench` run measures and how often.
public struct BenchmarkConfiguration: Sendable {
    /// The sizes, each running every case.
    public var sizes: [BenchmarkSize]
    /// Frames timed per repetition.
    public var frames: Int
    /// Repetitions per variant; the table shows their median and spread.
    public var repetitions: Int
    /// Frames pushed and waited for before timing starts (negotiation, pools, thread start-up).
    public var warmUpFrames: Int
    /// Distinct pre-made frames cycled through.
    public var distinctFrames: Int
    /// The rows.
    public var cases: [BenchmarkCase]
    /// Seconds a pipeline may go without delivering a frame before its case is reported failed.
    public var stallTimeout: Double

    /// A configuration; `cases` defaults to the standard rows (`BenchmarkCase.standard`).
    public init(
        sizes: [BenchmarkSize] = [.hd1080, .hd720], frames: Int = 20, repetitions: Int = 15,
        warmUpFrames: Int = 4, distinctFrames: Int = 8, cases: [BenchmarkCase]? = nil, stallTimeout: Double = 60
    ) {
        self.sizes = sizes
        self.frames = max(frames, 1)
        self.repetitions = max(repetitions, 1)
        self.warmUpFrames = max(warmUpFrames, 0)
        self.distinctFrames = max(distinctFrames, 1)
        self.cases = cases ?? BenchmarkCase.standard(cores: BenchmarkMachine.cores)
        self.stallTimeout = stallTimeout
    }

    /// The full run (`swiftcam bench`): 15 repetitions of 20 frames, both sizes. Many short repetitions taken in
    /// turns (see `BenchmarkRunner.run`) put the machine's slow spells on every variant alike; 5 of 60 did not.
    public static let full = BenchmarkConfiguration()

    /// The CI run (`swiftcam bench --quick`): every case at both sizes in well under a minute on two cores.
    public static let quick = BenchmarkConfiguration(frames: 8, repetitions: 3, warmUpFrames: 2, distinctFrames: 8)
}

/// The machine a report was measured on.
public struct BenchmarkMachine: Sendable, Equatable, Codable {
    /// Online cores (`nproc`).
    public var cores: Int
    /// The CPU's model name from /proc/cpuinfo, or "unknown".
    public var cpu: String
    /// The GStreamer runtime, e.g. "GStreamer 1.22.0".
    public var gstreamer: String
    /// The one-minute load average when the run started: above about half the cores, other work shared the CPU
    /// and the numbers (the scaling rows most of all) are noisy.
    public var load: Double
    /// The SIMD path Filters ran on unless a row names another, as Filters prints it ("AVX-512"); nil in a report
    /// written before the field existed.
    public var simdPath: String?
    /// Every SIMD path this machine has, narrowest first ("portable", "SSE2", …); nil in an older report.
    public var availablePaths: [String]?

    /// A description given field by field (tests, other machines).
    public init(
        cores: Int, cpu: String, gstreamer: String, load: Double = 0, simdPath: String? = nil,
        availablePaths: [String]? = nil
    ) {
        self.cores = cores
        self.cpu = cpu
        self.gstreamer = gstreamer
        self.load = load
        self.simdPath = simdPath
        self.availablePaths = availablePaths
    }

    /// The one-minute load average. Calls `getloadavg`.
    public static var loadAverage: Double {
        var loads = [0.0, 0.0, 0.0]
        return getloadavg(&loads, 3) > 0 ? loads[0].rounded(places: 2) : 0
    }

    /// Online cores. Calls `sysconf(_SC_NPROCESSORS_ONLN)`.
    public static var cores: Int { max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1) }

    /// The first "model name" line of /proc/cpuinfo.
    public static var cpuModel: String {
        guard let text = SIMDPath.cpuInfoLine(startingWith: "model name"), let colon = text.firstIndex(of: ":") else { return "unknown" }
        return text[text.index(after: colon)...].trimmingSpaces
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
