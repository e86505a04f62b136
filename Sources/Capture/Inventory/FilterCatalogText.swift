import Filters

/// The filter catalog as the host shows it (`swiftcam filters`, later the browser's picker).
public enum FilterCatalogText {
    /// Every filter with its keys, defaults, allowed values and summaries.
    public static var text: String {
        var lines = ["Filters, chained with '|': e.g. sepia intensity=0.8 | vignette radius=2", ""]
        for info in FilterCatalog.all {
            lines.append("\(info.name): \(info.summary)")
            for parameter in info.parameters {
                lines.append("    \(parameter.key)=\(parameter.defaultValue)  \(parameter.kind.allowed); \(parameter.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
