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
    ],
    targets: [
        // C over pkg-config; the module map links the libraries pkg-config does not name.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-app-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .target(name: "GStreamer", dependencies: ["CGStreamer"]),
        .systemLibrary(name: "CV4L2"),
        .target(name: "Filters"),
        .target(name: "Capture", dependencies: ["GStreamer", "Filters", "CV4L2"]),
        .executableTarget(name: "swiftcam", dependencies: ["Capture"]),
        .executableTarget(name: "filters-bench", dependencies: ["Filters"]),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer"]),
        .testTarget(name: "FiltersTests", dependencies: ["Filters"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture"]),
    ],
    swiftLanguageModes: [.v6]
)
