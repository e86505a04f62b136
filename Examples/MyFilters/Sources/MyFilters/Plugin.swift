import Analysis
import FilterPlugin
import Filters

/// GStreamer finds a plugin's descriptor by its file name: libgstmyfilters.so → `gst_plugin_myfilters_get_desc`.
@_cdecl("gst_plugin_myfilters_get_desc")
public func myFiltersPluginDescriptor() -> UnsafeRawPointer {
    FilterPlugin.descriptor(
        name: "myfilters", summary: "Duotone and emboss, filters of my own for SwiftCam's swiftfilter, and a brightness analyser",
        filters: [Duotone.self, Emboss.self], analyzers: [Brightness.kind])
}
