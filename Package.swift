// swift-tools-version:6.0
import PackageDescription

// Imports are the architecture: a module sees only what it imports, and only `public import` re-exports.
let strictImports: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// FiltersAVX2 compiles the hottest Filters loops again for x86-64-v3 (AVX2); Filters picks it at
// run time when the CPU has AVX2 (SIMDPath). Elsewhere the module is empty and never chosen.
// SWIFTCAM_AVX2 lets a shared source file use 256-bit intrinsics in that copy only.
// SWIFTCAM_PORTABLE=1 builds Filters as a machine without x86 intrinsics builds it (ARM64): no
// `_Builtin_intrinsics.intel`, no FiltersAVX2/FiltersAVX512, only the portable kernels (Swift SIMD types).
let portable = Context.environment["SWIFTCAM_PORTABLE"] == "1"
// FiltersPortable compiles the shared cores again with SWIFTCAM_PORTABLE, so the normal build can run the
// portable kernels as a KernelSet beside the others: the same source, the same setting.
let portableCores: [SwiftSetting] = [.define("SWIFTCAM_PORTABLE")]
let filtersDependencies: [Target.Dependency] = portable ? ["FiltersPortable"] : ["FiltersPortable", "FiltersAVX2", "FiltersAVX512"]

#if arch(x86_64)
let avx2: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"]), .define("SWIFTCAM_AVX2")]
// FiltersAVX512 does the same for AVX-512 (F, BW, DQ, VL, CD: skylake-avx512) with VBMI's byte permutes.
let avx512: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "skylake-avx512", "-Xcc", "-mavx512vbmi"]), .define("SWIFTCAM_AVX512")]
#else
let avx2: [SwiftSetting] = []
let avx512: [SwiftSetting] = []
#endif

let package = Package(
    name: "SwiftCam",
    products: [
        .executable(name: "swiftcam", targets: ["swiftcam"]),
        .executable(name: "filters-bench", targets: ["filters-bench"]),
        .library(name: "Filters", targets: ["Filters"]),
        .library(name: "GStreamer", targets: ["GStreamer"]),
        .library(name: "Camera", targets: ["Camera"]),
        .library(name: "Capture", targets: ["Capture"]),
        // The page's signalling, for the fuzz target (Tests/Fuzz) through its `@_spi(Fuzzing)` entry.
        .library(name: "Web", targets: ["Web"]),
        // The plugin gst-launch-1.0 loads from GST_PLUGIN_PATH: libgstswiftfilter.so.
        .library(name: "gstswiftfilter", type: .dynamic, targets: ["SwiftFilterElement"]),
    ],
    targets: [
        // C over pkg-config; the module map links the libraries pkg-config does not name.
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-app-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .target(name: "GStreamer", dependencies: ["CGStreamer"], swiftSettings: strictImports),
        .systemLibrary(name: "CV4L2"),
        .target(name: "FiltersAVX2", swiftSettings: strictImports + avx2),
        .target(name: "FiltersAVX512", swiftSettings: strictImports + avx512),
        .target(name: "FiltersPortable", swiftSettings: strictImports + portableCores),
        .target(name: "Filters", dependencies: filtersDependencies, swiftSettings: strictImports + (portable ? portableCores : [])),
        .target(name: "CGstSwiftFilter", dependencies: ["CGStreamer"]),
        .target(name: "SwiftFilterElement", dependencies: ["CGstSwiftFilter", "CGStreamer", "GStreamer", "Filters"],
                swiftSettings: strictImports),
        // V4L2 only: never GStreamer.
        .target(name: "Camera", dependencies: ["CV4L2"], swiftSettings: strictImports),
        .target(name: "Capture", dependencies: ["Camera", "GStreamer", "Filters", "SwiftFilterElement"],
                swiftSettings: strictImports),
        // The browser screen: HTTP and WebSocket (libsoup-3.0), WebRTC (webrtcbin) and MJPEG over the command interpreter.
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0", providers: [.apt(["libsoup-3.0-dev"])]),
        .systemLibrary(name: "CGstWebRTC", pkgConfig: "gstreamer-webrtc-1.0", providers: [.apt(["libgstreamer-plugins-bad1.0-dev"])]),
        .target(name: "Web", dependencies: ["Capture", "GStreamer", "CGStreamer", "Filters", "CSoup", "CGstWebRTC"],
                resources: [.copy("Assets")], swiftSettings: strictImports),
        .systemLibrary(name: "CGstRTSPServer", pkgConfig: "gstreamer-rtsp-server-1.0", providers: [.apt(["libgstrtspserver-1.0-dev"])]),
        .target(name: "Publish", dependencies: ["Capture", "GStreamer", "CGStreamer", "CGstRTSPServer"], swiftSettings: strictImports),
        .target(name: "Benchmark", dependencies: ["GStreamer", "SwiftFilterElement", "Filters"],
                swiftSettings: strictImports),
        // The running host as a type: session, page, publishing, control socket, signals, the exit policy.
        .target(name: "Host", dependencies: ["Capture", "Web", "Publish"], swiftSettings: strictImports),
        .executableTarget(name: "swiftcam", dependencies: ["Host", "Capture", "Web", "Publish", "Benchmark"], swiftSettings: strictImports),
        .executableTarget(name: "filters-bench", dependencies: ["Filters"], swiftSettings: strictImports),
        .testTarget(name: "GStreamerTests", dependencies: ["GStreamer"], swiftSettings: strictImports),
        .testTarget(name: "FiltersTests", dependencies: ["Filters"], swiftSettings: strictImports),
        // Fixtures/ (cameras' published mode lists) is read from the source tree (#filePath), not bundled.
        .testTarget(name: "CameraTests", dependencies: ["Camera"], exclude: ["Fixtures"], swiftSettings: strictImports),
        .testTarget(name: "BenchmarkTests", dependencies: ["Benchmark", "Filters", "GStreamer", "SwiftFilterElement"], swiftSettings: strictImports),
        // BrokenConfigs/ is read from the source tree (#filePath), not bundled.
        // CGStreamer: the encoder tests define stand-in elements that fail as hardware encoders do.
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Camera", "CV4L2", "CGStreamer", "GStreamer", "SwiftFilterElement", "Filters"],
                    exclude: ["BrokenConfigs"], swiftSettings: strictImports),
        .testTarget(name: "SwiftcamTests", dependencies: ["Capture", "GStreamer"], swiftSettings: strictImports),
        .testTarget(name: "WebTests", dependencies: ["Web", "Capture", "GStreamer"], swiftSettings: strictImports),
        .testTarget(name: "HostTests", dependencies: ["Host", "Capture", "Web", "GStreamer"], swiftSettings: strictImports),
        .testTarget(name: "PublishTests", dependencies: ["Publish", "Capture", "GStreamer", "CGStreamer"], swiftSettings: strictImports),
        .testTarget(name: "SwiftFilterElementTests", dependencies: ["SwiftFilterElement", "Capture", "GStreamer", "Filters"],
                    swiftSettings: strictImports),
    ],
    swiftLanguageModes: [.v6]
)
