import Glibc
import Testing

@testable import Camera

@Suite struct CameraDecisionTests {
    static let zoomControl = CameraControl(
        id: ControlID.zoomAbsolute, label: "Zoom, Absolute", type: .integer,
        minimum: 100, maximum: 500, step: 1, defaultValue: 100, flags: [])
    static let brightness = CameraControl(
        id: ControlID.brightness, label: "Brightness", type: .integer,
        minimum: 0, maximum: 255, step: 1, defaultValue: 128, flags: .slider)

    @Test(arguments: [
        (2.0, 4.0, 2.0), (0.5, 4.0, 1.0), (10.0, 4.0, 4.0), (Double.nan, 4.0, 1.0), (3.0, 0.5, 1.0),
        (Double.infinity, 5.0, 5.0), (2.0, Double.nan, 1.0)
    ])
    func zoomIsClampedToOneAndMax(factor: Double, maxZoom: Double, expected: Double) {
        #expect(CameraDevice.clampZoom(factor, maxZoom: maxZoom) == expected)
    }

    @Test func snappingRoundsToStepAndRange() {
        let stepped = CameraControl(
            id: 1, label: "Stepped", type: .integer, minimum: 10, maximum: 100, step: 20,
            defaultValue: 10, flags: [])
        #expect(stepped.snapped(39) == 30)
        #expect(stepped.snapped(41) == 50)
        #expect(stepped.snapped(1000) == 90)  // 100 is off the grid; the last step inside is 90
        #expect(stepped.snapped(-5) == 10)
        #expect(stepped.snapped(.nan) == 10)
        let wide = CameraControl(
            id: 2, label: "Integer 64 Bits", type: .integer64, minimum: .min, maximum: .max,
            step: 1, defaultValue: 0, flags: [])
        #expect(wide.snapped(1e30) == .max)
        #expect(wide.snapped(-1e30) == .min)
        #expect(wide.snapped(integer: .max) == .max)
        #expect(wide.value(normalized: 1) == .max)
        #expect(wide.value(normalized: -1) == .min)
    }

    @Test func normalizedLevelsPivotOnTheDefault() {
        #expect(Self.brightness.value(normalized: 0) == 128)
        #expect(Self.brightness.value(normalized: 1) == 255)
        #expect(Self.brightness.value(normalized: -1) == 0)
        #expect(Self.brightness.value(normalized: 0.5) == 192)  // 128 + 0.5 * 127 = 191.5
        #expect(Self.brightness.value(normalized: 7) == 255)
        #expect(Self.brightness.value(normalized: .nan) == 128)
    }

    @Test func outcomeLines() {
        #expect(ZoomOutcome.hardware(factor: 2, value: 200, maximum: 500).description == "zoom 2.0 (hardware 200/500)")
        #expect(ZoomOutcome.digital(factor: 2).description == "zoom 2.0 (digital)")
        #expect(TorchOutcome.unsupported.description == "this camera has no torch")
        #expect(
            TorchOutcome.hardware(on: true, node: "/dev/v4l-subdev2", intensity: 120, maximum: 200).description
                == "torch on (hardware /dev/v4l-subdev2, intensity 120/200)")
        #expect(
            FocusOutcome.unsupported(NormalizedPoint(x: 0.5, y: 0.5)).description
                == "focus 0.5,0.5: this camera cannot focus on a point (no autofocus controls)")
        #expect(MirrorOutcome.digital(on: true).description == "mirror on (digital)")
        #expect(MirrorOutcome.hardware(on: false).description == "mirror off (hardware horizontal_flip)")
        #expect(
            ColorOutcome.hardware(.brightness, value: 160, minimum: 0, maximum: 255).description
                == "brightness 160 (hardware 0…255)")
        #expect(ColorOutcome.digital(.hue, level: -0.25).description == "hue -0.25 (digital)")
        #expect(WhiteBalanceOutcome.digital(.kelvin(5000)).description == "wb 5000K (digital)")
        #expect(WhiteBalanceOutcome.hardwareKelvin(requested: 9000, kelvin: 6500).description == "wb 9000K (hardware 6500K)")
        #expect(ExposureOutcome.digital(ev: 1).description == "exposure ev=1.0 (digital)")
        #expect(ManualExposureOutcome.unsupported.description == "this camera has no manual exposure or gain")
    }

    @Test func tapPointsAreClamped() {
        #expect(NormalizedPoint(x: -1, y: 2) == NormalizedPoint(x: 0, y: 1))
        #expect(NormalizedPoint(x: .nan, y: 0.25) == NormalizedPoint(x: 0.5, y: 0.25))
    }

    @Test func makeDeviceMatchesStRdev() {
        var info = stat()
        #expect(stat("/dev/null", &info) == 0)
        #expect(MediaTopology.makeDevice(major: 1, minor: 3) == UInt64(info.st_rdev))
        // glibc's layout for numbers past 12-bit major / 8-bit minor.
        #expect(MediaTopology.makeDevice(major: 0x1234, minor: 0x567) == 0x1000_0052_3467)
    }

    @Test func noFlashSubdevicesWithoutMediaDevices() {
        #expect(MediaTopology.flashSubdevices(ofVideoDevice: 0, dev: "/tmp/swiftcam-no-such-dev").isEmpty)
    }
}
