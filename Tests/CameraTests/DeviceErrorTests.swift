import Glibc
import Testing

@testable import Camera

@Suite struct DeviceErrorTests {
    @Test func enoentListsDevicesPresentOrSaysNone() {
        let none = DeviceError.opening("/dev/video7", errno: ENOENT, available: { [] }, holder: { _ in nil })
        #expect(none == .deviceNotFound(path: "/dev/video7", available: []))
        #expect(none.description.contains("swiftcam devices"))
        #expect(none.description.contains("no video capture devices"))

        let some = DeviceError.opening("/dev/video7", errno: ENOENT, available: { ["/dev/video0", "/dev/video2"] }, holder: { _ in nil })
        #expect(some.description.contains("/dev/video0, /dev/video2"))
    }

    @Test(arguments: [EACCES, EPERM])
    func permissionErrorsSayHowToJoinVideo(code: Int32) {
        let error = DeviceError.opening("/dev/video0", errno: code, available: { [] }, holder: { _ in nil })
        #expect(error == .permissionDenied(path: "/dev/video0"))
        #expect(error.description.contains("sudo usermod -aG video $USER"))
        #expect(error.description.contains("log out and in again"))
    }

    @Test func ebusyNamesTheHolder() {
        let named = DeviceError.opening("/dev/video0", errno: EBUSY, available: { [] }, holder: { _ in "cheese (pid 42)" })
        #expect(named == .deviceBusy(path: "/dev/video0", holder: "cheese (pid 42)"))
        #expect(named.description.contains("cheese (pid 42)"))
        let unnamed = DeviceError.opening("/dev/video0", errno: EBUSY, available: { [] }, holder: { _ in nil })
        #expect(unnamed.description.contains("another program"))
    }

    @Test func otherErrnos() {
        #expect(
            DeviceError.opening("/dev/video0", errno: ENODEV, available: { [] }, holder: { _ in nil }) == .deviceGone(path: "/dev/video0"))
        #expect(
            DeviceError.opening("/dev/video0", errno: ENXIO, available: { [] }, holder: { _ in nil }) == .deviceGone(path: "/dev/video0"))
        #expect(DeviceError.opening("/dev/null", errno: ENOTTY, available: { [] }, holder: { _ in nil }) == .notACamera(path: "/dev/null"))
        #expect(
            DeviceError.ioctl("VIDIOC_S_FMT", errno: EBUSY, path: "/dev/video0", holder: { _ in nil })
                == .deviceBusy(path: "/dev/video0", holder: nil))
        #expect(DeviceError.ioctl("VIDIOC_G_EXT_CTRLS", errno: ENODEV, path: "/dev/video0") == .deviceGone(path: "/dev/video0"))
        let failed = DeviceError.ioctl("VIDIOC_ENUM_FMT", errno: EIO, path: "/dev/video0")
        #expect(failed == .ioctlFailed(request: "VIDIOC_ENUM_FMT", errno: EIO))
        #expect(failed.description.contains("VIDIOC_ENUM_FMT"))
    }

    @Test func everyDescriptionIsOneSentence() {
        let errors: [DeviceError] = [
            .deviceNotFound(path: "/dev/video9", available: []), .permissionDenied(path: "/dev/video0"),
            .deviceBusy(path: "/dev/video0", holder: nil), .deviceGone(path: "/dev/video0"),
            .notACamera(path: "/dev/null"), .ioctlFailed(request: "VIDIOC_QUERYCAP", errno: EIO),
            .controlNotFound(id: 0x98_0900), .invalidControlValue(control: "brightness", reason: "300 is outside 0…255")
        ]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasSuffix("."))
        }
    }
}

@Suite struct ProcessHolderTests {
    @Test func findsAnotherProcessHoldingAFile() throws {
        // This process is excluded on purpose, so a file only we hold has no other holder.
        #expect(ProcessHolder.holder(of: "/nonexistent/swiftcam-test") == nil)
    }

    @Test func readsFakeProc() throws {
        let root = "/tmp/swiftcam-proc-\(getpid())"
        defer { _ = system("rm -rf '\(root)'") }
        #expect(mkdir(root, 0o755) == 0)
        #expect(mkdir("\(root)/4242", 0o755) == 0)
        #expect(mkdir("\(root)/4242/fd", 0o755) == 0)
        #expect(symlink("/dev/null", "\(root)/4242/fd/3") == 0)
        let fd = open("\(root)/4242/comm", O_WRONLY | O_CREAT, 0o644)
        #expect(fd >= 0)
        _ = "cheese\n".withCString { write(fd, $0, 7) }
        close(fd)
        #expect(ProcessHolder.holder(of: "/dev/null", proc: root) == "cheese (pid 4242)")
    }
}
