import CV4L2
import Glibc

/// One open V4L2 node (a video node or a sub-device): the single owner of its file descriptor.
final class DeviceNode {
    /// The path it was opened from.
    let path: String
    private let fd: Int32

    /// Opens `path` read-write and non-blocking; maps a failure's errno to a `DeviceError`.
    init(path: String) throws(DeviceError) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceError.opening(path, errno: errno) }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Calls `ioctl(fd, request, &value)`, retrying on `EINTR`; returns 0 or the errno.
    func attempt<T>(_ request: UInt, _ value: inout T) -> Int32 {
        while true {
            let result = withUnsafeMutablePointer(to: &value) { ioctl(fd, request, UnsafeMutableRawPointer($0)) }
            if result >= 0 { return 0 }
            let code = errno
            if code != EINTR { return code }
        }
    }

    /// Calls `ioctl` and throws the mapped `DeviceError` when it fails.
    func call<T>(_ request: UInt, _ name: String, _ value: inout T) throws(DeviceError) {
        let code = attempt(request, &value)
        if code != 0 { throw DeviceError.ioctl(name, errno: code, path: path) }
    }

    /// Runs an enumeration ioctl (`VIDIOC_ENUM_*`) with `query` for index 0, 1, … (at most 1024) until the driver answers
    /// one of `ends` (no more entries; `ENOTTY` from a driver without that enumeration) or an entry `isLast`. Any other
    /// errno throws.
    func enumerate<T>(
        _ request: UInt, _ name: String, _ query: T, index: WritableKeyPath<T, UInt32>,
        endingOn ends: [Int32] = [EINVAL, ENOTTY], stopAfter isLast: (T) -> Bool = { _ in false }
    ) throws(DeviceError) -> [T] {
        var entries: [T] = []
        var entry = query
        for number in 0..<UInt32(1024) {
            entry[keyPath: index] = number
            let code = attempt(request, &entry)
            if ends.contains(code) { break }
            if code != 0 { throw DeviceError.ioctl(name, errno: code, path: path) }
            entries.append(entry)
            if isLast(entry) { break }
            entry = query
        }
        return entries
    }

    /// `st_rdev` of the open node (major/minor), used to match media-controller interfaces.
    var deviceNumber: UInt64? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else { return nil }
        return UInt64(info.st_rdev)
    }
}

/// Reads a fixed-size NUL-terminated C char array (imported as a tuple) as UTF-8.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
