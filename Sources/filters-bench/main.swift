// filters-bench: ms/frame at 1920×1080 for every filter and the 3-filter chain, RGBA and NV12,
// 1 thread and all threads, as ratios to a memcpy of the same frame measured in the same run.
//
// Two regimes: "hot" reuses one source/destination pair (a 1080p RGBA pair is 16 MB and stays in
// a large L3, so memcpy runs at cache speed), "stream" cycles through 8 pairs (> L3), which is what
// a camera pipeline sees: every frame arrives fresh from DMA.
import Filters

#if canImport(Glibc)
import Glibc
#endif

let width = 1920, height = 1080
let clock = ContinuousClock()

/// Owned planes for one frame of `format`.
final class Buffer {
    let frame: Frame
    private let storage: [UnsafeMutableRawPointer]

    init(_ format: PixelFormat, seed: Int) {
        var planes: [Plane] = []
        var storage: [UnsafeMutableRawPointer] = []
        for index in 0..<format.planeCount {
            let stride = format.rowBytes(plane: index, width: width)
            let bytes = stride * format.rows(plane: index, height: height)
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            let bytesPointer = pointer.assumingMemoryBound(to: UInt8.self)
            for i in 0..<bytes { bytesPointer[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761 &+ seed) >> 13) }
            planes.append(Plane(base: pointer, stride: stride))
            storage.append(pointer)
        }
        self.frame = Frame(format: format, width: width, height: height, planes: planes)
        self.storage = storage
    }

    var byteCount: Int {
        (0..<frame.planes.count).reduce(0) { $0 + frame.rowBytes(plane: $1) * frame.rows(plane: $1) }
    }

    deinit { storage.forEach { $0.deallocate() } }
}

/// Milliseconds per call of `body(i)`: the best batch mean over ~0.25 s (batches of 4 calls, at
/// least 3 batches). The best batch, not the mean, because the machine is shared with other jobs.
func measure(_ body: (Int) throws -> Void) rethrows -> Double {
    try body(0)
    var best = Double.infinity
    var batches = 0, call = 1
    let start = clock.now
    while batches < 3 || (clock.now - start < .milliseconds(250) && batches < 50) {
        let batchStart = clock.now
        for _ in 0..<4 {
            try body(call)
            call += 1
        }
        let elapsed = clock.now - batchStart
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds * 1000 / 4)
        batches += 1
    }
    return best
}

func memcpyFrame(_ source: Frame, _ destination: Frame) {
    for index in source.planes.indices {
        destination.planes[index].base.copyMemory(
            from: source.planes[index].base,
            byteCount: source.rowBytes(plane: index) * source.rows(plane: index))
    }
}

/// A warm-toned 17³ cube, built in memory so the bench needs no files.
func warmCube() -> Cube3D? {
    let n = 17
    var table: [Float] = []
    for b in 0..<n {
        for g in 0..<n {
            for r in 0..<n {
                let (rr, gg, bb) = (Float(r) / 16, Float(g) / 16, Float(b) / 16)
                table += [min(1, rr * 1.05 + 0.02), gg, bb * 0.9]
            }
        }
    }
    return Cube3D(size: n, table: table)
}

let chainText = "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"
// One entry per filter, with parameters that do work (defaults of colorcontrols, exposure and
// temperature are the identity, which the engine turns into a copy).
let specs = [
    "sepia", "vignette", "mono", "invert", "colorcontrols contrast=1.2 saturation=0.8", "exposure ev=0.5",
    "temperature kelvin=4000", "gamma value=1.5", "posterize", "threshold", "blur", "sharpen", "edges",
    "pixelate", "zoom", "mirror", "flip"
]
var entries: [(String, FilterChain)] = specs.compactMap { text in (try? FilterChain(parsing: text)).map { (text, $0) } }
if let cube = warmCube() { entries.append(("lut (17³, in memory)", FilterChain([Lut(cube: cube)]))) }
let chain3: FilterChain
do { chain3 = try FilterChain(parsing: chainText) } catch {
    print("bad chain: \(error)")
    exit(1)
}
entries.append((chainText, chain3))
let chain6Text = "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"
if let chain6 = try? FilterChain(parsing: chain6Text) { entries.append((chain6Text, chain6)) }
// `filters-bench NAME…` limits the table to entries whose text starts with one of the names (for profiling).
// `filters-bench --calls N [--format RGBA|NV12] [--threads T] NAME…` runs each selected entry N times on one thread (or T) and
// prints no timings: for `valgrind --tool=callgrind`, whose instruction counts do not depend on the load.
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        usage: filters-bench [NAME…] [--calls N [--format RGBA|NV12] [--threads T]] [--paths [--json FILE]] [--tsv FORMAT CHAIN…]

        Times every filter and the 3- and 6-filter chains at 1920x1080, RGBA and NV12, in ms/frame beside a
        memcpy of the same frame, then frames from memory (stream) and at a camera's 30 fps (paced), all threads
        against one (the paced rows take about 15 s). NAME… keeps the entries whose text starts with a name (only the one whose text it is, if any); --calls N runs each N
        times on one thread (--threads T: T, 0 = all) without timing (for valgrind --tool=callgrind, perf record); --tsv prints '# SIMD path NAME', then
        FORMAT<TAB>CHAIN<TAB>ms for each chain text (for make bench-anchors); --paths alone
        times the main filters (RGBA) on every SIMD path this machine has, with --tsv each chain on every path (a fourth
        column names it); --paths --json FILE also writes that table as JSON (for scripts/bench-doc.py). SWIFTCAM_SIMD=portable, sse2 or avx2 forces that path (avx2 is needed under valgrind). Build with 'swift build -c release' first.
        """)
    exit(0)
}
var fixedCalls: Int?
var onlyFormat: String?
if let index = arguments.firstIndex(of: "--calls"), index + 1 < arguments.count {
    fixedCalls = Int(arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}
var callThreads = 1
if let index = arguments.firstIndex(of: "--threads") {
    guard index + 1 < arguments.count, let threads = Int(arguments[index + 1]), threads >= 0, fixedCalls != nil else {
        _ = "filters-bench: --threads T (0 = all) goes with --calls N\n".withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(2)
    }
    callThreads = threads
    arguments.removeSubrange(index...(index + 1))
}
if let index = arguments.firstIndex(of: "--format"), index + 1 < arguments.count {
    onlyFormat = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
let everyPath = arguments.contains("--paths")
arguments.removeAll { $0 == "--paths" }
var jsonPath: String?
if let index = arguments.firstIndex(of: "--json") {
    guard everyPath, index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
        _ = "filters-bench: --json FILE goes with --paths\n".withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(64)
    }
    jsonPath = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
    // Before the run, not after it: a file that cannot be written costs a moment, not the whole table.
    if let problem = PathsJSON.problemWriting(jsonPath ?? "") {
        _ = "filters-bench: cannot write \(jsonPath ?? ""): \(problem)\n".withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(73)
    }
}
// `filters-bench --tsv FORMAT CHAIN…` times each chain text (or `lut17`, the in-memory cube) on FORMAT,
// one thread, and prints `format<TAB>chain<TAB>ms` lines, memcpy first: for scripts/bench-anchors.py.
if arguments.first == "--tsv", arguments.count >= 2, let format = PixelFormat(gstName: arguments[1]) {
    let s = Buffer(format, seed: 1), d = Buffer(format, seed: 2)
    // `--tsv FORMAT … ` with FILTERS_BENCH_INPUT=FILE: the source frame's packed planes from FILE, so
    // the anchors and SwiftCam see the same content.
    if let path = getenv("FILTERS_BENCH_INPUT").map({ String(cString: $0) }), let file = fopen(path, "rb") {
        for index in s.frame.planes.indices {
            let bytes = s.frame.rowBytes(plane: index)
            for row in 0..<s.frame.rows(plane: index) {
                _ = fread(s.frame.planes[index].base + row * s.frame.planes[index].stride, 1, bytes, file)
            }
        }
        fclose(file)
    }
    print("# SIMD path \(SIMDPath.best)")
    print("\(format.gstName)\tmemcpy\t\(measure { _ in memcpyFrame(s.frame, d.frame) })")
    for text in arguments.dropFirst(2) {
        let chain = text == "lut17" ? warmCube().map { FilterChain([Lut(cube: $0)]) } : try? FilterChain(parsing: text)
        // With --paths, one line per path this machine has (a fourth column names it), the paths taking turns.
        let paths = everyPath ? SIMDPath.available : [SIMDPath.best]
        let times = paths.map { path in
            chain.map { chain in
                let compiled = chain.compile(threads: 1, kernels: KernelSet(path: path))
                return (try? measure { _ in try compiled.process(from: s.frame, to: d.frame) }) ?? .nan
            } ?? .nan
        }
        for (path, ms) in zip(paths, times) { print("\(format.gstName)\t\(text)\t\(ms)" + (everyPath ? "\t\(path)" : "")) }
    }
    exit(0)
}
// `filters-bench --paths`: the main filters on every SIMD path this machine has, RGBA, one thread, ratios in one run.
if everyPath {
    let s = Buffer(.rgba, seed: 1), d = Buffer(.rgba, seed: 2)
    let paths = SIMDPath.available
    let main = [
        ("sepia", "sepia"), ("mono", "mono"), ("colorcontrols", "colorcontrols contrast=1.2 saturation=0.8"), ("vignette", "vignette"),
        ("blur", "blur"), ("sharpen", "sharpen"), ("edges", "edges"), ("mirror", "mirror"), ("zoom", "zoom factor=2"),
        ("posterize", "posterize"), ("chain3", chainText), ("chain6", chain6Text)
    ]
    // Three rounds in turns, the best of each kept: a slow spell of the shared machine lands on every path alike.
    var copy = Double.infinity
    var best: [String: Double] = [:]
    let compiled = main.flatMap { name, text in
        paths.compactMap { path in
            (try? FilterChain(parsing: text)).map { (name, path, $0.compile(threads: 1, kernels: KernelSet(path: path))) }
        }
    }
    for _ in 0..<3 {
        copy = min(copy, measure { _ in memcpyFrame(s.frame, d.frame) })
        for (name, path, chain) in compiled {
            let ms = (try? measure { _ in try chain.process(from: s.frame, to: d.frame) }) ?? .nan
            best["\(name)|\(path)"] = min(best["\(name)|\(path)"] ?? .infinity, ms)
        }
    }
    print("filters-bench --paths: 1920x1080 RGBA, 1 thread, ms/frame (×memcpy of the same frame), per SIMD path; best of 3 rounds in turns")
    print("memcpy: \(format3(copy)) ms")
    print(pad("filter", 16) + paths.map { lpad($0.description, 18) }.joined() + lpad("portable/SSE2", 16))
    for (name, _) in main {
        var line = pad(name, 16)
        for path in paths {
            let ms = best["\(name)|\(path)"] ?? .nan
            line += lpad("\(format3(ms)) (\(ratio2(ms / copy))×)", 18)
        }
        if let portable = best["\(name)|portable"], let sse2 = best["\(name)|SSE2"] {
            line += lpad("\(ratio2(portable / sse2))×", 16)
        }
        print(line)
    }
    if let avx2 = best["chain6|AVX2"], let avx512 = best["chain6|AVX-512"] {
        print("chain6 AVX2 / AVX-512: \(ratio2(avx2 / avx512))×")
    }
    if let jsonPath {
        let text = PathsJSON.text(
            memcpy: copy, paths: paths,
            rows: main.map { name, chain in
                (name, chain, paths.map { best["\(name)|\($0)"] ?? .nan })
            })
        if let problem = PathsJSON.write(text, to: jsonPath) {
            _ = "filters-bench: cannot write \(jsonPath): \(problem)\n".withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(73)
        }
    }
    exit(0)
}
let only = arguments
// A name that is an entry's whole text keeps that entry alone: "sepia" is not also the 3-chain, which starts with it.
let texts = Set(entries.map(\.0))
if !only.isEmpty { entries = entries.filter { e in only.contains { texts.contains($0) ? e.0 == $0 : e.0.hasPrefix($0) } } }
if let calls = fixedCalls {
    for format in [PixelFormat.rgba, .nv12] where onlyFormat == nil || onlyFormat == format.gstName {
        let s = Buffer(format, seed: 1), d = Buffer(format, seed: 2)
        for (name, chain) in entries {
            let compiled = chain.compile(threads: callThreads)
            for _ in 0..<calls { try? compiled.process(from: s.frame, to: d.frame) }
            print("\(format.gstName) \(name): \(calls) calls")
        }
    }
    exit(0)
}

let formats: [PixelFormat] = [.rgba, .nv12]
let hotSources = Dictionary(uniqueKeysWithValues: formats.map { ($0, Buffer($0, seed: 1)) })
let hotDestinations = Dictionary(uniqueKeysWithValues: formats.map { ($0, Buffer($0, seed: 2)) })
let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))

print("filters-bench: 1920x1080, ms/frame (×memcpy of the same frame, same run); source → destination")
print(
    "cores online: \(cores); 'all' = threads 0; SIMD path: \(SIMDPath.best) (of \(SIMDPath.available.map(\.description).joined(separator: ", ")); SWIFTCAM_SIMD=sse2 or avx2 forces that path)"
)
var memcpyHot: [PixelFormat: Double] = [:]
for format in formats {
    let s = hotSources[format]!, d = hotDestinations[format]!
    memcpyHot[format] = measure { _ in memcpyFrame(s.frame, d.frame) }
    print("memcpy \(format.gstName) (\(s.byteCount / 1024) KiB): \(String(format3(memcpyHot[format]!))) ms")
}

func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    var text = String(scaled)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < 3 { text += String(repeating: "0", count: 3 - decimals) }
    }
    return text
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func lpad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

var results: [String: Double] = [:]
print("")
print(pad("filter", 62) + formats.flatMap { f in ["1 thread", "all"].map { lpad("\(f.gstName) \($0)", 20) } }.joined())
for (name, chain) in entries {
    var line = pad(name, 62)
    for format in formats {
        for threads in [1, 0] {
            let compiled = chain.compile(threads: threads)
            let s = hotSources[format]!, d = hotDestinations[format]!
            let ms = (try? measure { _ in try compiled.process(from: s.frame, to: d.frame) }) ?? .nan
            results["\(name)|\(format)|\(threads)"] = ms
            line += lpad("\(format3(ms)) (\(ratio2(ms / memcpyHot[format]!))×)", 20)
        }
    }
    print(line)
}

func ratio2(_ ratio: Double) -> String {
    let scaled = (ratio * 100).rounded() / 100
    return String(scaled)
}

// Streaming regime: 8 distinct source/destination pairs, so every frame comes from DRAM.
print("")
print("stream (8 frame pairs cycled, larger than the last-level cache), 1 thread:")
for format in formats {
    let sources = (0..<8).map { Buffer(format, seed: 10 + $0) }
    let destinations = (0..<8).map { Buffer(format, seed: 20 + $0) }
    let copy = measure { i in memcpyFrame(sources[i % 8].frame, destinations[i % 8].frame) }
    var line = "  \(format.gstName): memcpy \(format3(copy)) ms"
    for (name, text) in [("sepia", "sepia"), ("mirror", "mirror"), ("chain", chainText), ("6-chain", chain6Text)] {
        guard let compiled = try? FilterChain(parsing: text).compile(threads: 1) else { continue }
        let ms = (try? measure { i in try compiled.process(from: sources[i % 8].frame, to: destinations[i % 8].frame) }) ?? .nan
        results["stream|\(name)|\(format)"] = ms
        results["stream|memcpy|\(format)"] = copy
        line += ", \(name) \(format3(ms)) ms (\(ratio2(ms / copy))×)"
    }
    print(line)
}

/// One line per format: each case on one thread and on all, as `time(compiled, sources, destinations)` gives it,
/// over eight frame pairs (seeds from `seed`) that together are larger than the last-level cache.
func threadsLines(seed: Int, _ cases: [(String, String)], _ time: (CompiledChain, [Buffer], [Buffer]) -> Double) {
    for format in formats {
        let sources = (0..<8).map { Buffer(format, seed: seed + $0) }
        let destinations = (0..<8).map { Buffer(format, seed: seed + 10 + $0) }
        var line = "  \(format.gstName):"
        for (name, text) in cases {
            guard let chain = text.isEmpty ? FilterChain([]) : try? FilterChain(parsing: text) else { continue }
            let times = [1, 0].map { time(chain.compile(threads: $0), sources, destinations) }
            line += " \(name) \(format3(times[0]))/\(format3(times[1])) ms (\(ratio2(times[0] / times[1]))×)"
        }
        print(line)
    }
}

// Two threads on frames from memory, as the pipeline sees them: what the row pieces give once the bytes come from DRAM
// (the copy in pieces is the bound for the passes near a memcpy).
print("")
print("stream, all threads vs 1 (same 8 frame pairs):")
threadsLines(
    seed: 10,
    [
        ("copy", ""), ("chain", chainText), ("mirror", "mirror"), ("edges", "edges"), ("pixelate", "pixelate"),
        ("zoom", "zoom"), ("blur", "blur")
    ]
) { compiled, sources, destinations in
    (try? measure { i in try compiled.process(from: sources[i % 8].frame, to: destinations[i % 8].frame) }) ?? .nan
}

// A camera's cadence: one frame every 33 ms, so between frames the pool's worker goes to sleep. The median of
// 30 frames' times (each frame a new pair, as from a camera) on all threads against one: what a second core
// gives a 30 fps pipeline, where the worker must be awake when the frame comes. (The sleep is the camera's
// frame interval, not a wait for an event.)
print("")
print("paced at 30 fps, all threads vs 1 (median of 30 frames):")
threadsLines(seed: 30, [("chain", chainText), ("blur", "blur"), ("zoom", "zoom")]) { compiled, sources, destinations in
    var frames: [Double] = []
    var next = clock.now
    for i in 0..<31 {
        let wait = next - clock.now
        if wait > .zero {
            var interval = timespec(tv_sec: Int(wait.components.seconds), tv_nsec: Int(wait.components.attoseconds / 1_000_000_000))
            nanosleep(&interval, nil)
        }
        next = next + .microseconds(33_333)
        let start = clock.now
        do { try compiled.process(from: sources[i % 8].frame, to: destinations[i % 8].frame) } catch { return .nan }
        let elapsed = clock.now - start
        // The first frame sets the kernels up.
        if i > 0 { frames.append(Double(elapsed.components.attoseconds) * 1e-15 + Double(elapsed.components.seconds) * 1e3) }
    }
    return frames.sorted()[frames.count / 2]
}

// The speed targets the filters are held to.
let chainRGBA = results["\(chainText)|\(PixelFormat.rgba)|1"] ?? .nan
let sepiaRGBA = results["sepia|\(PixelFormat.rgba)|1"] ?? .nan
let sepiaNV12 = results["sepia|\(PixelFormat.nv12)|1"] ?? .nan
let streamChain = (results["stream|chain|\(PixelFormat.rgba)"] ?? .nan) / (results["stream|memcpy|\(PixelFormat.rgba)"] ?? .nan)
print("")
print("targets (1 thread):")
print("  3-filter chain RGBA ≤ 4× memcpy: hot \(ratio2(chainRGBA / memcpyHot[.rgba]!))×, stream \(ratio2(streamChain))×")
print("  chain ≤ 1.5× sepia alone (RGBA): \(ratio2(chainRGBA / sepiaRGBA))×")
print("  NV12 sepia ≤ RGBA sepia: \(format3(sepiaNV12)) ms vs \(format3(sepiaRGBA)) ms")
