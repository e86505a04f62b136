public import Base
import Dispatch
import FoundationEssentials
import GStreamer
import Glibc

/// Finds the cameras libcamera manages by running libcamera's own `cam` tool (package `libcamera-tools`) as a child
/// process: libcamera 0.0.3 crashes now and then inside its pipeline handlers, and a crash while listing must not take
/// the host (or `swiftcam devices`) with it. Its log lines go to the child's stderr, which is dropped.
public enum LibcameraDiscovery {
    /// Why no camera list could be read.
    public enum Failure: CategorizedError, Equatable {
        /// `cam` is not installed.
        case noTool
        /// `cam` ran but listed nothing usable (or died before it did).
        case failed(String)

        public var description: String {
            switch self {
            case .noTool: "libcamera cameras are listed with libcamera's `cam` tool: install libcamera-tools (and libcamera-ipa)"
            case let .failed(reason): "libcamera's camera list could not be read: \(reason)"
            }
        }

        public var kind: FailureKind { .unavailable }
    }

    /// A program to run instead of `cam` (tests set a stand-in; a value, not the environment, which setenv would race).
    static let standIn = Locked<String?>(nil)

    /// The program that lists cameras: `cam` on PATH, or the stand-in.
    static var tool: String? {
        if let path = standIn.withLock({ $0 }) { return path }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/cam" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Every camera libcamera lists, with its stream's formats and sizes; an empty list when there is none.
    public static func scan() throws(Failure) -> [LibcameraCamera] {
        guard let tool else { throw .noTool }
        guard let listing = run(tool, ["-l"]) else { throw .failed("`cam -l` did not run") }
        return LibcameraListing.cameras(fromList: listing).map { entry in
            // `cam -c` takes the index `cam -l` printed (1-based) or the id; the id survives renumbering.
            let stream = LibcameraListing.stream(fromInfo: run(tool, ["-c", entry.id, "-I"]) ?? "")
            return LibcameraCamera(
                id: entry.id, name: entry.name, defaultSize: stream.defaultSize, defaultFormat: stream.defaultFormat,
                formats: stream.formats)
        }
    }

    /// The camera a source names (`camera`), else the first libcamera lists.
    public static func camera(id: String?) throws(Failure) -> LibcameraCamera? {
        let cameras = try scan()
        guard let id else { return cameras.first }
        return cameras.first { $0.id == id || $0.name == id }
    }

    /// Runs `tool` with `arguments` to its end (at most 30 s) and returns its stdout, whatever its exit: `cam` may
    /// crash while it tears libcamera down, after it printed what it found.
    static func run(_ tool: String, _ arguments: [String]) -> String? {
        var environment = ProcessInfo.processInfo.environment
        environment["LIBCAMERA_LOG_LEVELS"] = environment["LIBCAMERA_LOG_LEVELS"] ?? "*:ERROR"
        guard let output = try? Spawn.pipe() else { return nil }
        let pid: Int32
        do {
            pid = try Spawn.start([tool] + arguments, environment: environment, standardOutput: output.write)
            close(output.write)
        } catch {
            close(output.read)
            close(output.write)
            return nil
        }
        // Killed when it has not ended 30 s on (its output closed or not); only before it is reaped: the flag is set,
        // under its lock, after the child ended and before the wait that frees its pid.
        let reaped = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            reaped.withLock { if !$0 { kill(pid, SIGKILL) } }
        }
        let text = String(decoding: Spawn.readAll(output.read), as: UTF8.self)
        Spawn.waitUntilEnded(pid)
        reaped.withLock { $0 = true }
        _ = Spawn.wait(for: pid)
        return text
    }
}
