// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SwiftCam",
    products: [
        .executable(name: "swiftcam", targets: ["swiftcam"]),
        .executable(name: "filters-bench", targets: ["filters-bench"]),
        .library(name: "Filters", targets: ["Filters"]),
        .library(name: "GStreamer", targets: ["GStreamer"]),
        .library(name: "Capture", targets: ["Capture"]),
        // The plugin gst-launch-1.0 loads from GST_PLUGIN_PATH: libgstswiftfilter.so.
        .library(name: "gstswiftfilter", type: .dynamic, targets: ["SwiftFilterElement"]),
    ],
    targets: [
        // C over pkg-config; the module map links the libraries pkg-config does not name.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-app-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .target(name: "GStreamer", dependencies: ["CGStreamer"]),
        .target(name: "Filters"),
        .target(name: "CGstSwiftFilter", dependencies: ["CGStreamer"]),
        .target(name: "SwiftFilterElement", dependencies: ["CGstSwiftFilter", "GStreamer", "Filters"]),
        .target(name: "Capture", dependencies: ["GStreamer", "Filters", "SwiftFilterElement"]),
        .executableTarget(name: "swiftcam", dependencies: ["Capture"]),
        .executableTarget(name: "filters-bench", dependencies: ["Filters"]),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer"]),
        .testTarget(name: "FiltersTests", dependencies: ["Filters"]),
        .testTarget(name: "SwiftFilterElementTests", dependencies: ["SwiftFilterElement", "Capture", "GStreamer", "Filters"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "GStreamer", "SwiftFilterElement", "Filters"]),
    ],
    swiftLanguageModes: [.v6]
)
