// swift-tools-version:6.1
import PackageDescription

// A user's own filters and analyser, built into their own GStreamer plugin, libgstmyfilters.so. A package of yours depends on
// SwiftCam by URL and version, without SwiftCam's default `NativeSIMD` trait (its AVX builds use compiler flags
// SwiftPM does not allow in a dependency; your plugin's filters run inside the host's SwiftCam, which has them):
//
//     .package(url: "https://github.com/swiftcam/swiftcam.git", from: "0.1.0", traits: []),
//
// This example sits inside SwiftCam's repository. `scripts/myfilters-check.sh` (make test) builds a copy of it the
// way a user's package is built, by URL and version, from a clone of the checkout tagged with its version
// (SWIFTCAM_PACKAGE_URL, SWIFTCAM_PACKAGE_VERSION); without them it builds against the checkout around it.
let swiftCam: Package.Dependency
if let url = Context.environment["SWIFTCAM_PACKAGE_URL"],
    let version = Context.environment["SWIFTCAM_PACKAGE_VERSION"].flatMap(Version.init)
{
    swiftCam = .package(url: url, from: version, traits: [])
} else {
    swiftCam = .package(name: "SwiftCam", path: "../..", traits: [])
}

let package = Package(
    name: "MyFilters",
    products: [
        // GStreamer loads plugins named libgstNAME.so; NAME is also in the descriptor function's name (Plugin.swift).
        .library(name: "gstmyfilters", type: .dynamic, targets: ["MyFilters"])
    ],
    dependencies: [
        swiftCam
    ],
    targets: [
        .target(
            name: "MyFilters",
            dependencies: [
                .product(name: "Filters", package: "SwiftCam"),
                .product(name: "FilterPlugin", package: "SwiftCam"),
                .product(name: "Analysis", package: "SwiftCam")
            ])
    ],
    swiftLanguageModes: [.v6]
)
