import Capture
import Foundation
import Glibc
import TestSupport
import Testing

/// Every environment a service inherits: the demo (stills every 0.1 s, so one is written or fails) runs to its end
/// in each and ends the documented way — its exit code, its lines — never by a signal. A stale `DISPLAY` (an ssh or
/// sudo session, a unit that inherited it) segfaulted inside GStreamer, with nothing printed.
@Suite("Inherited environments")
struct InheritedEnvironmentTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var set: [String: String] = [:]
        var removed: Set<String> = []
        var arguments: [String] = []
        var readOnlyFolder = false
        /// The exit code `docs/host.md` gives for this case.
        var status: Int32 = 0
        /// What stderr must say (nothing at all when empty).
        var says: [String] = []
        var testDescription: String { name }
    }

    /// A display number no X server answers on here (`:99` may well be a machine's Xvfb).
    static let deadDisplay: String = {
        let number = (1000...9000).shuffled().first { !DisplayProbe(environment: ["DISPLAY": ":\($0)"]).isAvailable } ?? 9999
        return ":\(number)"
    }()

    static let cases: [Case] = [
        Case(name: "DISPLAY names no X server", set: ["DISPLAY": deadDisplay]),
        Case(name: "DISPLAY names a host with no X server", set: ["DISPLAY": "127.0.0.1:57.0"]),
        Case(name: "DISPLAY is not a display name", set: ["DISPLAY": "nowhere"]),
        Case(name: "WAYLAND_DISPLAY names no compositor", set: ["WAYLAND_DISPLAY": "wayland-nowhere"]),
        Case(
            name: "a window asked for, DISPLAY names no X server", set: ["DISPLAY": deadDisplay], arguments: ["--set", "preview=window"],
            status: 69, says: ["\"preview\": \"window\" needs a display, and DISPLAY=\(deadDisplay) names no X server that answers"]),
        Case(
            name: "a window asked for, WAYLAND_DISPLAY names no compositor", set: ["WAYLAND_DISPLAY": "wayland-nowhere"],
            arguments: ["--set", "preview=window"], status: 69, says: ["WAYLAND_DISPLAY=wayland-nowhere"]),
        Case(name: "no HOME", removed: ["HOME"]),
        Case(name: "no XDG_RUNTIME_DIR", removed: ["XDG_RUNTIME_DIR"]),
        Case(name: "the C locale", set: ["LANG": "C", "LC_ALL": "C"]),
        Case(name: "a UTF-8 locale", set: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]),
        // Root writes anywhere but on a read-only mount (74, an I/O error); anyone else meets the folder's mode first (77).
        getuid() == 0
            ? Case(
                name: "a read-only working folder", removed: ["XDG_RUNTIME_DIR"], readOnlyFolder: true, status: 74,
                says: [
                    "still failed: cannot write captures: cannot create captures: Read-only file system", "or recordings failed (see above)"
                ])
            : Case(
                name: "a read-only working folder", removed: ["XDG_RUNTIME_DIR"], readOnlyFolder: true, status: 77,
                says: ["still failed: cannot write captures: cannot create captures: Permission denied", "or recordings failed (see above)"]
            )
    ]

    @Test(arguments: cases)
    func theDemoEndsTheDocumentedWay(_ environment: Case) throws {
        let run = try SwiftcamRun()
        run.extraEnvironment = environment.set
        run.removedEnvironment = environment.removed
        // The demo under a name of its own: without XDG_RUNTIME_DIR the socket folder is shared with every other run.
        let name = "environment-\(UUID().uuidString.prefix(8))"
        let config = run.directory.appendingPathComponent("\(name).json")
        try FileManager.default.copyItem(atPath: "\(Built.pipelines)/demo.json", toPath: config.path)
        if environment.readOnlyFolder {
            // Root writes into a folder of mode 0555, so root gets a read-only mount of it (in a namespace of its own).
            if getuid() == 0 {
                run.launcher = ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", #"mount --bind -o ro . . && cd "$PWD" && exec "$@""#, "sh"]
            } else {
                chmod(run.directory.path, 0o555)
            }
        }
        defer { chmod(run.directory.path, 0o755) }
        let result = try run.run(
            ["run", config.path, "--frames", "12", "--set", "still.every=0.1", "--quiet"] + environment.arguments, timeout: 120)
        let errors = result.err.split(separator: "\n").map(String.init)
        #expect(result.status == environment.status, "\(environment.name): exit \(result.status): \(result.err)")
        #expect(result.status < 128, "ended by signal \(result.status - 128)")
        for text in environment.says {
            #expect(errors.contains { $0.contains(text) }, "\(environment.name): '\(text)' not in: \(result.err)")
        }
        // Each line says one of those things: nothing from GStreamer, no backtrace.
        #expect(errors.allSatisfy { line in environment.says.contains { line.contains($0) } }, "\(environment.name): \(result.err)")
        if environment.status == 0 { #expect(result.out.contains("stopped \(name)"), "\(result.out)") }
    }

    /// The probe itself: a socket that listens is a display, the same name without one is not.
    @Test func aDisplayIsOnlyWhatAnswers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("display-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let wayland = folder.appendingPathComponent("wayland-test").path
        #expect(!DisplayProbe(environment: ["WAYLAND_DISPLAY": wayland]).isAvailable)
        let listener = try listeningSocket(at: wayland)
        defer { close(listener) }
        #expect(
            DisplayProbe(environment: ["WAYLAND_DISPLAY": "wayland-test", "XDG_RUNTIME_DIR": folder.path]).reachable
                == "WAYLAND_DISPLAY=wayland-test")
        #expect(
            DisplayProbe(environment: ["WAYLAND_DISPLAY": "wayland-test"]).problem
                == "WAYLAND_DISPLAY=wayland-test is relative and XDG_RUNTIME_DIR is not set")
        // An X server's abstract socket (Xorg and Xwayland listen there as well as in /tmp/.X11-unix).
        let number = Int.random(in: 1000...9000)
        #expect(!DisplayProbe(environment: ["DISPLAY": ":\(number)"]).isAvailable)
        let x11 = try listeningSocket(at: "\0/tmp/.X11-unix/X\(number)")
        defer { close(x11) }
        #expect(DisplayProbe(environment: ["DISPLAY": ":\(number).0"]).isAvailable)
        #expect(DisplayProbe(environment: ["DISPLAY": "unix:\(number)"]).isAvailable)
        // The protocol may come first (`unix/:0`, as X's own clients write it).
        #expect(DisplayProbe(environment: ["DISPLAY": "unix/:\(number)"]).isAvailable)
        #expect(!DisplayProbe(environment: [:]).isAvailable)
        #expect(DisplayProbe(environment: [:]).problem == "neither DISPLAY nor WAYLAND_DISPLAY is set here")
    }

    /// A listening stream socket at `path` (a leading NUL: an abstract name).
    private func listeningSocket(at path: String) throws -> Int32 {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (path.hasPrefix("\0") ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(length)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else {
            close(listener)
            throw HarnessError("cannot listen at \(path.debugDescription)")
        }
        return listener
    }
}
