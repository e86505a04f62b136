import Glibc

/// Finds which process has a device node open, by reading `/proc/*/fd` (only processes this user may inspect).
public enum ProcessHolder {
    /// `"name (pid N)"` of the first other process with `path` open, or nil when `/proc` does not tell.
    public static func holder(of path: String, proc: String = "/proc") -> String? {
        let target = resolved(path)
        let me = getpid()
        for entry in directoryEntries(proc) {
            guard let pid = Int32(entry), pid != me else { continue }
            let fdDir = "\(proc)/\(entry)/fd"
            for fd in directoryEntries(fdDir) where readLink("\(fdDir)/\(fd)") == target {
                let name = readFirstLine("\(proc)/\(entry)/comm") ?? "process"
                return "\(name) (pid \(pid))"
            }
        }
        return nil
    }

    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func readFirstLine(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
    }

    /// Names in `directory` (without `.`/`..`); empty when it cannot be read.
    static func directoryEntries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
