import Base
import Capture
import FoundationEssentials
import Glibc

/// `filters`, `gallery`.
enum InfoCommands {
    static let filtersUsage =
        "usage: swiftcam filters\n\nLists every filter with its keys, defaults and allowed values, with the filters of plugins on GST_PLUGIN_PATH."
    static let galleryUsage =
        "usage: swiftcam gallery [DIR…] [--json]\n\nLists captured stills and recordings, newest first (default: captures/ and recordings/)."

    static func filters(_ arguments: [String]) -> Int32 {
        guard arguments.isEmpty else { return usageFailure(UsageError("filters takes no arguments"), filtersUsage) }
        print(FilterCatalogText.text)
        // A plugin that was refused (built against another SwiftCam) is said, not fatal: the others are listed.
        for refusal in FilterCatalogText.refusedPlugins {
            printError(refusal, priority: .warning)
        }
        return ExitCode.ok
    }

    static func gallery(_ arguments: [String]) -> Int32 {
        guard let options = Options.parse(arguments, usage: galleryUsage, switches: ["--json"]) else { return ExitCode.usage }
        let directories = options.positional.isEmpty ? ["captures", "recordings"] : options.positional
        // Folders named by the user must be there (the defaults may not be yet: nothing captured so far).
        for folder in options.positional {
            var status = stat()
            guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                printError("gallery: no such folder \(folder)")
                return ExitCode.noInput
            }
        }
        let items = Gallery.items(in: directories)
        if options.flags.contains("--json") {
            printJSON(items)
        } else if items.isEmpty {
            print("nothing captured yet in \(directories.joined(separator: ", ").terminalSafe)")
        } else {
            for item in items {
                print(
                    "\(item.modified)  \(item.kind.rawValue.padded(to: 9)) \(item.bytes) bytes  \(item.path.terminalSafe)"
                        + (item.event.map { "  event \($0.terminalSafe)" } ?? ""))
            }
        }
        return ExitCode.ok
    }
}
