public import Base
import Config
import FoundationEssentials
import GStreamer
import Glibc
import SwiftFilterElement

/// What a config needs from this machine that GStreamer would meet only by crashing or by an opaque error:
/// a display for a window, the file a `file` source plays. Checked before the pipeline is built.
public enum PreflightError: CategorizedError, Sendable, Equatable {
    /// A window was asked for (`preview: window`, or a video sink in a launch line) and no display answers (`why`,
    /// from `DisplayProbe`).
    case noDisplay(what: String, why: String, instead: String)
    /// A `file` source's file does not exist.
    case noSuchFile(path: String, source: String)
    /// A `file` source's file exists but this user may not read it.
    case unreadableFile(path: String, source: String)

    public var description: String {
        switch self {
        case let .noDisplay(what, why, instead): "\(what) needs a display, and \(why); \(instead)"
        case let .noSuchFile(path, source): "\(source): no such file \(path)"
        case let .unreadableFile(path, source): "\(source): cannot read \(path): permission denied (check its permissions)"
        }
    }

    /// No display: unavailable (69); a missing file: no input (66); a forbidden one: permission (77).
    public var kind: FailureKind {
        switch self {
        case .noDisplay: .unavailable
        case .noSuchFile: .noInput
        case .unreadableFile: .permission
        }
    }
}

extension PipelineBuilder {
    /// Video sinks that open a window (GStreamer 1.22's `autovideosink` and the sinks it picks segfault without a display).
    static let windowSinks: Set<String> = [
        "autovideosink", "xvimagesink", "ximagesink", "glimagesink", "waylandsink", "gtksink", "gtkglsink"
    ]

    /// Checks what the config needs from this machine before anything is built; throws the first thing missing.
    public func preflight() throws(PreflightError) {
        if !hasDisplay {
            if config.launch == nil, config.preview == .window {
                throw .noDisplay(
                    what: "\"preview\": \"window\"", why: displayProblem,
                    instead: "use \"preview\": \"auto\" (a window only where there is a display) or \"none\"")
            }
            if config.launch != nil, let sink = launchWindowSink {
                throw .noDisplay(
                    what: "the launch line's \(sink)", why: displayProblem,
                    instead: "use fakesink there, or run it where there is a display")
            }
        }
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .file {
            guard let location = source.path else { continue }
            let path: String
            if location.hasPrefix("file://") {
                path = URL(string: location)?.path ?? String(location.dropFirst("file://".count))
            } else if location.contains("://") {
                continue  // a network URI: only reading it tells
            } else {
                path = location
            }
            let name = "sources[\(index)]"
            guard access(path, F_OK) == 0 else { throw .noSuchFile(path: path, source: name) }
            guard access(path, R_OK) == 0 else { throw .unreadableFile(path: path, source: name) }
        }
    }

    /// Why this builder has no display: the probe's reason, or that it was built without one.
    private var displayProblem: String {
        Self.display.isAvailable ? "this session was built without one" : Self.display.problem
    }

    /// The first window-opening sink a launch config names, if any.
    private var launchWindowSink: String? {
        guard config.launch != nil, let pipeline = try? build() else { return nil }
        defer { try? pipeline.setState(.null) }
        return pipeline.allElements.compactMap(\.factoryName).first { Self.windowSinks.contains($0) }
    }
}
