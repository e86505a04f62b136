// GStreamer: safe Swift over GStreamer's C API. One owner per reference (Element, Bin, Pipeline, Pad,
// Caps, Structure, Buffer, Bus and its messages), scoped mapped frames, typed properties, and the
// generic frame helpers on appsrc/appsink (FrameSource, FrameTap). Imports CGStreamer and nothing of ours.

import CGStreamer

/// Process-wide GStreamer set-up.
public enum GStreamer {
    // Swift runs a static `let` initializer exactly once, on whichever thread gets there first.
    private static let initialized: Bool = {
        gst_init(nil, nil)
        return true
    }()

    /// Initializes GStreamer once; safe to call from any thread, any number of times.
    /// Calls `gst_init`.
    public static func initialize() {
        _ = initialized
    }

    /// The runtime GStreamer version as (major, minor, micro, nano). Calls `gst_version`.
    public static var version: (major: Int, minor: Int, micro: Int, nano: Int) {
        var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
        gst_version(&major, &minor, &micro, &nano)
        return (Int(major), Int(minor), Int(micro), Int(nano))
    }

    /// The runtime version as text, e.g. "GStreamer 1.22.0". Calls `gst_version_string`.
    public static var versionString: String {
        String(adoptingGLibString: gst_version_string()) ?? "GStreamer"
    }
}

extension String {
    /// Copies a transfer-full GLib string and frees it at once.
    init?(adoptingGLibString pointer: UnsafeMutablePointer<gchar>?) {
        guard let pointer else { return nil }
        self.init(cString: pointer)
        g_free(pointer)
    }

    /// Copies a transfer-none C string.
    init?(borrowingCString pointer: UnsafePointer<gchar>?) {
        guard let pointer else { return nil }
        self.init(cString: pointer)
    }
}
