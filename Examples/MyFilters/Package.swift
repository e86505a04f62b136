// swift-tools-version:6.1
import PackageDescription

// A user's own filters, built into their own GStreamer plugin, libgstmyfilters.so. A package of yours depends on
// SwiftCam by URL and version, without SwiftCam's default `NativeSIMD` trait (its AVX builds use compiler flags
// SwiftPM does not allow in a dependency; your plugin's filters run inside the host's SwiftCam, which has them):
//
//     .package(url: "https://github.com/swiftcam/swiftcam.git", from: "0.1.0", traits: []),
//
// This example sits inside SwiftCam's repository and builds against the checkout around it.
let package = Package(
    name: "MyFilters",
    products: [
        // GStreamer loads plugins named libgstNAME.so; NAME is also in the descriptor function's name (Plugin.swift).
        .library(name: "gstmyfilters", type: .dynamic, targets: ["MyFilters"]),
    ],
    dependencies: [
        .package(name: "SwiftCam", path: "../..", traits: []),
    ],
    targets: [
        .target(name: "MyFilters", dependencies: [
            .product(name: "Filters", package: "SwiftCam"),
            .product(name: "FilterPlugin", package: "SwiftCam"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
