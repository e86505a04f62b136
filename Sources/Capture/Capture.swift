// Capture: the host. Config/ reads, validates and builds configs into graphs of typed elements;
// Session/ runs one graph (lifecycle, recovery, stills, recording, live controls, stats);
// Control/ is the command interpreter and the transports that feed it (stdin, the Unix socket);
// Inventory/ is what the host lists (cameras, filters); Live/ encodes the filtered stream once for every
// live consumer (Web's viewers, Publish's clients and pushes). Imports Camera, GStreamer, SwiftFilterElement
// and Filters; transports of later modules (Web, Publish) come in through Control's interpreter.

import GStreamer
import SwiftFilterElement

/// Facts about this build of SwiftCam.
public enum SwiftCam {
    /// The release version, printed by `swiftcam --version`; the plugin and the Debian package carry the same.
    public static var version: String { SwiftFilterElement.version }

    /// "swiftcam 0.1.0 (GStreamer 1.22.0)".
    public static var versionLine: String {
        "swiftcam \(version) (\(GStreamer.versionString))"
    }
}

extension SwiftCam {
    /// Why `path` could not take a file the command writes in place when its work is done (`run --dot`), or nil when
    /// it can: asked before the work, so a typo costs no run.
    public static func problem(writing path: String) -> String? {
        FileCreation.problem(writingInPlace: path)
    }
}
