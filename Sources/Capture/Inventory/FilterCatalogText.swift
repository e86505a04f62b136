import Filters
import SwiftFilterElement

/// The filter catalog as the host shows it (`swiftcam filters`, later the browser's picker).
public enum FilterCatalogText {
    /// Every filter with its keys, defaults, allowed values and summaries, those of filter plugins on GStreamer's
    /// plugin path (GST_PLUGIN_PATH) included.
    public static var text: String {
        FilterPlugins.loadInstalled()
        var lines = ["Filters, chained with '|': e.g. sepia intensity=0.8 | vignette radius=2", ""]
        for info in FilterCatalog.all {
            lines.append("\(info.name): \(info.summary)")
            for parameter in info.parameters {
                let unit = parameter.unit.isEmpty ? "" : " (\(parameter.unit))"
                lines.append("    \(parameter.key)=\(parameter.defaultValue)  \(parameter.kind.allowed)\(unit); \(parameter.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The filter plugins on the plugin path that were refused, each as one sentence.
    public static var refusedPlugins: [String] {
        FilterPlugins.loadInstalled().map(\.description)
    }
}
