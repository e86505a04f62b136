import Foundation
import Testing

@testable import Camera

/// The mode choice against the mode lists real cameras publish (`Fixtures/*.txt`, `v4l2-ctl --list-formats-ext`).
@Suite struct ModeChoiceTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let camera: String
        let request: ModeRequest
        /// The chosen mode as `FOURCC WxH@RATE`, or nil when the request must be refused.
        let expected: String?
        /// Text the reason (or the refusal) must contain.
        let says: String?

        init(_ camera: String, _ request: ModeRequest, _ expected: String?, says: String? = nil) {
            self.camera = camera
            self.request = request
            self.expected = expected
            self.says = says
        }

        var testDescription: String { "\(camera): \(ModeChooser.describe(request)) → \(expected ?? "refused")" }
    }

    static let preview = ModeRequest(width: 640, height: 360, framesPerSecond: 25)
    static let hd30 = ModeRequest(width: 1280, height: 720, framesPerSecond: 30)

    @Test(arguments: [
        // Nothing asked: the largest mode reaching 25 fps; on a UVC webcam that is MJPEG, and the reason says why.
        Case("logitech-c920", ModeRequest(), "MJPG 1920x1080@30", says: "raw YUYV reaches only 5 fps at 1920x1080 here"),
        Case("logitech-c270", ModeRequest(), "MJPG 1280x960@30", says: "raw YUYV reaches only 7.5 fps at 1280x960 here"),
        Case("laptop-720p", ModeRequest(), "MJPG 1280x720@30", says: "raw YUYV reaches only 10 fps at 1280x720 here"),
        Case("usb-endoscope", ModeRequest(), "YUYV 640x480@30"),
        Case("raspberry-pi-camera-v1", ModeRequest(), "NV12 2592x1944@30"),
        // The shipped preview config (640x360 at 25): raw reaches it on every webcam, at the same shape.
        Case("logitech-c920", preview, "YUYV 640x360@30"),
        Case("logitech-c270", preview, "YUYV 640x360@25"),
        Case("laptop-720p", preview, "YUYV 640x360@30"),
        Case("usb-endoscope", preview, "YUYV 640x480@30"),
        Case("raspberry-pi-camera-v1", preview, "NV12 640x360@25"),
        // 720p at 30: raw only at 10 or 7.5 fps, so MJPEG.
        Case("logitech-c920", hd30, "MJPG 1280x720@30", says: "raw YUYV reaches only 10 fps at 1280x720 here"),
        Case("logitech-c270", hd30, "MJPG 1280x720@30", says: "raw YUYV reaches only 7.5 fps at 1280x720 here"),
        Case("laptop-720p", hd30, "MJPG 1280x720@30"),
        Case("raspberry-pi-camera-v1", hd30, "NV12 1280x720@30"),
        // A low rate asked for: raw reaches it.
        Case("logitech-c920", ModeRequest(width: 1280, height: 720, framesPerSecond: 10), "YUYV 1280x720@10"),
        // The smallest size at least as large, the asked shape first (864x480 is not 16:9, 1024x576 is).
        Case("logitech-c920", ModeRequest(width: 800, height: 450, framesPerSecond: 30), "MJPG 1024x576@30"),
        // A stepwise camera gives the asked size rounded up onto its grid.
        Case("raspberry-pi-camera-v1", ModeRequest(width: 641, height: 361, framesPerSecond: 30), "NV12 642x362@30"),
        // A named camera format restricts the choice; without a rate, the fastest at that size.
        Case("logitech-c920", ModeRequest(width: 1920, height: 1080, fourcc: "YUYV"), "YUYV 1920x1080@5"),
        Case("logitech-c920", ModeRequest(width: 640, height: 480, fourcc: "MJPG"), "MJPG 640x480@30"),
        Case("raspberry-pi-camera-v1", ModeRequest(width: 640, height: 480, framesPerSecond: 30, fourcc: "JPEG"), "JPEG 640x480@30"),
        // What a camera cannot do is refused in one sentence naming what it can.
        Case(
            "logitech-c920", ModeRequest(width: 1920, height: 1080, framesPerSecond: 60), nil,
            says: "cannot deliver 1920x1080 at 60 fps; it offers MJPG 1920x1080@30"),
        Case("laptop-720p", ModeRequest(width: 1920, height: 1080), nil, says: "it offers MJPG 1280x720@30, YUYV 1280x720@10"),
        Case("usb-endoscope", hd30, nil, says: "it offers YUYV 640x480@30"),
        Case(
            "usb-endoscope", ModeRequest(fourcc: "MJPG"), nil,
            says: "cannot deliver format MJPG: it offers YUYV (`swiftcam devices` lists every mode)."),
        Case("raspberry-pi-camera-v1", ModeRequest(framesPerSecond: 120), nil, says: "cannot deliver 120 fps")
    ])
    func choosesTheModeThatServes(_ test: Case) throws {
        let formats = try Self.fixture(test.camera)
        do {
            let choice = try ModeChooser.choose(test.request, from: formats, path: "/dev/video0")
            #expect(choice.mode.description == test.expected)
            if let says = test.says { #expect(choice.reason?.contains(says) == true, "reason: \(choice.reason ?? "none")") }
            if !choice.mode.compressed { #expect(choice.reason == nil) }
        } catch {
            #expect(test.expected == nil, "refused: \(error)")
            #expect(error.description.hasPrefix("camera /dev/video0 cannot deliver"))
            if let says = test.says { #expect(error.description.contains(says), "\(error)") }
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aCameraWithOnlyFormatsNobodyDecodesIsRefusedByName() {
        let h264 = PixelFormatDescription(
            fourcc: "H264", code: 0, name: "H.264", compressed: true, emulated: false,
            sizes: [
                FrameSizeRates(
                    size: .discrete(width: 1920, height: 1080),
                    rates: .discrete([FrameInterval(numerator: 1, denominator: 30)]))
            ])
        #expect(throws: ModeChoiceError.self) { try ModeChooser.choose(ModeRequest(), from: [h264], path: "/dev/video4") }
        do {
            _ = try ModeChooser.choose(ModeRequest(), from: [h264], path: "/dev/video4")
        } catch {
            #expect(error.description.contains("it offers only H264, which SwiftCam cannot decode"))
        }
    }

    @Test func modesListEveryUsableSizeAndRateAndSkipEmulatedOnes() throws {
        let c920 = try Self.fixture("logitech-c920")
        let modes = ModeChooser.modes(of: c920)
        // YUYV: 10 sizes × 7 rates + 2 × 6 + 2 × 4 + 3 + 2 + 1 + 2; MJPG: 17 × 7; H.264 is not decoded here.
        #expect(modes.filter { $0.fourcc == "YUYV" }.count == 70 + 12 + 8 + 3 + 2 + 1 + 2)
        #expect(modes.filter { $0.fourcc == "MJPG" }.count == 17 * 7)
        #expect(!modes.contains { $0.fourcc == "H264" })
        #expect(modes.first?.description == "YUYV 2304x1536@2")
        let emulated = c920.map {
            PixelFormatDescription(
                fourcc: $0.fourcc, code: $0.code, name: $0.name, compressed: $0.compressed,
                emulated: true, sizes: $0.sizes)
        }
        #expect(ModeChooser.modes(of: emulated).isEmpty)
    }

    @Test(
        arguments: [
            ("YUYV", "YUYV"), ("YUY2", "YUYV"), ("yuy2", "YUYV"), ("MJPG", "MJPG"), ("I420", "YU12"),
            ("NV12", "NV12"), ("GRAY8", "GREY"), ("H264", nil), ("nonsense", nil)
        ] as [(String, String?)])
    func formatNamesAreCameraOrGStreamerNames(name: String, fourcc: String?) {
        #expect(ModeChooser.fourcc(named: name) == fourcc)
    }

    @Test(arguments: [(30.0, "30"), (29.97, "29.97"), (7.5, "7.5"), (0.0, "0"), (Double.nan, "0"), (1e300, "0")])
    func ratesBecomeIntervals(rate: Double, text: String) {
        #expect(FrameInterval(framesPerSecond: rate).description == text)
    }

    // MARK: - The fixtures

    /// Reads `Fixtures/NAME.txt`: `v4l2-ctl --list-formats-ext` output (discrete sizes and intervals, stepwise
    /// sizes with a continuous interval range).
    static func fixture(_ name: String) throws -> [PixelFormatDescription] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name).txt")
        return try parse(String(contentsOf: url, encoding: .utf8))
    }

    static func parse(_ text: String) throws -> [PixelFormatDescription] {
        struct Format {
            var fourcc: String, name: String, compressed: Bool
            var sizes: [(FrameSize, [FrameInterval], FrameRates?)] = []
        }
        var formats: [Format] = []
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("["), let open = line.firstIndex(of: "'") {
                let rest = line[line.index(after: open)...]
                let fourcc = String(rest.prefix { $0 != "'" })
                let name = line.split(separator: "(", maxSplits: 1).last.map { String($0.dropLast()) } ?? ""
                formats.append(Format(fourcc: fourcc, name: name, compressed: name.contains("compressed")))
            } else if line.hasPrefix("Size: Discrete ") {
                let size = try dimensions(line.dropFirst("Size: Discrete ".count))
                formats[formats.count - 1].sizes.append((.discrete(width: size.0, height: size.1), [], nil))
            } else if line.hasPrefix("Size: Stepwise ") {
                // "32x32 - 2592x1944 with step 2/2"
                let words = line.dropFirst("Size: Stepwise ".count).split(separator: " ")
                let low = try dimensions(words[0]), high = try dimensions(words[2])
                let step = words[5].split(separator: "/").compactMap { UInt32($0) }
                formats[formats.count - 1].sizes.append(
                    (
                        .stepwise(
                            minWidth: low.0, maxWidth: high.0, widthStep: step[0],
                            minHeight: low.1, maxHeight: high.1, heightStep: step[1]), [], nil
                    ))
            } else if line.hasPrefix("Interval: Discrete "), let fps = line.split(separator: "(").last?.split(separator: " ").first,
                let rate = Double(fps)
            {
                formats[formats.count - 1].sizes[formats[formats.count - 1].sizes.count - 1].1.append(FrameInterval(framesPerSecond: rate))
            } else if line.hasPrefix("Interval: Continuous "), let range = line.split(separator: "(").last?.split(separator: " ").first {
                let rates = range.split(separator: "-").compactMap { Double($0) }
                let last = formats[formats.count - 1].sizes.count - 1
                formats[formats.count - 1].sizes[last].2 = .stepwise(
                    min: FrameInterval(framesPerSecond: rates[1]),
                    max: FrameInterval(framesPerSecond: rates[0]),
                    step: FrameInterval(numerator: 1, denominator: 1))
            }
        }
        return formats.map { format in
            PixelFormatDescription(
                fourcc: format.fourcc, code: 0, name: format.name, compressed: format.compressed, emulated: false,
                sizes: format.sizes.map { FrameSizeRates(size: $0.0, rates: $0.2 ?? .discrete($0.1)) })
        }
    }

    private static func dimensions(_ text: Substring) throws -> (UInt32, UInt32) {
        let parts = text.split(separator: "x").compactMap { UInt32($0) }
        guard parts.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return (parts[0], parts[1])
    }
}
