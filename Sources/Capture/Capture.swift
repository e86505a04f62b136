// Capture: the host. Config/ answers what a config (module Config) asks of this machine and builds configs into graphs
// of typed elements; Session/ runs one graph (lifecycle, recovery, stills, recording, live controls, stats);
// Control/ is the command interpreter that every transport (stdin, Control's socket, Web, Publish) feeds;
// Inventory/ is what the host lists (cameras, filters); Live/ encodes the filtered stream once for every
// live consumer (Web's viewers, Publish's clients and pushes).

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
