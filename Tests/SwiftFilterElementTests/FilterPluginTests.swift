import Analysis
import Filters
import Foundation
import SwiftFilterElement
import Testing

/// The example plugin's file, from the environment.
private let myFiltersPlugin = ProcessInfo.processInfo.environment["SWIFTCAM_MYFILTERS_PLUGIN"].flatMap { $0.isEmpty ? nil : $0 }

/// The example plugin (Examples/MyFilters, built by scripts/myfilters-check.sh, which runs this suite with
/// SWIFTCAM_MYFILTERS_PLUGIN set to its libgstmyfilters.so) loaded through the C table as the host loads it.
@Suite("filter plugins", .enabled(if: myFiltersPlugin != nil, "SWIFTCAM_MYFILTERS_PLUGIN names no plugin file"))
struct FilterPluginTests {
    static let plugin = myFiltersPlugin

    init() throws {
        try FilterPlugins.load(path: #require(Self.plugin))
    }

    @Test func registersItsFiltersOnce() throws {
        #expect(try FilterPlugins.load(path: #require(Self.plugin)) == ["duotone", "emboss"])
        let names = FilterCatalog.all.map(\.name)
        #expect(names.filter { $0 == "duotone" }.count == 1)
        let duotone = try #require(FilterCatalog.info(named: "duotone"))
        #expect(duotone.parameters.map(\.key) == ["dark", "light", "intensity"])
        #expect(duotone.parameters[0].kind == .number(0...360) && duotone.parameters[0].unit == "°")
        #expect(FilterCatalog.info(named: "emboss")?.parameters.map(\.key) == ["strength"])
    }

    /// The plugin's analyser, registered as the host loads the plugin: its options declared through the C table and
    /// checked like a built-in's, its frames and events crossing the table. The mean of the visible bytes (never the
    /// rows' padding) crossing the level by more than the hysteresis makes one event each way.
    @Test func brightnessAnalyserCrossesItsLevelWithHysteresis() throws {
        let kind = try #require(AnalyzerRegistry.kind(named: "brightness"))
        #expect(kind.options.map(\.name) == ["level", "hysteresis"])
        do {
            _ = try AnalyzerRegistry.make("brightness", options: AnalyzerOptions(["level": .number(300)]))
            Issue.record("level 300 was accepted")
        } catch {
            #expect(error.key == "level" && error.reason.contains("outside 0…255"), "\(error)")
        }
        let analyzer = try AnalyzerRegistry.make("brightness", options: AnalyzerOptions(["level": .number(100), "hysteresis": .number(10)]))
        #expect(analyzer.name == "brightness")
        // 7 × 3 visible bytes of `mean`, rows 9 apart whose two padding bytes are 255: counted, they would lift the
        // mean of 105 past 110.
        func frame(_ mean: UInt8, _ index: Int) -> AnalysisFrame {
            var bytes = [UInt8](repeating: 255, count: 9 * 3)
            for row in 0..<3 { for x in 0..<7 { bytes[row * 9 + x] = mean } }
            return AnalysisFrame(
                time: UInt64(index) * 1000, index: index,
                luma: LumaPlane(width: 7, height: 3, stride: 9, isFullRange: false, bytes: bytes))
        }
        let means: [UInt8] = [50, 105, 115, 120, 95, 85, 111]
        let events = means.enumerated().flatMap { analyzer.analyze(frame($1, $0)) }
        #expect(events.map(\.name) == ["brightness start", "brightness end", "brightness start"])
        #expect(events.map(\.time) == [2000, 5000, 6000])
        #expect(events.allSatisfy { $0.area == nil && $0.box == nil })
    }

    @Test func grammarValidatesAndPrintsItsFilters() throws {
        let chain = try FilterChain(parsing: "duotone dark=200 intensity=0.5 | emboss strength=2")
        #expect(chain.description == "duotone dark=200 intensity=0.5 | emboss strength=2")
        #expect(try FilterChain(parsing: chain.description) == chain)
        #expect(throws: FilterSpecError.outOfRange(filter: "duotone", key: "dark", value: "400", position: 14)) {
            try FilterChain(parsing: "duotone dark=400")
        }
        #expect(throws: FilterSpecError.unknownKey(filter: "emboss", key: "depth", position: 8)) {
            try FilterChain(parsing: "emboss depth=2")
        }
    }

    /// The plugin's point filter fuses with built-in point filters into one pass; its frame filter is a pass of its own.
    @Test func pointFilterFusesIntoOnePass() throws {
        #expect(try FilterChain(parsing: "exposure ev=0.5 | duotone | gamma value=1.2 | sepia intensity=0.3").compile().passCount == 1)
        #expect(try FilterChain(parsing: "duotone | emboss").compile().passCount == 2)
        #expect(try FilterChain(parsing: "sepia | blur").compile().passCount == 2)
    }

    @Test func duotoneMapsBlackAndWhiteToItsColours() throws {
        let chain = try FilterChain(parsing: "duotone").compile(threads: 1)
        var pixels: [UInt8] = Array(repeating: 0, count: 8 * 2 * 4)
        for x in 0..<8 { pixels[4 * (8 + x)..<4 * (8 + x) + 3] = [255, 255, 255]; pixels[4 * x + 3] = 7; pixels[4 * (8 + x) + 3] = 9 }
        try pixels.withUnsafeMutableBytes { bytes in
            try chain.process(Frame(format: .rgba, width: 8, height: 2, planes: [Plane(base: bytes.baseAddress!, stride: 32)]))
        }
        // Hue 240 at value 0.35: (0, 0, 89.25); hue 60 half saturated at full value: (255, 255, 127.5); alpha kept.
        // The fused pass is fixed point: each component within one code.
        func near(_ got: ArraySlice<UInt8>, _ want: [Int]) -> Bool { zip(got, want).allSatisfy { abs(Int($0) - $1) <= 1 } }
        #expect(near(pixels[0..<3], [0, 0, 89]) && pixels[3] == 7, "\(pixels[0..<4])")
        #expect(near(pixels[32..<35], [255, 255, 128]) && pixels[35] == 9, "\(pixels[32..<36])")
    }

    /// A vertical step from 0 to 200: flat areas mid grey, the two columns at the step at the relief's top.
    @Test(arguments: [PixelFormat.rgba, .nv12])
    func embossReliefOfAStep(format: PixelFormat) throws {
        let (width, height) = (12, 4)
        let chain = try FilterChain(parsing: "emboss").compile(threads: 1)
        let stride = format.rowBytes(plane: 0, width: width) + 16
        var luma = [UInt8](repeating: 0, count: stride * height)
        var chroma = [UInt8](repeating: 90, count: stride * height)
        for y in 0..<height {
            for x in width / 2..<width {
                if format == .rgba {
                    luma[y * stride + 4 * x..<y * stride + 4 * x + 3] = [200, 200, 200]
                } else {
                    luma[y * stride + x] = 200
                }
            }
            if format == .rgba { for x in 0..<width { luma[y * stride + 4 * x + 3] = 33 } }
        }
        try luma.withUnsafeMutableBytes { l in
            try chroma.withUnsafeMutableBytes { c in
                let planes = [Plane(base: l.baseAddress!, stride: stride), Plane(base: c.baseAddress!, stride: stride)]
                try chain.process(
                    Frame(
                        format: format, width: width, height: height, planes: Array(planes.prefix(format.planeCount)),
                        color: .bt601Full))
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                let expected: UInt8 = x == width / 2 - 1 || x == width / 2 ? 255 : 128
                if format == .rgba {
                    #expect(Array(luma[y * stride + 4 * x..<y * stride + 4 * x + 4]) == [expected, expected, expected, 33], "x \(x) y \(y)")
                } else {
                    #expect(luma[y * stride + x] == expected, "x \(x) y \(y)")
                }
            }
        }
        if format == .nv12 { #expect(chroma[0..<width].allSatisfy { $0 == 128 }) }
    }

    /// A copy whose stamp names another SwiftCam is refused, by file and version, before GStreamer loads it.
    /// A copy of the plugin whose stamp is `stamp` in place of its own, loaded: refused, and the error returned.
    static func loadRestamped(_ stamp: String, as name: String) throws -> FilterPluginError? {
        let original = try Data(contentsOf: URL(fileURLWithPath: #require(Self.plugin)))
        let own = Data("SwiftCam filter plugin ABI 2, SwiftCam \(SwiftFilterElement.version)\0".utf8)
        let range = try #require(original.range(of: own))
        var patched = original
        var replacement = Data("\(stamp)\0".utf8)
        replacement.append(Data(count: max(0, own.count - replacement.count)))
        patched.replaceSubrange(range, with: replacement)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-\(name)-plugin-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("libgst\(name)filters.so").path
        try patched.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: FilterPluginError.self) { try FilterPlugins.load(path: path) }
        #expect(error.map { "\($0)" }?.contains(path) == true)
        return error
    }

    @Test func pluginOfAnotherVersionIsRefused() throws {
        let error = try Self.loadRestamped("SwiftCam filter plugin ABI 2, SwiftCam 9.9.9", as: "old")
        #expect(error?.description.contains("was built against SwiftCam 9.9.9, but this is SwiftCam \(SwiftFilterElement.version)") == true)
        #expect(error?.description.contains("rebuild the plugin against \(SwiftFilterElement.version)") == true)
    }

    /// A plugin of this version with the table before analysers (ABI 1) is refused too, and the message says why
    /// rather than naming the same version twice.
    @Test func pluginWithTheOlderTableIsRefused() throws {
        let error = try Self.loadRestamped("SwiftCam filter plugin ABI 1, SwiftCam \(SwiftFilterElement.version)", as: "abi1")
        let version = SwiftFilterElement.version
        #expect(
            error?.description.contains("was built against SwiftCam \(version) (plugin table 1), but this is SwiftCam \(version)") == true,
            "\(String(describing: error))")
    }
}
