import Glibc

/// System calls the way SwiftCam makes them: one that a signal interrupts (`EINTR`) is made again, a write is
/// repeated until every byte is out, and a failure is `errno`, which `SystemError.message` says in words.
public enum SystemCall {
    /// Makes `call` until it does not fail with `EINTR`; returns its last result (with `errno` set when it failed).
    public static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// Writes all of `bytes` to `fd` with `write` (or `send` with `flags`, for a socket), after interruptions and short
    /// writes; nil when all were written, else the `errno` of the failure (0 when a write took nothing).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, sendFlags flags: Int32? = nil) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = retrying {
                if let flags {
                    send(fd, base + offset, bytes.count - offset, flags)
                } else {
                    write(fd, base + offset, bytes.count - offset)
                }
            }
            guard written > 0 else { return written < 0 ? errno : 0 }
            offset += written
        }
        return nil
    }

    /// Writes all of `bytes` to `fd` (see `writeAll(_:_:sendFlags:)`).
    public static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>, sendFlags flags: Int32? = nil) -> Int32? {
        Array(bytes).withUnsafeBytes { writeAll(fd, $0, sendFlags: flags) }
    }

    /// Reads `fd` to its end, at most `limit` bytes; the bytes, or the `errno` of a failed read.
    public static func readAll(_ fd: Int32, limit: Int = .max) -> Result<[UInt8], SystemError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let count = retrying { read(fd, &chunk, min(chunk.count, limit - bytes.count)) }
            if count == 0 { break }
            guard count > 0 else { return .failure(SystemError("read", code: errno)) }
            bytes += chunk[..<count]
        }
        return .success(bytes)
    }
}
