import Base
import FoundationEssentials

/// Finds named configs: `$SWIFTCAM_PIPELINES`, else `./pipelines`, else the `pipelines/` folder of the
/// checkout the executable was built in, else the installed package's `/etc/swiftcam/pipelines`.
public struct ConfigStore: Sendable {
    /// The folder searched.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Where the Debian package puts the shipped configs (conffiles: the user's edits survive upgrades).
    public static let installedDirectory = "/etc/swiftcam/pipelines"

    /// The store the environment points at. `environment` and `workingDirectory` nil are the process's.
    public static func standard(
        executable: String = CommandLine.arguments.first ?? "",
        environment: [String: String]? = nil,
        workingDirectory: String? = nil,
        installed: String = installedDirectory
    ) -> ConfigStore {
        let manager = FileManager.default
        if let configured = (environment ?? ProcessInfo.processInfo.environment)["SWIFTCAM_PIPELINES"], !configured.isEmpty {
            return ConfigStore(directory: configured)
        }
        let local = workingDirectory.map { "\($0)/pipelines" } ?? "pipelines"
        if manager.fileExists(atPath: local) { return ConfigStore(directory: local) }
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent("pipelines").path
            if manager.fileExists(atPath: candidate) { return ConfigStore(directory: candidate) }
            folder.deleteLastPathComponent()
        }
        if manager.fileExists(atPath: installed) { return ConfigStore(directory: installed) }
        return ConfigStore(directory: "pipelines")
    }

    /// The config names present, sorted: every `NAME.json` whose NAME `isName` accepts, so that what `list` shows,
    /// `show` and `run` load, and `validate` checks are the same files.
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter(Self.isName).sorted()
    }

    /// Whether `text` names a config in the folder: any file name (spaces and accents too, `café cam`), but not
    /// empty, not hidden, without '/' and without control characters. One rule for `list`, `show`, `run` and `ctl`.
    public static func isName(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix(".") && !text.contains("/")
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The file of a name.
    public func path(of name: String) -> String {
        "\(directory)/\(name).json"
    }

    /// Loads a config by name (or by a path ending in .json), with overrides, validated with `checks`.
    public func load(_ nameOrPath: String, overrides: [String] = [], checks: some ConfigChecks) throws(ConfigError) -> PipelineConfig {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") {
            return try ConfigLoader.load(file: nameOrPath, overrides: overrides, checks: checks)
        }
        guard Self.isName(nameOrPath) else {
            throw ConfigError(
                file: nameOrPath, path: "",
                reason:
                    "a config name is a file name in \(directory) without '.json', not hidden and without control characters (see 'swiftcam list')"
            )
        }
        // A name typed in one Unicode form finds a file saved in another (`déjà` composed or decomposed): String's `==`
        // is canonical equivalence, which the file system's byte comparison is not.
        let stored = FileManager.default.fileExists(atPath: path(of: nameOrPath)) ? nameOrPath : names().first { $0 == nameOrPath }
        let file = path(of: stored ?? nameOrPath)
        guard stored != nil else {
            let known = names()
            throw ConfigError(
                file: file, path: "",
                reason: "no config named '\(nameOrPath)'; known: \(known.isEmpty ? "none" : known.joined(separator: ", "))", kind: .noInput)
        }
        return try ConfigLoader.load(file: file, overrides: overrides, checks: checks)
    }

    /// The session name for a config argument: the file name without `.json`, in composed Unicode (NFC), so the
    /// control socket is one file whichever form the host's and the client's names came in.
    public static func sessionName(for nameOrPath: String) -> String {
        let last = nameOrPath.split(separator: "/").last.map(String.init) ?? nameOrPath
        let name = last.hasSuffix(".json") ? String(last.dropLast(5)) : last
        // The standard library's NFC (what Foundation's precomposedStringWithCanonicalMapping gives, without ICU).
        return String(decoding: name._nfcCodeUnits, as: UTF8.self)
    }
}
