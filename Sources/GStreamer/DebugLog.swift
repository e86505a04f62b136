import CGStreamer
import Glibc

/// SwiftCam's category in GStreamer's debug log (`swiftcam`): where GStreamer's own words for a failure go, so
/// what a user reads stays one sentence while `GST_DEBUG=swiftcam:2` (or `swiftcam run --verbose`) still shows them.
public enum DebugLog {
    /// The category, registered once (a lazy static: `swift_once`); GStreamer owns it for the process's life.
    /// Calls `_gst_debug_category_new` (the function behind `GST_DEBUG_CATEGORY_INIT`).
    private nonisolated(unsafe) static let category: UnsafeMutablePointer<GstDebugCategory>? = {
        GStreamer.initialize()
        return _gst_debug_category_new("swiftcam", 0, "SwiftCam: GStreamer's messages behind what SwiftCam reports")
    }()

    /// Logs `text` at warning level (shown by `GST_DEBUG=2` and up). Calls `gst_debug_log_literal`.
    public static func warning(_ text: String, file: String = #fileID, function: String = #function, line: Int = #line) {
        guard let category else { return }
        gst_debug_log_literal(category, GST_LEVEL_WARNING, file, function, gint(truncatingIfNeeded: line), nil, text)
    }

    /// Logs `text` at info level (`GST_DEBUG=swiftcam:4`): what happens often and is nobody's failure, such as a
    /// client that gives up on a TLS handshake.
    public static func info(_ text: String, file: String = #fileID, function: String = #function, line: Int = #line) {
        guard let category else { return }
        gst_debug_log_literal(category, GST_LEVEL_INFO, file, function, gint(truncatingIfNeeded: line), nil, text)
    }

    /// Prints this category's messages (warnings and up) on stderr through GStreamer's default log function,
    /// whatever `GST_DEBUG` says of other categories. Calls `gst_debug_set_active` and `gst_debug_set_threshold_for_name`.
    public static func showOnStandardError() {
        _ = category
        // Colour codes only for a terminal: in a file or the journal they are noise (GStreamer colours whenever on).
        if isatty(STDERR_FILENO) == 0 { gst_debug_set_color_mode(GST_DEBUG_COLOR_MODE_OFF) }
        gst_debug_set_active(1)
        gst_debug_set_threshold_for_name("swiftcam", GST_LEVEL_WARNING)
    }
}
