import Base
import Glibc

/// Why a file could not be made, in words a user can act on. Beside `Locked` until the GStreamer-free base module
/// exists: the stills, the recorder and `bench --json` all create files and say why they could not.
public enum FileCreation {
    /// Why a file or folder could not be made at or in `path`, from the errno of the call that failed (read first:
    /// call this right after it). ENOENT where the folder exists means a file system that takes no new files (`/proc`,
    /// `/sys`), which "No such file or directory" would hide.
    public static func failure(in path: String) -> String {
        failure(in: path, code: errno)
    }

    /// Why a file could not be written in place at `path` (opened, written, not replaced: `run --dot`), or nil when it
    /// can: checked before the work whose result goes there. `/dev/stdout` and `/dev/null` are fine; a file made by
    /// the check is removed again.
    public static func problem(writingInPlace path: String) -> String? {
        var status = stat()
        let existed = stat(path, &status) == 0
        if existed, status.st_mode & S_IFMT == S_IFDIR { return "Is a directory" }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return failure(in: path) }
        close(descriptor)
        if !existed { unlink(path) }
        return nil
    }

    /// Why a file could not be written at `path` the way `bench --json` writes, a new file beside it renamed over it,
    /// or nil when it can: tried by creating and removing such a file.
    public static func problem(replacing path: String) -> String? {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return "Is a directory" }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return failure(in: temporary) }
        close(descriptor)
        unlink(temporary)
        return nil
    }

    /// As `failure(in:)`, for an errno read before.
    public static func failure(in path: String, code: Int32) -> String {
        let words = SystemError.message(code)
        guard code == ENOENT else { return words }
        var status = stat()
        let folder = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR ? path : path.folder
        guard !folder.isEmpty, stat(folder, &status) == 0 else { return words }
        return "\(folder) takes no new files (a file system of the kernel's, as /proc and /sys are)"
    }
}
