public import Foundation

/// Where the tests find the repository and the programs this build made.
public enum Built {
    /// The repository's root folder (read-only for tests: they write under `.build/` or a temporary folder).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `swiftcam` built next to this test bundle; `SWIFTCAM_BINARY` names another (e.g. the release build).
    public static var swiftcam: String {
        if let chosen = ProcessInfo.processInfo.environment["SWIFTCAM_BINARY"], !chosen.isEmpty { return chosen }
        let products = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let beside = products.appendingPathComponent("swiftcam").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return repository.appendingPathComponent(".build/debug/swiftcam").path
    }

    /// `pipelines/`, the named configs the host reads.
    public static var pipelines: String { repository.appendingPathComponent("pipelines").path }
}
