import Foundation
import Glibc
import Testing

@testable import Camera

@Suite struct CameraDeviceTests {
    @Test func listIsEmptyWithoutCameras() {
        // This machine has no camera; a directory with no video nodes must list nothing.
        #expect(CameraDevice.list(directory: "/tmp/swiftcam-no-such-dir").isEmpty)
        #expect(CameraDevice.list(directory: "/proc/self").isEmpty)
    }

    @Test func listSkipsNodesThatAreNotCameras() throws {
        let dir = "/tmp/swiftcam-list-\(getpid())"
        defer { _ = system("rm -rf '\(dir)'") }
        #expect(mkdir(dir, 0o755) == 0)
        // Regular files named like video nodes: opening works, VIDIOC_QUERYCAP fails, so they are no cameras.
        for name in ["video10", "video2", "videoX", "video"] {
            let fd = open("\(dir)/\(name)", O_WRONLY | O_CREAT, 0o644)
            close(fd)
        }
        #expect(CameraDevice.list(directory: dir).isEmpty)
    }

    @Test func missingPathIsDeviceNotFound() {
        #expect(throws: DeviceError.deviceNotFound(path: "/dev/video99", available: CameraDevice.list().map(\.path))) {
            _ = try CameraDevice(path: "/dev/video99")
        }
    }

    @Test func devNullIsNotACamera() {
        #expect(throws: DeviceError.notACamera(path: "/dev/null")) {
            _ = try CameraDevice(path: "/dev/null")
        }
    }

    /// The session's check before a graph: what opens but is no camera says so, not only what does not open.
    @Test func preflightNamesWhatIsNoCamera() throws {
        let file = "/tmp/swiftcam-preflight-\(getpid())"
        close(open(file, O_WRONLY | O_CREAT, 0o644))
        defer { unlink(file) }
        #expect(DevicePreflight.check(file) == .notACamera(path: file))
        #expect(DevicePreflight.check("/dev/null") == .notACamera(path: "/dev/null"))
        #expect(DevicePreflight.check("/dev/video99") == .deviceNotFound(path: "/dev/video99", available: CameraDevice.list().map(\.path)))
    }

    @Test func aDirectoryIsNotACamera() {
        #expect(throws: DeviceError.self) { _ = try CameraDevice(path: "/tmp") }
    }

    @Test func reportOfMissingDeviceThrows() {
        #expect(throws: DeviceError.self) { _ = try DeviceReport(path: "/dev/video99") }
    }

    @Test func fourccRendering() {
        #expect(PixelFormatDescription.fourcc(0x5659_5559) == "YUYV")
        #expect(PixelFormatDescription.fourcc(0x3231_564E) == "NV12")
        #expect(PixelFormatDescription.fourcc(0x2033_4247) == "GB3")
        #expect(PixelFormatDescription.fourcc(0x8000_0000 | 0x3231_564E) == "NV12-BE")
    }

    @Test func frameRateText() {
        #expect(FrameInterval(numerator: 2, denominator: 25).description == "12.5")
        #expect(FrameInterval(numerator: 1, denominator: 30).description == "30")
        #expect(FrameInterval(numerator: 0, denominator: 30).framesPerSecond == 0)
        let rates = FrameRates.discrete([FrameInterval(numerator: 1, denominator: 25), FrameInterval(numerator: 1, denominator: 60)])
        #expect(rates.description == "60, 25 fps")
    }
}

@Suite struct DeviceReportTests {
    static let brightness = CameraControl(
        id: 0x0098_0900, label: "Brightness", type: .integer, minimum: 0, maximum: 255,
        step: 1, defaultValue: 128, flags: .slider)
    static let menu = CameraControl(
        id: 0x0098_f904, label: "Menu", type: .menu, minimum: 1, maximum: 4, step: 1,
        defaultValue: 3, flags: [],
        menu: [
            MenuItem(index: 1, name: "Menu Item 1", value: nil),
            MenuItem(index: 3, name: "Menu Item 3", value: nil)
        ])

    @Test func controlLineLooksLikeV4l2Ctl() {
        let line = ControlReport(control: Self.brightness, value: .integer(128), note: nil).description
        #expect(line == "brightness 0x00980900 (int): min=0 max=255 step=1 default=128 value=128 flags=slider")
        let menuLine = ControlReport(control: Self.menu, value: .integer(3), note: nil).description
        #expect(menuLine == "menu 0x0098f904 (menu): min=1 max=4 default=3 value=3 (Menu Item 3)")
    }

    @Test func controlReportJSONRoundTrips() throws {
        let reports = [
            ControlReport(control: Self.brightness, value: .integer(128), note: nil),
            ControlReport(control: Self.menu, value: .integer(3), note: nil),
            ControlReport(
                control: CameraControl(
                    id: 1, label: "Boolean", type: .boolean, minimum: 0, maximum: 1,
                    step: 1, defaultValue: 1, flags: []), value: .boolean(true), note: nil),
            ControlReport(
                control: CameraControl(
                    id: 2, label: "String", type: .string, minimum: 2, maximum: 4,
                    step: 1, defaultValue: 0, flags: .hasPayload), value: .string("ab"), note: nil),
            ControlReport(
                control: CameraControl(
                    id: 3, label: "U8 Array", type: .other(0x100), minimum: 0, maximum: 255,
                    step: 1, defaultValue: 0, flags: .hasPayload, elementSize: 1,
                    elements: 6, dimensions: [2, 3]), value: nil, note: "array/compound value not read")
        ]
        let data = try JSONEncoder().encode(reports)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"name\":\"brightness\""))
        #expect(text.contains("\"type\":\"u8\""))
        #expect(text.contains("\"min\":0"))
        #expect(try JSONDecoder().decode([ControlReport].self, from: data) == reports)
    }

    @Test func arraysAndCompoundAreListedButNotWritable() {
        let array = CameraControl(
            id: 3, label: "U8 Array", type: .other(0x100), minimum: 0, maximum: 255, step: 1,
            defaultValue: 0, flags: .hasPayload, elementSize: 1, elements: 6, dimensions: [2, 3])
        #expect(array.isArrayOrCompound && !array.isReadable && !array.isWritable)
        let area = CameraControl(
            id: 4, label: "Area", type: .other(0x106), minimum: 0, maximum: 0, step: 0,
            defaultValue: 0, flags: .hasPayload, elementSize: 8)
        #expect(area.isArrayOrCompound && !area.isWritable)
        #expect(Self.brightness.isReadable && Self.brightness.isWritable)
        let button = CameraControl(
            id: 5, label: "Button", type: .button, minimum: 0, maximum: 0, step: 0,
            defaultValue: 0, flags: [.writeOnly, .executeOnWrite])
        #expect(!button.isReadable && button.isWritable)
    }
}
