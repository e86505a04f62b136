import CV4L2
import Glibc

/// Waits for device nodes to come and go: an inotify watch on the device directory (`/dev`), so recovery
/// reopens a camera when its node appears instead of polling for it. `cancel()` wakes a waiter at once.
/// Unchecked Sendable: its only fields are two file descriptors, fixed in `init`, and the kernel serializes the
/// `poll`, `read` and `write` calls made on them from any thread.
public final class DeviceArrival: @unchecked Sendable {
    private let notify: Int32
    private let wake: Int32

    /// Watches `directory` for nodes created, deleted or changed (udev fixes permissions after creating).
    public init(directory: String = "/dev") throws(DeviceError) {
        notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard notify >= 0 else { throw .ioctlFailed(request: "inotify_init1", errno: errno) }
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = errno
            close(notify)
            throw .ioctlFailed(request: "eventfd", errno: code)
        }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO)
        guard inotify_add_watch(notify, directory, mask) >= 0 else {
            let code = errno
            close(notify)
            close(wake)
            throw .ioctlFailed(request: "inotify_add_watch(\(directory))", errno: code)
        }
    }

    deinit {
        close(notify)
        close(wake)
    }

    /// Blocks until something changes in the directory, `cancel()` is called, or `timeout` seconds pass.
    /// Returns false once cancelled (and on every later call).
    public func wait(timeout: Double) -> Bool {
        var descriptors = [
            pollfd(fd: notify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        ]
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        let ready = poll(&descriptors, 2, milliseconds)
        if ready > 0, descriptors[1].revents != 0 { return false }
        if ready > 0, descriptors[0].revents != 0 {
            // Drain the events: only "something changed" matters, not what.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(notify, &buffer, buffer.count) > 0 {}
        }
        return true
    }

    /// Wakes the waiter for good.
    public func cancel() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)
    }
}
