import Base
import CV4L2
import Foundation
import Glibc
import TestSupport
import Testing

@testable import Camera
@testable import Capture

/// Real-driver tests: run inside the vivid VM by `scripts/test-hardware.sh` (`SWIFTCAM_HARDWARE=1`);
/// skipped everywhere else. `SWIFTCAM_DEVICE` picks the node (default `/dev/video0`).
enum Hardware {
    static let enabled = ProcessInfo.processInfo.environment["SWIFTCAM_HARDWARE"] == "1"
    static let device = ProcessInfo.processInfo.environment["SWIFTCAM_DEVICE"] ?? "/dev/video0"
    static let isRoot = geteuid() == 0

    /// Runs a program (found on PATH) and returns its standard output; throws when it exits non-zero.
    static func run(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(arguments, timeout: 600)
        guard result.status == 0 else {
            throw HardwareTestError.commandFailed("\(arguments.joined(separator: " ")): \(result.err)", result.status)
        }
        return result.out
    }

    /// Another program streaming from the camera (`v4l2-ctl --stream-mmap`), so it is busy for everyone else.
    final class OtherStreamer {
        private let child: ChildProcess
        var pid: pid_t { child.pid }

        /// Starts it and returns once it has dequeued its first frame (its first output byte), or throws when it
        /// could not stream (it exited: end of its output). Its output is read to the end meanwhile: a write to a
        /// closed pipe would kill it (SIGPIPE) and free the camera.
        init(device: String = Hardware.device) throws {
            child = try ChildProcess(["v4l2-ctl", "-d", device, "--stream-mmap", "--stream-to=/dev/null"], errorsToOutput: true)
            // v4l2-ctl writes a '<' per dequeued frame: the first one means it streams (the end or text: it gave up).
            guard child.text(timeout: 600, where: { !$0.isEmpty })?.first == "<" else {
                stop()
                throw HardwareTestError.commandFailed("v4l2-ctl --stream-mmap did not stream: \(child.transcript)", -1)
            }
        }

        /// `NAME (pid N)` as /proc names it.
        var holder: String { "v4l2-ctl (pid \(pid))" }

        /// Ends it and waits for it.
        func stop() {
            child.kill()
        }
    }

    /// `v4l2-ctl -d DEVICE --get-ctrl NAME` → the value after `NAME: `.
    static func getCtrl(_ name: String) throws -> String {
        let line = try run(["v4l2-ctl", "-d", device, "--get-ctrl", name]).trimmingCharacters(in: .whitespacesAndNewlines)
        return String(line.dropFirst(name.count + 2))
    }

    /// One line of `v4l2-ctl --list-ctrls`.
    struct Listed {
        var name: String
        var id: UInt32
        var type: String
        var fields: [String: String]
    }

    /// Parses `v4l2-ctl --list-ctrls`: `name 0x00980900 (int) : min=0 max=255 … value=128 flags=slider`.
    static func listCtrls() throws -> [Listed] {
        try run(["v4l2-ctl", "-d", device, "--list-ctrls"]).split(separator: "\n").compactMap { raw -> Listed? in
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ", maxSplits: 2)
            guard words.count == 3, words[1].hasPrefix("0x"), let id = UInt32(words[1].dropFirst(2), radix: 16),
                let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")"),
                let colon = line[close...].firstIndex(of: ":")
            else { return nil }
            let type = String(line[line.index(after: open)..<close])
            var fields: [String: String] = [:]
            var rest = Substring(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            while !rest.isEmpty {
                guard let equals = rest.firstIndex(of: "=") else { break }
                let key = String(rest[..<equals]).trimmingCharacters(in: .whitespaces)
                rest = rest[rest.index(after: equals)...]
                var value: Substring
                if key == "flags" {
                    value = rest; rest = ""
                } else if rest.hasPrefix("'"), let end = rest.dropFirst().firstIndex(of: "'") {
                    value = rest[rest.index(after: rest.startIndex)..<end]
                    rest = rest[rest.index(after: end)...]
                } else {
                    let end = rest.firstIndex(of: " ") ?? rest.endIndex
                    value = rest[..<end]
                    rest = rest[end...]
                    // Menu values are followed by the item in parentheses: skip it.
                    let trimmed = rest.drop(while: { $0 == " " })
                    if trimmed.hasPrefix("("), let end = trimmed.firstIndex(of: ")") { rest = trimmed[trimmed.index(after: end)...] }
                }
                fields[key] = String(value)
                rest = rest.drop(while: { $0 == " " })
            }
            return Listed(name: String(words[0]), id: id, type: type, fields: fields)
        }
    }
}

enum HardwareTestError: Error { case commandFailed(String, Int32) }

@Suite("HardwareTests", .serialized, .enabled(if: Hardware.enabled && Hardware.isRoot, "needs the vivid VM (scripts/test-hardware.sh)"))
struct HardwareTests {
    @Test func listFindsTheCaptureNodeOnly() throws {
        let cameras = CameraDevice.list()
        print("devices:", cameras.map(\.description))
        #expect(cameras.contains { $0.path == Hardware.device && $0.driver == "vivid" })
        #expect(cameras.allSatisfy { $0.isCapture })
        // Plain vivid's video1 is an output node and video2/3 are metadata: listed nowhere, refused when opened.
        let others = ProcessHolder.directoryEntries("/dev").filter { $0.hasPrefix("video") }.map { "/dev/\($0)" }
            .filter { path in !cameras.contains { $0.path == path } }
        for path in others {
            #expect(throws: DeviceError.notACamera(path: path)) { _ = try CameraDevice(path: path) }
        }
        let numbers = cameras.compactMap { Int($0.path.dropFirst("/dev/video".count)) }
        #expect(numbers == numbers.sorted())
        // Identities are distinct (n_devs=2 gives vivid-000 and vivid-001) and find each node again.
        #expect(Set(cameras.map(\.identity)).count == cameras.count)
        for camera in cameras {
            #expect(camera.identity.busInfo.hasPrefix("platform:vivid"))
            #expect(CameraDevice.find(camera.identity)?.path == camera.path)
        }
    }

    @Test func formatsMatchVivid() throws {
        let formats = try CameraDevice(path: Hardware.device).formats()
        let yuyv = try #require(formats.first { $0.fourcc == "YUYV" })
        #expect(formats.contains { $0.fourcc == "NV12" })
        let vga = try #require(yuyv.sizes.first { $0.size == .discrete(width: 640, height: 480) })
        guard case let .discrete(intervals) = vga.rates else { Issue.record("640x480 rates not discrete"); return }
        #expect(intervals.map(\.framesPerSecond).max() == 25)
        // Same format list as v4l2-ctl.
        let listed = try Hardware.run(["v4l2-ctl", "-d", Hardware.device, "--list-formats"])
            .split(separator: "\n").compactMap { line -> String? in
                guard let start = line.firstIndex(of: "'"), let end = line[line.index(after: start)...].firstIndex(of: "'") else {
                    return nil
                }
                return String(line[line.index(after: start)..<end])
            }
        // v4l2-ctl keeps a short fourcc's padding ("Y10 ", "Y16 -BE"); ours drops it.
        #expect(formats.map(\.fourcc) == listed.map { $0.replacingOccurrences(of: " ", with: "") })
    }

    @Test func reportMatchesV4l2CtlListCtrls() throws {
        let report = try DeviceReport(path: Hardware.device)
        let listed = try Hardware.listCtrls()
        #expect(listed.count > 50)
        // The parser itself: fields, menu values without their item, quoted strings.
        #expect(listed.first { $0.name == "brightness" }?.fields["max"] == "255")
        #expect(listed.first { $0.name == "menu" }?.fields["value"]?.allSatisfy(\.isNumber) == true)
        #expect(listed.first { $0.name == "string" }?.fields["value"] != nil)
        #expect(listed.first { $0.name == "u8_2x3x4x5_array" }?.fields["dims"] == "[2][3][4][5]")
        #expect(Set(report.controls.map(\.name)) == Set(listed.map(\.name)))
        #expect(report.controls.count == listed.count)
        let mine = Dictionary(report.controls.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in listed {
            guard let control = mine[entry.id] else { Issue.record("\(entry.name) missing from report"); continue }
            #expect(control.name == entry.name)
            #expect(control.type.description == entry.type, "\(entry.name)")
            func expectField(_ key: String, _ value: String) {
                if let printed = entry.fields[key] { #expect(printed == value, "\(entry.name) \(key)") }
            }
            if control.type == .bitmask {
                expectField("max", String(format: "0x%08x", UInt32(truncatingIfNeeded: control.maximum)))
                expectField("default", String(format: "0x%08x", UInt32(truncatingIfNeeded: control.defaultValue)))
            } else {
                expectField("min", String(control.minimum))
                expectField("max", String(control.maximum))
                expectField("default", String(control.defaultValue))
            }
            expectField("step", String(control.step))
            if let printed = entry.fields["dims"] {
                #expect(printed == (control.dimensions ?? []).map { "[\($0)]" }.joined(), "\(entry.name) dims")
            }
            // Volatile controls (vivid's gain under auto gain) change between two reads.
            guard !control.flags.contains("volatile"), let value = control.value else { continue }
            switch (control.type, value) {
            case let (.bitmask, .integer(mask)):
                // v4l2-ctl prints a bitmask's current value as a signed 32-bit decimal.
                expectField("value", String(Int32(bitPattern: UInt32(truncatingIfNeeded: mask))))
            default:
                expectField("value", value.description)
            }
        }
        let json = try report.json()
        #expect(json.contains("\"name\" : \"horizontal_flip\""))
        let decoded = try JSONDecoder().decode(DeviceReport.self, from: Data(json.utf8))
        #expect(decoded == report)
        print(report.description.split(separator: "\n").prefix(12).joined(separator: "\n"))
    }

    @Test func colourAndMirrorReadBackThroughV4l2Ctl() throws {
        let device = try CameraDevice(path: Hardware.device)
        defer {
            for adjustment in ColorAdjustment.allCases { _ = try? device.set(adjustment, to: .normalized(0)) }
            _ = try? device.mirror(false)
        }
        let raw: [(ColorAdjustment, Int64)] = [(.brightness, 40), (.contrast, 200), (.saturation, 17), (.hue, -100)]
        for (adjustment, value) in raw {
            let outcome = try device.set(adjustment, to: .raw(value))
            print("ok", outcome)
            guard case .hardware = outcome else { Issue.record("\(adjustment) not hardware on vivid"); continue }
            #expect(try Hardware.getCtrl(adjustment.rawValue) == String(value))
        }
        let brightest = try device.set(.brightness, to: .normalized(1))
        #expect(brightest == .hardware(.brightness, value: 255, minimum: 0, maximum: 255))
        #expect(try Hardware.getCtrl("brightness") == "255")
        #expect(try device.set(.hue, to: .normalized(-1)) == .hardware(.hue, value: -128, minimum: -128, maximum: 128))
        #expect(try Hardware.getCtrl("hue") == "-128")
        // Camera units past the control's range are clamped into it (the one rule for every control's values), not
        // handed to the driver to refuse.
        #expect(try device.set(.brightness, to: .raw(300)) == .hardware(.brightness, value: 255, minimum: 0, maximum: 255))
        #expect(try Hardware.getCtrl("brightness") == "255")
        #expect(try device.set(.brightness, to: .raw(-7)) == .hardware(.brightness, value: 0, minimum: 0, maximum: 255))
        #expect(try Hardware.getCtrl("brightness") == "0")

        let mirrored = try device.mirror(true)
        print("ok", mirrored)
        #expect(mirrored == .hardware(on: true))
        #expect(try Hardware.getCtrl("horizontal_flip") == "1")
        #expect(try device.mirror(false) == .hardware(on: false))
        #expect(try Hardware.getCtrl("horizontal_flip") == "0")
    }

    /// vivid's test controls, one of each type (`VIVID_CID_CUSTOM_BASE` = `V4L2_CID_USER_BASE | 0xf000`).
    enum Vivid {
        static let button: UInt32 = 0x0098_f900, boolean: UInt32 = 0x0098_f901, int32: UInt32 = 0x0098_f902
        static let int64: UInt32 = 0x0098_f903, menu: UInt32 = 0x0098_f904, string: UInt32 = 0x0098_f905
        static let bitmask: UInt32 = 0x0098_f906, integerMenu: UInt32 = 0x0098_f907, u32Array: UInt32 = 0x0098_f908
        static let u16Matrix: UInt32 = 0x0098_f909, area: UInt32 = 0x0098_f90b, readOnly: UInt32 = 0x0098_f90c
    }

    @Test func everyControlTypeRoundTrips() throws {
        let device = try CameraDevice(path: Hardware.device)
        let cases: [(UInt32, ControlType, [ControlValue], String)] = [
            (Vivid.boolean, .boolean, [.boolean(false), .boolean(true)], "boolean"),
            (Vivid.int32, .integer, [.integer(-2_147_483_648), .integer(2_147_483_647), .integer(42)], "integer_32_bits"),
            (Vivid.int64, .integer64, [.integer(.min), .integer(.max), .integer(-5_000_000_000)], "integer_64_bits"),
            (Vivid.menu, .menu, [.integer(1), .integer(4), .integer(2)], "menu"),
            (Vivid.string, .string, [.string("ab"), .string("abcd"), .string("xyz")], "string"),
            (Vivid.bitmask, .bitmask, [.integer(0x8040_2010), .integer(0), .integer(0x10)], "bitmask"),
            (Vivid.integerMenu, .integerMenu, [.integer(1), .integer(8), .integer(5)], "integer_menu")
        ]
        for (id, type, values, name) in cases {
            let control = try #require(try device.control(id: id), "vivid has control \(name)")
            #expect(control.type == type)
            #expect(control.name == name)
            let original = try device.value(of: control)
            for value in values {
                // Drivers may leave menu indexes out (vivid's integer menu skips 1): those must be refused.
                if control.type == .menu || control.type == .integerMenu, case let .integer(index) = value,
                    !control.menu.contains(where: { $0.index == index })
                {
                    #expect(throws: DeviceError.self) { try device.set(control, to: value) }
                    continue
                }
                try device.set(control, to: value)
                #expect(try device.value(of: control) == value, "\(name) = \(value)")
                let printed = try Hardware.getCtrl(name)
                switch (type, value) {
                case let (.bitmask, .integer(mask)): #expect(printed == String(Int32(bitPattern: UInt32(mask))))
                case let (.string, .string(text)): #expect(printed == "'\(text)'")
                case (.menu, _), (.integerMenu, _):
                    // `--get-ctrl` prints a menu value as `INDEX (ITEM)`.
                    #expect(printed.split(separator: " ").first.map(String.init) == value.description, "\(name) via v4l2-ctl")
                default: #expect(printed == value.description, "\(name) via v4l2-ctl")
                }
            }
            if let original { try device.set(control, to: original) }
            print("ok \(name) (\(type)) round-trips")
        }
        // Integer-menu items carry their integers.
        let intMenu = try #require(try device.control(id: Vivid.integerMenu))
        #expect(intMenu.menu.allSatisfy { $0.value != nil && $0.name == nil })
        #expect(try device.control(id: Vivid.menu)?.menu.allSatisfy { $0.name != nil } == true)

        // A button has no value and is pressed by writing.
        let button = try #require(try device.control(id: Vivid.button))
        #expect(button.type == .button)
        #expect(try device.value(of: button) == nil)
        try device.set(button, to: .integer(1))

        // Arrays and compound controls are listed, unreadable here, and refuse writes with a message.
        for id in [Vivid.u32Array, Vivid.u16Matrix, Vivid.area] {
            let control = try #require(try device.control(id: id))
            #expect(control.isArrayOrCompound)
            #expect(try device.value(of: control) == nil)
            #expect(throws: DeviceError.self) { try device.set(control, to: .integer(1)) }
        }
        let readOnly = try #require(try device.control(id: Vivid.readOnly))
        #expect(throws: DeviceError.invalidControlValue(control: "read_only_integer_32_bits", reason: "it is read-only")) {
            try device.set(readOnly, to: .integer(1))
        }
        // Bad values never reach the driver.
        let string = try #require(try device.control(id: Vivid.string))
        #expect(throws: DeviceError.self) { try device.set(string, to: .string("too long")) }
        #expect(throws: DeviceError.self) { try device.set(string, to: .integer(1)) }
        let bitmask = try #require(try device.control(id: Vivid.bitmask))
        #expect(throws: DeviceError.self) { try device.set(bitmask, to: .integer(0x1)) }
        #expect(throws: DeviceError.controlNotFound(id: 0x0098_ffff)) { try device.set(id: 0x0098_ffff, to: .integer(1)) }
    }

    @Test func seedControlsReportWhatViviDLacks() throws {
        let device = try CameraDevice(path: Hardware.device)
        let torch = try device.torch(on: true)
        #expect(torch == .unsupported)
        #expect(!device.hasTorch)
        #expect(torch.description == "this camera has no torch")
        let zoom = try device.zoom(2, maxZoom: 4)
        #expect(zoom == .digital(factor: 2))
        #expect(zoom.description == "zoom 2.0 (digital)")
        #expect(try device.zoom(9, maxZoom: 4) == .digital(factor: 4))
        let focus = try device.focus(at: NormalizedPoint(x: 0.5, y: 0.5))
        #expect(focus == .unsupported(NormalizedPoint(x: 0.5, y: 0.5)))
        #expect(try device.whiteBalance(.kelvin(5000)) == .digital(.kelvin(5000)))
        #expect(try device.whiteBalance(.auto) == .digital(.auto))
        #expect(try device.exposure(ev: 1) == .digital(ev: 1))
        for line in [
            torch.description, zoom.description, focus.description,
            try device.whiteBalance(.kelvin(5000)).description, try device.exposure(ev: 1).description
        ] {
            print("ok", line)
            #expect(!line.contains("\n"))
        }
        // vivid has gain + auto gain, so spot metering can drive gain.
        let exposure = try device.exposureControls()
        #expect(exposure.gain != nil && exposure.autoGain != nil)
        #expect(exposure.exposureTime == nil && exposure.autoExposure == nil)
        #expect(exposure.canMeterInHardware)
        let manual = try device.setManualExposure(time: nil, gain: 50)
        print("ok", manual)
        #expect(manual == .hardware(time: nil, gain: 50))
        #expect(try Hardware.getCtrl("gain_automatic") == "0")
        #expect(try Hardware.getCtrl("gain") == "50")
        _ = try Hardware.run(["v4l2-ctl", "-d", Hardware.device, "--set-ctrl", "gain_automatic=1"])
    }

    @Test func mediaTopologyFindsTheVideoInterface() throws {
        // vivid registers /dev/media0 with the video node as a V4L Video interface; no flash entity.
        let graph = try #require(MediaTopology.Graph(path: "/dev/media0"))
        var info = stat()
        try #require(stat(Hardware.device, &info) == 0)
        #expect(graph.interfaces.contains { $0.type == UInt32(MEDIA_INTF_T_V4L_VIDEO) && $0.device == UInt64(info.st_rdev) })
        #expect(!graph.entities.isEmpty)
        #expect(MediaTopology.flashSubdevices(ofVideoDevice: UInt64(info.st_rdev)).isEmpty)
    }

    @Test func errnoMappingOnRealNodes() throws {
        let missing = "/dev/video99"
        #expect(throws: DeviceError.deviceNotFound(path: missing, available: CameraDevice.list().map(\.path))) {
            _ = try CameraDevice(path: missing)
        }
        do {
            _ = try CameraDevice(path: missing)
        } catch {
            print("ok", error)
            #expect(error.description.contains(Hardware.device))
        }
        #expect(throws: DeviceError.notACamera(path: "/dev/media0")) { _ = try CameraDevice(path: "/dev/media0") }
    }

    @Test func busyHolderIsNamedFromProc() throws {
        // A child process holding the camera open as its stdin: /proc/PID/fd/0 → /dev/video0.
        let fd = open(Hardware.device, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0)
        let holder = try ChildProcess(["sleep", "20"], standardInput: fd)
        close(fd)
        // posix_spawn returns once the child has exec'd (glibc's spawn waits for the exec), so /proc names `sleep`.
        let name = ProcessHolder.holder(of: Hardware.device)
        #expect(name == "sleep (pid \(holder.pid))")
        let error = DeviceError.ioctl("VIDIOC_S_FMT", errno: EBUSY, path: Hardware.device)
        print("ok", error)
        #expect(error.description.contains("sleep (pid"))
    }

    /// A camera another program streams from (v4l2src's S_FMT: EBUSY, GST_RESOURCE_ERROR_BUSY) is the session's own
    /// `busy` status, naming that program from /proc, in one sentence with what to do.
    @Test func aBusyCameraNamesTheProgramHoldingIt() throws {
        let other = try Hardware.OtherStreamer()
        defer { other.stop() }
        let session = CaptureSession(name: "busy", config: try Live.camera())
        do {
            try session.start(timeout: 30)
            session.stop()
            Issue.record("the session started on a camera \(other.holder) streams from")
        } catch let error as StartError {
            print("ok", error)
            #expect(error.status.name == "busy")
            #expect("\(error)" == "status busy: camera \(Hardware.device) is in use by \(other.holder); stop that program and start again")
            #expect(error.kind == .unavailable)
            #expect(session.stats.line.hasPrefix("busy: camera \(Hardware.device) is in use by \(other.holder)"), "\(session.stats.line)")
        }
    }
}

/// Run as an unprivileged user (`setpriv --reuid=nobody --regid=nogroup --clear-groups`) by the hardware script.
@Suite("HardwarePermissionTests", .enabled(if: Hardware.enabled && !Hardware.isRoot, "needs the vivid VM, run as a non-root user"))
struct HardwarePermissionTests {
    @Test func outsiderGetsPermissionDenied() {
        do {
            _ = try CameraDevice(path: Hardware.device)
            Issue.record("opened \(Hardware.device) without permission")
        } catch {
            print("ok", error)
            #expect(error == .permissionDenied(path: Hardware.device))
            #expect(error.description.contains("sudo usermod -aG video $USER"))
        }
        #expect(CameraDevice.list().isEmpty)
    }
}
