import GStreamer

/// Facts about this build of SwiftCam.
public enum SwiftCam {
    /// The release version, printed by `swiftcam --version`.
    public static let version = "0.1.0"

    /// "swiftcam 0.1.0 (GStreamer 1.22.0)".
    public static var versionLine: String {
        "swiftcam \(version) (\(GStreamer.versionString))"
    }
}
