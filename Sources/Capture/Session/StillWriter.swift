import Base
import FoundationEssentials
import GStreamer
import Glibc

/// Writes a file so that it is either complete or absent: a temporary file in the same directory,
/// fsync, then a hard link to a name nobody holds (never overwriting), then the directory is synced.
enum StillWriter {
    /// Writes `bytes` as `directory/base.ext`, or `base-2.ext`, `base-3.ext`… if taken. Returns the path written.
    /// With `parents` false only the folder itself may be made: a client's `snap /nonexistent/dir` must not build a
    /// tree at the root.
    static func write(_ bytes: [UInt8], directory: String, base: String, extension ext: String, parents: Bool = true) throws -> String {
        try createDirectory(directory, parents: parents)
        var template = Array("\(directory)/.\(base).XXXXXX.part".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemps($0, 5) } ?? -1
        }
        guard descriptor >= 0 else { throw SessionError.writeFailure(path: directory, reason: FileCreation.failure(in: directory)) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(temporary) }
        do {
            // mkstemp makes the file private; a still is an ordinary user file.
            fchmod(descriptor, 0o644)
            try writeAll(bytes, to: descriptor)
            guard fsync(descriptor) == 0 else { throw SessionError.cannotWrite(path: temporary, reason: errnoText()) }
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        for attempt in 1...10_000 {
            let name = attempt == 1 ? "\(base).\(ext)" : "\(base)-\(attempt).\(ext)"
            let path = "\(directory)/\(name)"
            if link(temporary, path) == 0 {
                syncDirectory(directory)
                return path
            }
            guard errno == EEXIST else { throw SessionError.cannotWrite(path: path, reason: errnoText()) }
        }
        throw SessionError.cannotWrite(path: directory, reason: "no free file name for \(base).\(ext)")
    }

    static func createDirectory(_ directory: String, parents: Bool = true) throws {
        // Each missing component in turn, so a failure names the component and the reason.
        var prefix = directory.hasPrefix("/") ? "/" : ""
        let components = directory.split(separator: "/")
        for (index, component) in components.enumerated() {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            var status = stat()
            if !parents, index < components.count - 1, stat(prefix, &status) != 0 {
                throw SessionError.cannotWrite(
                    path: directory, reason: "no such folder \(prefix) (only the last folder of the path is made)")
            }
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw SessionError.writeFailure(path: directory, reason: "cannot create \(prefix): \(FileCreation.failure(in: prefix))")
            }
        }
        var status = stat()
        guard stat(directory, &status) == 0 else { throw SessionError.cannotWrite(path: directory, reason: errnoText()) }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw SessionError.cannotWrite(path: directory, reason: "it exists and is not a directory")
        }
        guard access(directory, W_OK) == 0 else { throw SessionError.writeFailure(path: directory) }
    }

    /// Refuses to start a file in a directory whose file system has no room left at all, rather than
    /// leave an empty file behind; a disk that fills later ends the file at the first failed write.
    static func requireSpace(in directory: String, for path: String) throws {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return }
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        if free < max(4096, UInt64(info.f_frsize)) {
            throw SessionError.cannotWrite(path: path, reason: "No space left on device (\(free) bytes free in \(directory))")
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        if let code = SystemCall.writeAll(descriptor, bytes) {
            throw SessionError.cannotWrite(path: "still", reason: errnoText(code))
        }
    }

    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// The current errno as words.
func errnoText(_ code: Int32 = errno) -> String {
    SystemError.message(code)
}
