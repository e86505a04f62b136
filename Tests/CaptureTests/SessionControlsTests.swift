import Config
import Filters
import Foundation
import GStreamer
import Testing

@testable import Camera
@testable import Capture

@Suite("Session controls without a camera")
struct SessionControlsTests {
    @Test func stagesComposeInOnePlaceBeforeTheUsersChain() throws {
        var stages = SoftwareStages()
        #expect(stages.chain(user: FilterChain([])).description == "")
        #expect(stages.chain(user: FilterChain { Sepia() }).description == "sepia")
        stages.mirror = true
        stages.zoom = 2
        stages.exposureEV = 0.5
        stages.meteringEV = 1
        stages.kelvin = 4000
        stages.brightness = 0.25
        stages.contrast = 1
        let text = stages.chain(user: FilterChain { Sepia(intensity: 0.8) }).description
        let names = text.split(separator: "|").map {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
        }
        #expect(names == ["mirror", "zoom", "exposure", "temperature", "colorcontrols", "sepia"])
        #expect(text.contains("ev=1.5") && text.contains("contrast=4"))
        #expect(SoftwareStages.gain(-1) == 0 && SoftwareStages.gain(0) == 1 && SoftwareStages.gain(1) == 4)
    }

    @Test func lumaMeterReadsPlanarPackedAndRGBWithPaddedRows() {
        let width = 40, height = 24, stride = 48
        var planar = [UInt8](repeating: 10, count: stride * height)
        var packed = [UInt8](repeating: 128, count: stride * 2 * height)
        var rgb = [UInt8](repeating: 0, count: stride * 4 * height)
        for y in 0..<height {
            for x in 0..<width {
                planar[y * stride + x] = 100
                packed[y * stride * 2 + x * 2] = 100
                rgb[y * stride * 4 + x * 4 + 1] = 200  // green only: luma 0.587 × 200
            }
        }
        let planarMean = planar.withUnsafeBytes {
            LumaMeter.mean(
                layout: .planar, plane: $0.baseAddress!, stride: stride, width: width, height: height, rowBytes: width, x: 0.5, y: 0.5)
        }
        let packedMean = packed.withUnsafeBytes {
            LumaMeter.mean(
                layout: .packed422(offset: 0), plane: $0.baseAddress!, stride: stride * 2, width: width, height: height,
                rowBytes: width * 2, x: 1, y: 1)
        }
        let rgbMean = rgb.withUnsafeBytes {
            LumaMeter.mean(
                layout: .rgb(bytes: 4, r: 0, g: 1, b: 2), plane: $0.baseAddress!, stride: stride * 4, width: width,
                height: height, rowBytes: width * 4, x: 0, y: 0)
        }
        #expect(planarMean == 100 && packedMean == 100)
        #expect(abs((rgbMean ?? 0) - 117.4) < 0.01)
        let region = LumaMeter.region(x: 1, y: 1, width: width, height: height)
        #expect(region.left + region.side == width && region.top + region.side == height && region.side == 8)
        #expect(LumaMeter.Layout(format: "NV12") == .planar && LumaMeter.Layout(format: "UYVY") == .packed422(offset: 1))
        #expect(LumaMeter.Layout(format: "v210") == nil)
    }

    @Test func recordingPartsAreNumberedAfterTheFirst() {
        #expect(
            SessionRecordings.nextPart(after: "/nonexistent/rec/a-20250101-120000.mkv") == "/nonexistent/rec/a-20250101-120000-part2.mkv")
        #expect(SessionRecordings.nextPart(after: "/nonexistent/rec/a-part2.mkv") == "/nonexistent/rec/a-part3.mkv")
    }

    @Test func aTestPatternFallsBackToSoftwareOrSaysNotSupported() throws {
        let config = try JSONDecoder().decode(
            PipelineConfig.self,
            from: Data(
                """
                { "sources": [{ "kind": "test", "pattern": "ball" }], "caps": { "width": 160, "height": 120, "framerate": "30/1" },
                  "preview": "none", "filter": "sepia" }
                """.utf8))
        let session = CaptureSession(name: "controls", config: config)
        try session.start()
        defer { session.stop() }
        let interpreter = CommandInterpreter(session: session) {}
        func reply(_ line: String) -> String { interpreter.execute(line).description }
        #expect(reply("zoom 2") == "ok zoom 2.0 (digital)")
        #expect(reply("zoom 99") == "ok zoom 16.0 (digital) (clamped from 99)")
        #expect(reply("zoom 0.2") == "ok zoom 1.0 (digital) (clamped from 0.2)")
        #expect(reply("torch on") == "error torch is not supported by this source (test pattern)")
        #expect(reply("focus 0.5 0.5") == "error focus is not supported by this source (test pattern)")
        #expect(reply("exposure ev=1") == "ok exposure ev=1.0 (digital)")
        #expect(reply("wb 4000") == "ok wb 4000K (digital)")
        // Outside the one range (the temperature filter's, which the usage names) the reply says what runs.
        #expect(reply("wb 1000") == "ok wb 2000K (digital) (clamped from 1000)")
        #expect(session.stats.chain.contains("temperature kelvin=2000"))
        #expect(reply("wb 15000") == "ok wb 12000K (digital) (clamped from 15000)")
        #expect(reply("wb 4000") == "ok wb 4000K (digital)")
        #expect(reply("brightness 0.25") == "ok brightness 0.25 (digital)")
        // One rule for every control: a number out of range is clamped and said.
        #expect(reply("brightness 40") == "ok brightness 1.0 (digital) (clamped from 40)")
        #expect(reply("brightness 1e308") == "ok brightness 1.0 (digital) (clamped from 1e+308)")
        #expect(reply("zoom 0") == "ok zoom 1.0 (digital) (clamped from 0)")
        #expect(reply("hue 0.1").hasPrefix("error hue is not supported"))
        #expect(reply("mirror on") == "ok mirror on (digital)")
        #expect(reply("exposure 0.5 0.5") == "ok exposure 0.5,0.5 (software spot metering with the exposure filter)")
        #expect(reply("exposure 2 0.5") == "ok exposure 1.0,0.5 (software spot metering with the exposure filter) (clamped from 2 0.5)")
        #expect(reply("wb hot").hasPrefix("error usage: wb"))
        let chain = session.stats.chain
        #expect(chain.hasPrefix("mirror | exposure ev=1") && chain.contains("temperature kelvin=4000") && chain.hasSuffix("| sepia"))
        // The reply and `userChain` are the user's chain; the stages run before it and are named after it.
        let answer = reply("filter invert")
        #expect(answer.hasPrefix("ok filter \"invert\" (after mirror | exposure ev=1"), "\(answer)")
        #expect(session.userChain == "invert")
        #expect(session.stats.chain.hasPrefix("mirror | exposure") && session.stats.chain.hasSuffix("| invert"))
        #expect(!session.hasTorch)
    }
}
